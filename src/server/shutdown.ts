import { flushRecords } from "@/server/bridge/record";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { closeDb } from "@/server/platform/db/client";
import { beginDrain } from "@/server/platform/lifecycle";
import { logger } from "@/server/platform/logger";
import { stopTracing } from "@/server/platform/tracing";
import { drainWorkers, stopWorkers } from "@/server/workers/run";

/**
 * Graceful stop, in two steps so the HTTP server (scripts/graceful.mjs) can
 * drain its in-flight requests in between:
 *  1. `beginStop()`: /readyz turns 503 and no worker tick starts any more.
 *  2. `finishStop(ms)`: waits for the worker ticks still running (a webhook
 *     request and the recording of its outcome: their claims are released
 *     by finishing) up to `ms`, flushes every pending Bridge record batch,
 *     then closes the database pools and the instance lock (a reservation
 *     still held then is recovered, charged, by the next process).
 * Registered on globalThis at boot for scripts/server.mjs, which cannot
 * import TypeScript; the worker process and the test server call it directly.
 */
export function beginStop(): void {
  beginDrain();
  stopWorkers();
}

export async function finishStop(ms: number): Promise<void> {
  if (!(await drainWorkers(Math.max(0, ms)))) logger.warn("shutdown.workers_timed_out", { ms });
  await flushRecords().catch((err: unknown) => logger.error("shutdown.flush_failed", { error: String(err) }));
  // Budget leases back to their budgets (every draw was settled by the flushed records), then the journal goes.
  await returnLeases().catch((err: unknown) => logger.error("shutdown.lease_return_failed", { error: String(err) }));
  await closeDb().catch((err: unknown) => logger.error("shutdown.close_failed", { error: String(err) }));
  await stopTracing().catch((err: unknown) => logger.warn("shutdown.tracing_flush_failed", { error: String(err) }));
}

export function registerShutdown(): void {
  (globalThis as { __capstanStop?: { begin: typeof beginStop; finish: typeof finishStop } }).__capstanStop = {
    begin: beginStop,
    finish: finishStop,
  };
}
