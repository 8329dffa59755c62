import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * Production metrics (Prometheus text format, prom-client; docs/decisions.md
 * "Production metrics"). One registry per process, on globalThis (Next.js
 * bundles route handlers separately; they must all count into the same one).
 * Callers use the small typed functions below, never prom-client itself, so
 * a hot path pays a label lookup and an increment, nothing else. Gauges that
 * need the database (outbox depth and lag, pending deliveries, open
 * reservations) are read at scrape time by a collector the worker side
 * registers (setScrapeCollector), so an idle process does no queries.
 */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300];

type TPool = { totalCount: number; idleCount: number; waitingCount: number; options?: { max?: number } };
export type TOutboxGauges = {
  undispatched: number;
  oldestUndispatchedSeconds: number;
  pendingDeliveries: number;
  openReservations: number;
};

function build() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "capstan_", eventLoopMonitoringPrecision: 10 });
  const pools = new Map<string, TPool>();
  const state: { scrape?: () => Promise<TOutboxGauges> } = {};
  const m = {
    registry,
    pools,
    state,
    bridgeDuration: new Histogram({
      name: "capstan_bridge_request_duration_seconds",
      help: "Bridge calls: arrival to the last byte written, by capability and outcome.",
      labelNames: ["capability", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    bridgeOverhead: new Histogram({
      name: "capstan_bridge_overhead_seconds",
      help: "Bridge calls: time Capstan spent (total minus the provider's), by capability and outcome.",
      labelNames: ["capability", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    bridgeDenials: new Counter({
      name: "capstan_bridge_denials_total",
      help: "Bridge calls refused before the provider (permission, policy, binding, budget, rate), by capability and reason.",
      labelNames: ["capability", "reason"],
      registers: [registry],
    }),
    bridgeCharged: new Counter({
      name: "capstan_bridge_reserved_units_total",
      help: "Usage units settled against budget reservations, by capability.",
      labelNames: ["capability"],
      registers: [registry],
    }),
    dispatchLag: new Histogram({
      name: "capstan_outbox_dispatch_lag_seconds",
      help: "Outbox events: written to dispatched.",
      buckets: LAG_BUCKETS,
      registers: [registry],
    }),
    dispatched: new Counter({
      name: "capstan_outbox_dispatched_total",
      help: "Outbox events dispatched.",
      registers: [registry],
    }),
    deliveries: new Counter({
      name: "capstan_webhook_deliveries_total",
      help: "Webhook delivery attempts by outcome (delivered, retry, dead, disabled, failed).",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    deliveryDuration: new Histogram({
      name: "capstan_webhook_request_duration_seconds",
      help: "Webhook requests: send to answer (or error).",
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    purged: new Counter({
      name: "capstan_retention_purged_rows_total",
      help: "Rows removed by the retention purge, by kind.",
      labelNames: ["kind"],
      registers: [registry],
    }),
  };
  const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge) => void | Promise<void>) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        return collect(this);
      },
    });
  gauge(
    "capstan_db_pool_connections",
    "Database pool connections by pool and state (total, idle, waiting clients, max).",
    ["pool", "state"],
    (g) => {
      for (const [name, p] of pools) {
        g.set({ pool: name, state: "total" }, p.totalCount);
        g.set({ pool: name, state: "idle" }, p.idleCount);
        g.set({ pool: name, state: "waiting" }, p.waitingCount);
        if (p.options?.max) g.set({ pool: name, state: "max" }, p.options.max);
      }
    },
  );
  let cached: { at: number; value: Promise<TOutboxGauges | null> } | undefined;
  // One query set per scrape even though four gauges read it.
  const outbox = () => {
    if (!state.scrape) return Promise.resolve(null);
    if (!cached || Date.now() - cached.at > 500) cached = { at: Date.now(), value: state.scrape().catch(() => null) };
    return cached.value;
  };
  gauge("capstan_outbox_depth", "Outbox events not yet dispatched.", [], async (g) => {
    const o = await outbox();
    if (o) g.set(o.undispatched);
  });
  gauge(
    "capstan_outbox_lag_seconds",
    "Age of the oldest undispatched outbox event (0 when drained).",
    [],
    async (g) => {
      const o = await outbox();
      if (o) g.set(o.oldestUndispatchedSeconds);
    },
  );
  gauge(
    "capstan_webhook_pending_deliveries",
    "Webhook deliveries waiting (due, leased or scheduled for a retry).",
    [],
    async (g) => {
      const o = await outbox();
      if (o) g.set(o.pendingDeliveries);
    },
  );
  gauge("capstan_budget_reservations_open", "Budget reservations held by calls in flight.", [], async (g) => {
    const o = await outbox();
    if (o) g.set(o.openReservations);
  });
  return m;
}

const g = globalThis as unknown as { __capstanMetrics?: ReturnType<typeof build> };
function metrics(): ReturnType<typeof build> {
  return (g.__capstanMetrics ??= build());
}

/** One finished Bridge call (from the Bridge's record path). */
export function observeBridgeCall(c: {
  capability: string;
  outcome: string;
  reason?: string | null;
  totalMs: number;
  overheadMs: number;
  units?: number;
}): void {
  const m = metrics();
  const labels = { capability: c.capability, outcome: c.outcome };
  m.bridgeDuration.observe(labels, c.totalMs / 1000);
  m.bridgeOverhead.observe(labels, c.overheadMs / 1000);
  if (c.outcome === "denied") m.bridgeDenials.inc({ capability: c.capability, reason: c.reason ?? "unknown" });
  if (c.units && c.outcome === "completed") m.bridgeCharged.inc({ capability: c.capability }, c.units);
}

/** Outbox events dispatched, with their write times (lag = now - written). */
export function observeDispatch(writtenAt: Date[], now = Date.now()): void {
  const m = metrics();
  for (const t of writtenAt) m.dispatchLag.observe(Math.max(0, (now - t.getTime()) / 1000));
  m.dispatched.inc(writtenAt.length);
}

export type TDeliveryOutcome = "delivered" | "retry" | "dead" | "disabled" | "failed";
export function observeDelivery(outcome: TDeliveryOutcome, durationMs?: number): void {
  const m = metrics();
  m.deliveries.inc({ outcome });
  if (durationMs !== undefined) m.deliveryDuration.observe(durationMs / 1000);
}

export function observePurge(kind: string, rows: number): void {
  if (rows) metrics().purged.inc({ kind }, rows);
}

/** A pg pool whose connections are reported (name: "prisma", "hot"). */
export function registerPool(name: string, pool: TPool): void {
  metrics().pools.set(name, pool);
}

/** The database-backed gauges, read when scraped (set by the webhooks domain at boot). */
export function setScrapeCollector(scrape: () => Promise<TOutboxGauges>): void {
  metrics().state.scrape = scrape;
}

export function metricsContentType(): string {
  return metrics().registry.contentType;
}

export function renderMetrics(): Promise<string> {
  return metrics().registry.metrics();
}
