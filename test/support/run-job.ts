/**
 * Runs one periodic job once in its own process, for tests that race the
 * same job in several processes: `node --conditions=react-server --import tsx test/support/run-job.ts
 * invoices <iso time>` prints `result <json>` and exits.
 */
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { closeDb } from "@/server/platform/db/client";
import { bootApp } from "./api";

const [job, at] = process.argv.slice(2);
await bootApp();
// Both racers wait for the same wall-clock instant (argv[4]) so the runs overlap.
const startAt = Number(process.argv[4] ?? "0");
if (startAt > Date.now()) await new Promise((r) => setTimeout(r, startAt - Date.now()));
let result: unknown;
if (job === "invoices") result = await closeDueMonths(new Date(at!));
else throw new Error(`unknown job ${job}`);
process.stdout.write(`result ${JSON.stringify(result)}\n`);
await closeDb();
process.exit(0);
