// `npm run worker`: background loops in their own process, for scale-out.
// Run the server with CAPSTAN_WORKERS=0 when you run workers this way.
import { closeDb, getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { drainWorkers, startWorkers, stopWorkers } from "./run";

await getDb();
startWorkers(undefined, { keepAlive: true });
logger.info("worker.process_started", { pid: process.pid });

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // npm and tsx relay the signal they got too: shut down once.
    if (stopping) return;
    stopping = true;
    stopWorkers();
    // Finish what is in flight (a webhook request and its outcome) before closing the pool.
    void drainWorkers(env().CAPSTAN_WEBHOOK_TIMEOUT_MS + 5_000)
      .then((drained) => {
        if (!drained) logger.warn("worker.drain_timed_out", { pid: process.pid });
      })
      .then(() => closeDb())
      .finally(() => process.exit(0));
  });
}
