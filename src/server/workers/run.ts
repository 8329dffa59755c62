import { collectDue } from "@/server/domain/billing/collection/collection-worker";
import { onChange } from "@/server/platform/change-signals";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { purgeExpired } from "@/server/platform/retention";
import { DELIVERIES_TOPIC, OUTBOX_TOPIC, drainOutbox } from "@/server/domain/webhooks/dispatch.service";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { sweepInFlight } from "@/server/domain/usage/leases.service";
import { expireBindings } from "@/server/domain/credentials/bindings.service";
import { reconcileRunner } from "@/server/domain/deployments/reconcile.service";
import { fireDueDeadlines } from "@/server/domain/deployments/surfaces.service";
import { processEvaluations } from "@/server/domain/releases/evaluation-worker";
import { processReleaseWindows } from "@/server/domain/releases/release-window.service";
import { processDomainChecks } from "@/server/domain/domains/verification.service";
import { pruneVerifyRequests } from "@/server/domain/domains/domains.service";
import {
  measureManagedResources,
  processManagedResources,
} from "@/server/domain/managed-resources/managed-resources.worker";
import { processCredentials } from "@/server/domain/managed-resources/credentials.worker";
import { processRestarts } from "@/server/domain/managed-resources/credentials-restarts";
import {
  expireBackups,
  processBackups,
  processRestores,
  scheduleBackups,
} from "@/server/domain/managed-resources/backups.worker";
import { measureStorage } from "@/server/domain/billing/pricing-metered.service";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { renewDueSubscriptions } from "@/server/domain/billing/renewals.service";
import { pumpDeliveries } from "./delivery-pump";
import { placeDeployments } from "./placement";
import { runningTicks, trackTick } from "./ticks";
import { lapseRunnerHosts } from "@/server/domain/deployments/host-lapse.service";
import { localHostId } from "@/server/domain/runners/runner-hosts.service";
import { processPushDeliveries } from "@/server/domain/deployments/push-confirm.service";
import { flushLocalRunLogs, purgeExpiredLogSegments } from "@/server/domain/deployments/run-log.service";
import { runner } from "@/server/runtime";
import { processDrains } from "@/server/domain/deployments/host-drain.service";
import { notePlacementWaits } from "@/server/domain/runners/capacity.service";
import type { TRole } from "@/server/platform/roles";

/**
 * `wakeOn`: change-signal topics (LISTEN/NOTIFY, ../platform/change-signals.ts) that run the loop at
 * once; `everyMs` is then only the fallback for a lost notification. `pump` is run instead of `run`
 * when set, with `again`, which asks for another run as soon as possible (work freed up).
 */
