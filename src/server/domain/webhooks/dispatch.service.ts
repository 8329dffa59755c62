import { db, pooledTransaction, preparedQuery } from "@/server/platform/db/client";
import { signalChange } from "@/server/platform/change-signals";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { observeDispatch, type TOutboxGauges } from "@/server/platform/metrics";

/**
 * Outbox -> deliveries (docs/decisions.md "Workers that keep up"). One
 * transaction (one statement on PostgreSQL: capstan_dispatch) claims up to
 * CAPSTAN_OUTBOX_BATCH undispatched events in write
 * order (`seq`, FOR UPDATE SKIP LOCKED) and creates one delivery per matching
 * active subscription, each carrying its event's seq and ordering key (the
 * subject, else the source), then marks the events dispatched.
 *
 * Dispatchers of every process take turns (a transaction-scoped advisory
 * lock): were two to commit batches out of order, a later event's delivery
 * could be sent before an earlier one of the same key exists. One dispatcher
 * at a time is not the bottleneck: a batch is a handful of statements for
 * up to a thousand events (`npm run bench`: "outbox" in bench/results/latest.json).
 * Its commit does not wait for the WAL flush: a dispatch lost with a
 * PostgreSQL crash is done again (its events are still undispatched), and
 * any later durable commit flushes it first.
 */
export const DISPATCH_LOCK_KEY = 72_707_371; // arbitrary, fixed: "capstan dispatch"
export const DELIVERIES_TOPIC = "webhooks.deliveries";
export const OUTBOX_TOPIC = "outbox";

type TClaimed = {
  id: string;
  workspace_id: string;
  type: string;
  subject: string | null;
  source: string;
  seq: bigint;
  created_at: Date;
};

type TSub = { id: string; workspaceId: string; eventTypes: unknown; createdAt: Date };
type TDeliveryRow = {
  id: string;
  workspaceId: string;
  subscriptionId: string;
  eventId: string;
  orderingKey: string;
  eventSeq: bigint;
};

/** One delivery per matching subscription that existed when the event was written (how far dispatch lags must not decide it). */
function deliveriesFor(events: TClaimed[], subs: TSub[]): TDeliveryRow[] {
  if (!subs.length) return [];
  return events.flatMap((e) =>
    subs
      .filter(
        (s) =>
          s.workspaceId === e.workspace_id &&
          s.createdAt.getTime() <= new Date(e.created_at).getTime() &&
          matches(s.eventTypes as string[], e.type),
      )
      .map((s) => ({
        id: newId("whk"),
        workspaceId: e.workspace_id,
        subscriptionId: s.id,
        eventId: e.id,
        orderingKey: e.subject ?? e.source,
        eventSeq: BigInt(e.seq),
      })),
  );
}

/** The PostgreSQL batch: one call of capstan_dispatch; the claimed events' write times come back for the lag metric. */
async function dispatchInOneStatement(limit: number): Promise<{ events: { created_at: Date }[]; deliveries: number }> {
  const [row] = await preparedQuery<{ events: number; deliveries: number; created: Date[] }>(
    "capstan_dispatch",
    "SELECT events, deliveries, created FROM capstan_dispatch($1::int, $2::bigint, $3::timestamptz)",
    [limit, DISPATCH_LOCK_KEY, new Date()],
  );
  return { events: (row?.created ?? []).map((created_at) => ({ created_at })), deliveries: row?.deliveries ?? 0 };
}

/**
 * Dispatches one batch; returns how many events it claimed (fewer than the
 * batch: the outbox is drained). On PostgreSQL the batch is one statement,
 * `capstan_dispatch` (migration 20261129030000): lock, claim, deliveries and
 * mark in a function, one round trip where the transaction of named
 * statements took seven; it runs once per dispatch window while the Bridge
 * and the invocations write events (issue #34). The function's commit does
 * not wait for the WAL flush, as before: a batch a PostgreSQL crash loses is
 * claimed and dispatched again. The embedded database keeps the ORM path;
 * both write the same rows (the function's delivery ids: docs/decisions.md).
 */
export async function dispatchOutbox(limit = env().CAPSTAN_OUTBOX_BATCH): Promise<number> {
  const { events, deliveries } = pooledTransaction()
    ? await dispatchInOneStatement(limit)
    : // platform-scoped: the outbox dispatcher claims events of every workspace (here and in capstan_dispatch).
      await db().$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${DISPATCH_LOCK_KEY}::bigint)`;
          const events = await tx.$queryRaw<TClaimed[]>`
        SELECT id, workspace_id, type, subject, source, seq, created_at FROM outbox_events
         WHERE dispatched_at IS NULL
         ORDER BY seq
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED`;
          if (!events.length) return { events: [] as { created_at: Date }[], deliveries: 0 };
          const workspaces = [...new Set(events.map((e) => e.workspace_id))];
          const subs = await tx.eventSubscription.findMany({
            where: { workspaceId: { in: workspaces }, status: "active" },
            select: { id: true, workspaceId: true, eventTypes: true, createdAt: true },
          });
          const now = new Date();
          const rows = deliveriesFor(events, subs);
          if (rows.length)
            await tx.webhookDelivery.createMany({
              data: rows.map((r) => ({ ...r, status: "pending", nextAttemptAt: now })),
            });
          await tx.outboxEvent.updateMany({
            where: { id: { in: events.map((e) => e.id) } },
            data: { dispatchedAt: now },
          });
          return { events, deliveries: rows.length };
        },
        { timeout: 30_000, maxWait: 30_000 },
      );
  // After the commit: the delivery pumps of every process look for work now.
  if (deliveries) signalChange(DELIVERIES_TOPIC);
  if (events.length) observeDispatch(events.map((e) => new Date(e.created_at)));
  return events.length;
}

/** Outbox depth and lag, pending deliveries and open reservations (read when /metrics is scraped; partial indexes keep it cheap). */
export async function readOutboxGauges(): Promise<TOutboxGauges> {
  // platform-scoped: platform metrics over the whole outbox.
  const [o] = await db().$queryRaw<{ n: number; lag: number | null; pending: number; reservations: number }[]>`
    SELECT (SELECT count(*)::int FROM outbox_events WHERE dispatched_at IS NULL) AS n,
           (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM outbox_events WHERE dispatched_at IS NULL) AS lag,
           (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS pending,
           (SELECT count(*)::int FROM budget_reservations) AS reservations`;
  return {
    undispatched: o!.n,
    oldestUndispatchedSeconds: Math.max(0, o!.lag ?? 0),
    pendingDeliveries: o!.pending,
    openReservations: o!.reservations,
  };
}

/** Dispatches until the outbox is drained (or `maxBatches` ran); returns the events dispatched. */
export async function drainOutbox(maxBatches = 50): Promise<number> {
  const limit = env().CAPSTAN_OUTBOX_BATCH;
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await dispatchOutbox(limit);
    total += n;
    if (n < limit) break;
  }
  return total;
}

function matches(filters: string[], type: string): boolean {
  return filters.includes("*") || filters.includes(type);
}
