/**
 * A separate Capstan process that runs the deploy worker once and then
 * waits: the multi-process runtime tests kill it with SIGKILL (a crash of
 * Capstan) and check that the app it started survives and is adopted.
 * Run with `node --conditions=react-server --import tsx test/support/deploy-worker.ts`
 * (test/support/api.ts reaches the HTTP handlers, which import `server-only`); prints
 * "applied <n>" when done.
 */
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { bootApp } from "./api";

await bootApp();
const n = await processPlannedDeployments(5);
process.stdout.write(`applied ${n}\n`);
setInterval(() => undefined, 60_000);
