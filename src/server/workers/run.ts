import { onChange } from "@/server/platform/change-signals";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { purgeExpired } from "@/server/platform/retention";
import { DELIVERIES_TOPIC, OUTBOX_TOPIC, drainOutbox } from "@/server/domain/webhooks/dispatch.service";
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
import { renewDueSubscriptions } from "@/server/domain/billing/renewals.service";
import { pumpDeliveries } from "./delivery-pump";
import { runningTicks, trackTick } from "./ticks";
import { lapseRunnerHosts } from "@/server/domain/runners/lapse.service";
import type { TRole } from "@/server/platform/roles";

/**
 * `wakeOn`: change-signal topics (LISTEN/NOTIFY, ../platform/change-signals.ts) that run the loop at
 * once; `everyMs` is then only the fallback for a lost notification. `pump` is run instead of `run`
 * when set, with `again`, which asks for another run as soon as possible (work freed up).
 */
type TLoop = {
  name: string; everyMs: number; run: () => Promise<unknown>; pump?: (again: () => void) => Promise<unknown>; wakeOn?: string[];
  /** `runner` loops act on this host's processes (placement, reconciliation); `worker` loops on shared rows only. */
  role?: "worker" | "runner";
};

/** The loops of a process with these roles (runner loops need the runner role, the rest the worker role). */
export function loopsFor(roles: ReadonlySet<TRole>): TLoop[] {
  return loops().filter((l) => roles.has(l.role ?? "worker"));
}

/**
 * Background loops. Each tick is independent; a tick never overlaps itself;
 * a failing tick is logged and retried next time. Every loop is safe to run
 * in several processes at once (row claims, not memory, decide who works).
 */
export function loops(): TLoop[] {
  const poll = env().CAPSTAN_WORKER_POLL_MS;
  return [
    // Woken by the outbox trigger's NOTIFY (every insert statement) and by the deliveries the dispatcher made.
    { name: "outbox-dispatch", everyMs: poll, run: () => drainOutbox(), wakeOn: [OUTBOX_TOPIC] },
    { name: "webhook-delivery", everyMs: poll, run: () => pumpDeliveries(), pump: (again) => pumpDeliveries(again), wakeOn: [DELIVERIES_TOPIC] },
    { name: "source-freeze", everyMs: poll, run: processPendingFreezes },
    { name: "deployments", everyMs: poll, run: processPlannedDeployments, role: "runner" },
    { name: "deadlines", everyMs: poll, run: fireDueDeadlines },
    { name: "evaluations", everyMs: poll, run: () => processEvaluations() },
    { name: "release-windows", everyMs: poll, run: () => processReleaseWindows() },
    { name: "domain-checks", everyMs: poll, run: processDomainChecks },
    { name: "domain-verify-pruner", everyMs: 10 * 60_000, run: pruneVerifyRequests },
    { name: "managed-resources", everyMs: poll, run: () => processManagedResources() },
    { name: "managed-resource-sizes", everyMs: 60_000, run: () => measureManagedResources() },
    { name: "runner-reconciler", everyMs: env().CAPSTAN_RUNNER_RECONCILE_MS, run: reconcileRunner, role: "runner" },
    // Lost runner hosts: lease lapsed -> their deployments fail (runner_host_lost).
    { name: "runner-leases", everyMs: env().CAPSTAN_RUNNER_HEARTBEAT_MS, run: () => lapseRunnerHosts() },
    { name: "binding-expiry", everyMs: 60_000, run: expireBindings },
    { name: "reservation-sweeper", everyMs: 30_000, run: sweepExpiredReservations },
    // Dispatched events, finished deliveries, expired idempotency records (docs/decisions.md "Workers that keep up").
    { name: "retention", everyMs: 60_000, run: () => purgeExpired() },
    // Month close: the previous month's invoices (idempotent; retried every tick until issued).
    { name: "billing-invoices", everyMs: 5 * 60_000, run: () => issueDueInvoices() },
    // Subscription periods roll over at their end (safe with several workers: the wallet lock per workspace).
    { name: "billing-renewals", everyMs: 60_000, run: () => renewDueSubscriptions() },
  ];
}

const g = globalThis as unknown as { __capstanWorkers?: { timers: NodeJS.Timeout[]; stopped: { value: boolean } } };

export function startWorkers(list = loops(), opts: { keepAlive?: boolean } = {}): void {
  if (g.__capstanWorkers) return;
  const stopped = { value: false };
  const timers = list.map((loop) => {
    let busy = false;
    let pending = false;
    const trigger = (): void => {
      if (stopped.value) return;
      if (busy) {
        pending = true;
        return;
      }
      busy = true;
      pending = false;
      void trackTick(
        (loop.pump ? loop.pump(trigger) : loop.run())
          .catch((err) => logger.error("worker.tick_failed", { worker: loop.name, error: String(err) }))
          .finally(() => {
            busy = false;
            if (pending) setImmediate(trigger);
          }),
      );
    };
    for (const topic of loop.wakeOn ?? []) onChange(topic, () => trigger());
    const timer = setInterval(trigger, loop.everyMs);
    if (!opts.keepAlive) timer.unref();
    return timer;
  });
  g.__capstanWorkers = { timers, stopped };
  logger.info("workers.started", { workers: list.map((l) => l.name) });
}

export function stopWorkers(): void {
  const w = g.__capstanWorkers;
  if (!w) return;
  w.stopped.value = true;
  for (const t of w.timers) clearInterval(t);
  g.__capstanWorkers = undefined;
}

/**
 * After stopWorkers: resolves once the ticks still running have finished (a
 * webhook request in flight and the recording of its outcome), or false after
 * `timeoutMs`. A process that exits without this leaves leases to expire and
 * repeats deliveries whose answer it never recorded.
 */
export async function drainWorkers(timeoutMs: number): Promise<boolean> {
  const running = runningTicks();
  if (!running.length) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([Promise.allSettled(running).then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