type TLoop = {
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
  pump?: (again: () => void) => Promise<unknown>;
  wakeOn?: string[];
  /**
   * A wake-up within this many ms of the last tick's start waits for the rest of it, so one tick serves every
   * change of that window (the dispatcher: one transaction per window instead of one per Bridge commit).
   */
  coalesceMs?: number;
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
    // At most one dispatch per CAPSTAN_OUTBOX_COALESCE_MS while events trickle in; a backlog drains batch after batch.
    {
      name: "outbox-dispatch",
      everyMs: poll,
      run: () => drainOutbox(),
      wakeOn: [OUTBOX_TOPIC],
      coalesceMs: env().CAPSTAN_OUTBOX_COALESCE_MS,
    },
    {
      name: "webhook-delivery",
      everyMs: poll,
      run: () => pumpDeliveries(),
      pump: (again) => pumpDeliveries(again),
      wakeOn: [DELIVERIES_TOPIC],
    },
    { name: "source-freeze", everyMs: poll, run: processPendingFreezes },
    // Deploy on push: deliveries whose freeze finished are confirmed and deployed, or left to the owner.
    { name: "push-deliveries", everyMs: poll, run: () => processPushDeliveries() },
    // Claims and starts applies without awaiting them (placement.ts), so one long build holds back no other placement.
    { name: "deployments", everyMs: poll, run: placeDeployments, role: "runner" },
    { name: "deadlines", everyMs: poll, run: fireDueDeadlines },
    { name: "evaluations", everyMs: poll, run: () => processEvaluations() },
    { name: "release-windows", everyMs: poll, run: () => processReleaseWindows() },
    { name: "domain-checks", everyMs: poll, run: processDomainChecks },
    { name: "domain-verify-pruner", everyMs: 10 * 60_000, run: pruneVerifyRequests },
    { name: "managed-resources", everyMs: poll, run: () => processManagedResources() },
    // Login roles past a rotation's overlap, revoked ones and abandoned creations (docs/decisions.md "Credentials: rotation with an overlap, read-only roles").
    { name: "managed-resource-credentials", everyMs: poll, run: () => processCredentials() },
    // Running deployments replaced one by one after an attach, detach or rotation.
    { name: "managed-resource-restarts", everyMs: poll, run: () => processRestarts() },
    // Half the measuring interval: a resource over its limit turns read-only at most 1.5 intervals after crossing it.
    {
      name: "managed-resource-sizes",
      everyMs: Math.min(60_000, Math.max(1_000, env().CAPSTAN_MRES_MEASURE_SECONDS * 500)),
      run: () => measureManagedResources(),
    },
    {
      name: "managed-resource-backups",
      everyMs: poll,
      run: async () => (await processBackups()) + (await processRestores()),
    },
    {
      name: "managed-resource-backup-schedule",
      everyMs: 60_000,
      run: async () => (await scheduleBackups()) + (await expireBackups()),
    },
    // Running apps' logs to the blob store in segments (docs/decisions.md "Deployment logs"); expired segments go.
    {
      name: "run-log-flush",
      everyMs: Math.min(env().CAPSTAN_LOG_FLUSH_MS, 5_000),
      run: () => flushLocalRunLogs(runner(), localHostId()),
      role: "runner",
    },
    { name: "run-log-retention", everyMs: 10 * 60_000, run: () => purgeExpiredLogSegments() },
    { name: "runner-reconciler", everyMs: env().CAPSTAN_RUNNER_RECONCILE_MS, run: reconcileRunner, role: "runner" },
    // Lost runner hosts: lease lapsed -> their deployments fail (runner_host_lost).
    // ...and are placed again elsewhere; a planned deployment no host can take says so.
    {
      name: "runner-leases",
      everyMs: env().CAPSTAN_RUNNER_HEARTBEAT_MS,
      run: async () => [await lapseRunnerHosts(), await notePlacementWaits()],
    },
    { name: "runner-drains", everyMs: poll, run: processDrains },
    { name: "binding-expiry", everyMs: 60_000, run: expireBindings },
    { name: "reservation-sweeper", everyMs: 30_000, run: sweepInFlight },
    // Dispatched events, finished deliveries, expired idempotency records (docs/decisions.md "Workers that keep up").
    { name: "retention", everyMs: 60_000, run: () => purgeExpired() },
    // Month close: a claimed job per (workspace, month) for every month since the last close (docs/decisions.md "Month close and test clocks").
    { name: "billing-closes", everyMs: env().CAPSTAN_BILLING_CLOSE_POLL_MS, run: () => closeDueMonths() },
    // Subscription periods roll over at their end (safe with several workers: the wallet lock per workspace).
    { name: "billing-renewals", everyMs: env().CAPSTAN_BILLING_CLOSE_POLL_MS, run: () => renewDueSubscriptions() },
    // Collection: automatic invoice charges, dunning steps, charges left in flight, automatic top-ups (docs/decisions.md "Collection and dunning").
    { name: "billing-collections", everyMs: env().CAPSTAN_BILLING_CLOSE_POLL_MS, run: () => collectDue() },
    // The daily storage measurement the storage invoice line is priced from (the day's high-water mark; docs/decisions.md "Credit notes, subscriptions that end, metered pricing").
    { name: "billing-storage", everyMs: 60 * 60_000, run: () => measureStorage() },
  ];
}

const g = globalThis as unknown as { __capstanWorkers?: { timers: NodeJS.Timeout[]; stopped: { value: boolean } } };

export function startWorkers(list = loops(), opts: { keepAlive?: boolean } = {}): void {
  if (g.__capstanWorkers) return;
  const stopped = { value: false };
  const timers = list.map((loop) => {
    let busy = false;
    let pending = false;
    let lastStart = -Infinity;
    let delayed: NodeJS.Timeout | null = null;
    const trigger = (): void => {
      if (stopped.value) return;
      if (busy) {
        pending = true;
        return;
      }
      const wait = (loop.coalesceMs ?? 0) - (performance.now() - lastStart);
      if (wait > 0) {
        if (!delayed) {
          delayed = setTimeout(() => {
            delayed = null;
            trigger();
          }, wait);
          delayed.unref();
        }
        return;
      }
      busy = true;
      pending = false;
      lastStart = performance.now();
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
