// `npm run worker`: background loops in their own process, for scale-out, with
// the runner role by default (CAPSTAN_ROLES=worker for a worker without hosted
// apps). Run the server with CAPSTAN_ROLES=web (or CAPSTAN_WORKERS=0) then.
import { getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { recoverInFlight } from "@/server/domain/usage/leases.service";
import { beginStop, finishStop } from "@/server/shutdown";
import { roles, setEntryPoint } from "@/server/platform/roles";
import { startRoles } from "./roles";
import { startMetricsListener } from "@/server/http/metrics-handler";
import { startTracing } from "@/server/platform/tracing";
import { deploymentBridge } from "@/server/bridge/deployment-bridge";
import { provideDeploymentBridge } from "@/server/domain/deployments/lifecycle";

setEntryPoint("worker");
provideDeploymentBridge(deploymentBridge);
await startTracing();
await getDb();
await recoverInFlight().catch((err: unknown) => logger.error("worker.recovery_failed", { error: String(err) }));
await startMetricsListener();
await startRoles(roles("worker"), { keepAlive: true });
logger.info("worker.process_started", { pid: process.pid });

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // npm and tsx relay the signal they got too: shut down once.
    if (stopping) return;
    stopping = true;
    // No new tick; the ticks in flight (a webhook request and its outcome) finish within
    // CAPSTAN_SHUTDOWN_GRACE_MS, then the pools and the instance lock close.
    const started = Date.now();
    beginStop();
    logger.info("worker.draining", { signal, pid: process.pid });
    const graceMs = env().CAPSTAN_SHUTDOWN_GRACE_MS;
    const hard = setTimeout(() => process.exit(1), graceMs + 5_000);
    hard.unref();
    void finishStop(graceMs).finally(() => {
      // After finishStop the logger's destination is still open (pino writes synchronously to stdout).
      logger.info("worker.stopped", { pid: process.pid, ms: Date.now() - started, exit_code: 0 });
      process.exit(0);
    });
  });
}
