import { sweepIdempotencyKeys } from "@/server/platform/idempotency";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { deliverDue, dispatchOutbox } from "@/server/domain/webhooks/delivery.service";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { sweepExpiredReservations } from "@/server/domain/usage/reservations.service";
import { expireBindings } from "@/server/domain/credentials/bindings.service";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { reconcileRunner } from "@/server/domain/deployments/reconcile.service";
import { fireDueDeadlines } from "@/server/domain/deployments/surfaces.service";
import { processEvaluations } from "@/server/domain/releases/evaluation-worker";
import { processReleaseWindows } from "@/server/domain/releases/release-window.service";
import { processDomainChecks } from "@/server/domain/domains/verification.service";
import { pruneVerifyRequests } from "@/server/domain/domains/domains.service";
import { measureManagedResources, processManagedResources } from "@/server/domain/managed-resources/managed-resources.worker";
import { issueDueInvoices } from "@/server/domain/billing/invoices.service";

type TLoop = { name: string; everyMs: number; run: () => Promise<unknown> };

/**
 * Background loops. Each tick is independent; a tick never overlaps itself;
 * a failing tick is logged and retried next time. Every loop is safe to run
 * in several processes at once (row claims, not memory, decide who works).
 */
export function loops(): TLoop[] {
  const poll = env().CAPSTAN_WORKER_POLL_MS;
  return [
    { name: "outbox-dispatch", everyMs: poll, run: dispatchOutbox },
    { name: "webhook-delivery", everyMs: poll, run: deliverDue },
    { name: "source-freeze", everyMs: poll, run: processPendingFreezes },
    { name: "deployments", everyMs: poll, run: processPlannedDeployments },
    { name: "deadlines", everyMs: poll, run: fireDueDeadlines },
    { name: "evaluations", everyMs: poll, run: () => processEvaluations() },
    { name: "release-windows", everyMs: poll, run: () => processReleaseWindows() },
    { name: "domain-checks", everyMs: poll, run: processDomainChecks },
    { name: "domain-verify-pruner", everyMs: 10 * 60_000, run: pruneVerifyRequests },
    { name: "managed-resources", everyMs: poll, run: () => processManagedResources() },
    { name: "managed-resource-sizes", everyMs: 60_000, run: () => measureManagedResources() },
    { name: "runner-reconciler", everyMs: env().CAPSTAN_RUNNER_RECONCILE_MS, run: reconcileRunner },
    { name: "binding-expiry", everyMs: 60_000, run: expireBindings },
    { name: "reservation-sweeper", everyMs: 30_000, run: sweepExpiredReservations },
    { name: "idempotency-sweeper", everyMs: 10 * 60_000, run: sweepIdempotencyKeys },
    // Month close: the previous month's invoices (idempotent; retried every tick until issued).
    { name: "billing-invoices", everyMs: 5 * 60_000, run: () => issueDueInvoices() },
  ];
}

const g = globalThis as unknown as { __capstanWorkers?: NodeJS.Timeout[]; __capstanTicks?: Set<Promise<unknown>> };

export function startWorkers(list = loops(), opts: { keepAlive?: boolean } = {}): void {
  if (g.__capstanWorkers) return;
  const ticks = (g.__capstanTicks ??= new Set());
  g.__capstanWorkers = list.map((loop) => {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      const tick: Promise<unknown> = loop
        .run()
        .catch((err) => logger.error("worker.tick_failed", { worker: loop.name, error: String(err) }))
        .finally(() => {
          busy = false;
          ticks.delete(tick);
        });
      ticks.add(tick);
    }, loop.everyMs);
    if (!opts.keepAlive) timer.unref();
    return timer;
  });
  logger.info("workers.started", { workers: list.map((l) => l.name) });
}

export function stopWorkers(): void {
  for (const t of g.__capstanWorkers ?? []) clearInterval(t);
  g.__capstanWorkers = undefined;
}

/**
 * After stopWorkers: resolves once the ticks still running have finished (a
 * webhook request in flight and the recording of its outcome), or false after
 * `timeoutMs`. A process that exits without this leaves leases to expire and
 * repeats deliveries whose answer it never recorded.
 */
export async function drainWorkers(timeoutMs: number): Promise<boolean> {
  const running = [...(g.__capstanTicks ?? [])];
  if (!running.length) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([Promise.allSettled(running).then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
