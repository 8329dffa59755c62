// `npm run worker`: background loops in their own process, for scale-out.
// Run the server with CAPSTAN_WORKERS=0 when you run workers this way.
import { closeDb, getDb } from "@/server/platform/db/client";
import { logger } from "@/server/platform/logger";
import { startWorkers, stopWorkers } from "./run";

await getDb();
startWorkers(undefined, { keepAlive: true });
logger.info("worker.process_started", { pid: process.pid });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopWorkers();
    void closeDb().finally(() => process.exit(0));
  });
}
