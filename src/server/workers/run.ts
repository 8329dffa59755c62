import { sweepIdempotencyKeys } from "@/server/platform/idempotency";
import { logger } from "@/server/platform/logger";

type TLoop = { name: string; everyMs: number; run: () => Promise<unknown> };

/** Background loops. Each tick is independent; a failing tick is logged and retried next time. */
export const LOOPS: TLoop[] = [{ name: "idempotency-sweeper", everyMs: 10 * 60_000, run: sweepIdempotencyKeys }];

const g = globalThis as unknown as { __capstanWorkers?: NodeJS.Timeout[] };

export function startWorkers(loops = LOOPS): void {
  if (g.__capstanWorkers) return;
  g.__capstanWorkers = loops.map((loop) => {
    const timer = setInterval(() => {
      loop.run().catch((err) => logger.error("worker.tick_failed", { worker: loop.name, error: String(err) }));
    }, loop.everyMs);
    timer.unref();
    return timer;
  });
  logger.info("workers.started", { workers: loops.map((l) => l.name) });
}

export function stopWorkers(): void {
  for (const t of g.__capstanWorkers ?? []) clearInterval(t);
  g.__capstanWorkers = undefined;
}
