import { db } from "@/server/platform/db/client";
import { signalChange } from "@/server/platform/change-signals";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { observeDispatch, type TOutboxGauges } from "@/server/platform/metrics";

/**
 * Outbox -> deliveries (docs/decisions.md "Workers that keep up"). One
 * transaction claims up to CAPSTAN_OUTBOX_BATCH undispatched events in write
 * order (`seq`, FOR UPDATE SKIP LOCKED) and creates one delivery per matching
 * active subscription, each carrying its event's seq and ordering key (the
 * subject, else the source), then marks the events dispatched.
 *
 * Dispatchers of every process take turns (a transaction-scoped advisory
 * lock): were two to commit batches out of order, a later event's delivery
 * could be sent before an earlier one of the same key exists. One dispatcher
 * at a time is not the bottleneck: a batch is a handful of statements for
 * up to a thousand events (`npm run bench`: "outbox" in bench/results/latest.json).
 */
export const DISPATCH_LOCK_KEY = 72_707_371; // arbitrary, fixed: "capstan dispatch"
export const DELIVERIES_TOPIC = "webhooks.deliveries";
export const OUTBOX_TOPIC = "outbox";

type TClaimed = { id: string; workspace_id: string; type: string; subject: string | null; source: string; seq: bigint; created_at: Date };

/** Dispatches one batch; returns how many events it claimed (fewer than the batch: the outbox is drained). */
export async function dispatchOutbox(limit = env().CAPSTAN_OUTBOX_BATCH): Promise<number> {
  const { events, deliveries } = await db().$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${DISPATCH_LOCK_KEY}::bigint)`;
      const events = await tx.$queryRaw<TClaimed[]>`
        SELECT id, workspace_id, type, subject, source, seq, created_at FROM outbox_events
         WHERE dispatched_at IS NULL
         ORDER BY seq
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED`;
      if (!events.length) return { events: [] as TClaimed[], deliveries: 0 };
      const workspaces = [...new Set(events.map((e) => e.workspace_id))];
      const subs = await tx.eventSubscription.findMany({
        where: { workspaceId: { in: workspaces }, status: "active" },
        select: { id: true, workspaceId: true, eventTypes: true, createdAt: true },
      });
      const now = new Date();
      const rows = subs.length
        ? events.flatMap((e) =>
            subs
              // Only subscriptions that existed when the event was written: how far dispatch lags must not decide it.
              .filter((s) => s.workspaceId === e.workspace_id && s.createdAt.getTime() <= new Date(e.created_at).getTime() && matches(s.eventTypes as string[], e.type))
              .map((s) => ({
                id: newId("whk"), workspaceId: e.workspace_id, subscriptionId: s.id, eventId: e.id,
                status: "pending", nextAttemptAt: now, orderingKey: e.subject ?? e.source, eventSeq: BigInt(e.seq),
              })),
          )
        : [];
      if (rows.length) await tx.webhookDelivery.createMany({ data: rows });
      await tx.outboxEvent.updateMany({ where: { id: { in: events.map((e) => e.id) } }, data: { dispatchedAt: now } });
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
  const [o] = await db().$queryRaw<{ n: number; lag: number | null; pending: number; reservations: number }[]>`
    SELECT (SELECT count(*)::int FROM outbox_events WHERE dispatched_at IS NULL) AS n,
           (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM outbox_events WHERE dispatched_at IS NULL) AS lag,
           (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS pending,
           (SELECT count(*)::int FROM budget_reservations) AS reservations`;
  return { undispatched: o!.n, oldestUndispatchedSeconds: Math.max(0, o!.lag ?? 0), pendingDeliveries: o!.pending, openReservations: o!.reservations };
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
