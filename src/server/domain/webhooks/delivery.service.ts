import type { WebhookDelivery } from "@/generated/prisma/client";
import { db, pooledTransaction, preparedQuery } from "@/server/platform/db/client";
import { rowOf } from "@/server/platform/db/rows";
import { scopedDb } from "@/server/platform/db/scoped";
import { unseal } from "@/server/platform/crypto";
import { egressBlocked, egressPost } from "@/server/platform/egress";
import { env } from "@/server/platform/env";
import { GroupCommit } from "@/server/platform/group-commit";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { observeDelivery } from "@/server/platform/metrics";
import { toCloudEvent } from "@/server/platform/outbox";
import { webhookHeaders } from "./signing";

/**
 * Outbox -> webhook delivery, at least once. Two steps, each safe with many
 * worker processes on one database:
 *  1. dispatch (./dispatch.service.ts): claim undispatched outbox rows in
 *     write order and create one delivery per matching subscription.
 *  2. deliver: lease due deliveries (UPDATE ... RETURNING with locked_until);
 *     a worker that dies after sending but before recording leaves the lease
 *     to expire, and the delivery is retried: never lost, possibly repeated
 *     (receivers dedupe on webhook-id, which is the event id).
 * Ordering (docs/decisions.md "Workers that keep up"): a delivery is leased
 * only when no earlier delivery of the same ordering key (the event's
 * subject) to the same subscription is pending, and at most
 * CAPSTAN_WEBHOOK_MAX_IN_FLIGHT deliveries per subscription are leased at
 * once, across every process (claims take turns on an advisory lock).
 * Retries follow CAPSTAN_WEBHOOK_SCHEDULE (Svix's by default) with +-20 %
 * jitter; 410 Gone disables the endpoint; an exhausted schedule dead-letters.
 */
export { dispatchOutbox, drainOutbox } from "./dispatch.service";

const DELIVER_BATCH = 20;
export const CLAIM_LOCK_KEY = 72_707_372; // arbitrary, fixed: "capstan webhook claims"

const CLAIM_LOCK_SQL = "SELECT 1 AS locked FROM pg_advisory_xact_lock($1::bigint)";

const CLAIM_LOAD_SQL = `
  WITH busy AS (
    SELECT subscription_id, count(*)::int AS n FROM webhook_deliveries
     WHERE status = 'pending' AND locked_until >= now()
     GROUP BY subscription_id),
  subs AS (
    SELECT s.id, $1::int - coalesce(b.n, 0) AS room
      FROM event_subscriptions s LEFT JOIN busy b ON b.subscription_id = s.id),
  pick AS (
    SELECT d.id, d.next_attempt_at FROM subs s CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
       WHERE d.subscription_id = s.id AND d.status = 'pending' AND d.next_attempt_at <= now()
         AND (d.locked_until IS NULL OR d.locked_until < now())
         AND (d.ordering_key IS NULL OR NOT EXISTS (
           SELECT 1 FROM webhook_deliveries p
            WHERE p.subscription_id = d.subscription_id AND p.ordering_key = d.ordering_key
              AND p.status = 'pending' AND p.event_seq < d.event_seq))
       ORDER BY d.event_seq NULLS FIRST
       LIMIT greatest(s.room, 0)) d
     WHERE s.room > 0
     ORDER BY d.next_attempt_at
     LIMIT $2),
  upd AS (
    UPDATE webhook_deliveries w
       SET locked_until = now() + make_interval(secs => $3::double precision), attempt_count = w.attempt_count + 1, updated_at = now()
      FROM pick WHERE w.id = pick.id
    RETURNING w.*)
  SELECT to_jsonb(upd) - 'event_seq' AS d, to_jsonb(e) - 'seq' AS e,
         jsonb_build_object('id', s.id, 'url', s.url, 'secret_sealed', s.secret_sealed, 'status', s.status,
           'previous_secret_sealed', s.previous_secret_sealed, 'previous_secret_expires_at', s.previous_secret_expires_at) AS s
    FROM upd JOIN outbox_events e ON e.id = upd.event_id JOIN event_subscriptions s ON s.id = upd.subscription_id`;

/**
 * Leases up to `max` due deliveries whose turn it is and returns them with
 * their event and subscription (secrets included: they sign). Heads only: a
 * delivery waits while an earlier one of its key is pending (leased or
 * waiting for a retry), so one key's events reach the endpoint in order while
 * different keys go in parallel. The lease outlives the request timeout, so
 * only a dead worker loses it. One transaction: the advisory lock, then one
 * statement that leases the heads and returns their rows; on PostgreSQL as
 * named prepared statements on a pooled connection (issue #34 item 4), on
 * PGlite the same statements in an ORM transaction.
 */
export async function claimAndLoad(max: number): Promise<TRow[]> {
  const leaseSecs = (env().CAPSTAN_WEBHOOK_TIMEOUT_MS * 2 + 1000) / 1000;
  const params = [env().CAPSTAN_WEBHOOK_MAX_IN_FLIGHT, max, leaseSecs];
  const pooled = pooledTransaction();
  const rows = pooled
    ? await pooled(async (q) => {
        await q("capstan_webhook_claim_lock", CLAIM_LOCK_SQL, [CLAIM_LOCK_KEY]);
        return q<TClaimed>("capstan_webhook_claim_load", CLAIM_LOAD_SQL, params);
      })
    : // platform-scoped: the claim leases due deliveries of every workspace.
      await db().$transaction(
        async (tx) => {
          await tx.$queryRawUnsafe(CLAIM_LOCK_SQL, CLAIM_LOCK_KEY);
          return tx.$queryRawUnsafe<TClaimed[]>(CLAIM_LOAD_SQL, ...params);
        },
        { timeout: 30_000, maxWait: 30_000 },
      );
  return rows.map((r) => ({
    ...rowOf<Omit<TRow, "event" | "subscription">>(r.d),
    event: rowOf<TRow["event"]>(r.e),
    subscription: rowOf<TRow["subscription"]>(r.s),
  }));
}

type TClaimed = { d: Record<string, unknown>; e: Record<string, unknown>; s: Record<string, unknown> };

/** Sends one leased delivery and records the outcome; never throws. */
export async function sendLeased(row: TRow): Promise<void> {
  await attempt(row).catch((err) =>
    logger.error("webhook.attempt_crashed", { delivery_id: row.id, error: String(err) }),
  );
}

export function nextDelaySeconds(
  attemptsMade: number,
  schedule = env().CAPSTAN_WEBHOOK_SCHEDULE,
  random = Math.random,
): number | null {
  if (attemptsMade >= schedule.length) return null;
  const base = schedule[attemptsMade]!;
  return base * (0.8 + 0.4 * random());
}

/** Leases and sends one batch of due deliveries, waiting for all of them; returns how many were attempted. */
export async function deliverDue(): Promise<number> {
  const rows = await claimAndLoad(DELIVER_BATCH);
  await Promise.all(rows.map(sendLeased));
  return rows.length;
}

export type TRow = Omit<WebhookDelivery, "eventSeq"> & {
  event: Parameters<typeof toCloudEvent>[0];
  subscription: {
    id: string;
    url: string;
    secretSealed: string;
    status: string;
    previousSecretSealed: string | null;
    previousSecretExpiresAt: Date | null;
  };
};

async function attempt(row: TRow): Promise<void> {
  if (row.subscription.status !== "active") {
    await scopedDb(row.workspaceId).webhookDelivery.update({
      where: { id: row.id },
      data: { status: "failed", lastError: "endpoint disabled", lockedUntil: null, updatedAt: new Date() },
    });
    observeDelivery("failed");
    return;
  }
  const body = JSON.stringify(toCloudEvent(row.event));
  const secrets = signingSecrets(row.subscription);
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const res = await egressPost("webhook", row.subscription.url, {
      headers: webhookHeaders(secrets, row.eventId, body),
      body,
      timeoutMs: env().CAPSTAN_WEBHOOK_TIMEOUT_MS,
    });
    statusCode = res.status;
    if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
  } catch (err) {
    const blocked = egressBlocked(err);
    if (blocked) error = blocked.message.slice(0, 500);
    else
      error =
        (err as Error).name === "TimeoutError" ? "timeout" : `network error: ${(err as Error).message}`.slice(0, 500);
  }
  const durationMs = Math.round(performance.now() - started);
  await recordOutcome(row, statusCode, error, durationMs);
}

/** The current secret, plus the previous one while a rotation's overlap lasts (read at each attempt). */
function signingSecrets(sub: TRow["subscription"], now = Date.now()): string[] {
  const aad = `webhook:${sub.id}`;
  const secrets = [unseal(sub.secretSealed, aad)];
  if (sub.previousSecretSealed && sub.previousSecretExpiresAt && sub.previousSecretExpiresAt.getTime() > now) {
    secrets.push(unseal(sub.previousSecretSealed, aad));
  }
  return secrets;
}

type TDelivered = { id: string; attempt: number; statusCode: number | null; durationMs: number };

/**
 * Successes are the common outcome: they are group-committed, one statement
 * per batch (the attempt rows and the deliveries' new state), so a busy
 * endpoint costs one commit per batch instead of one per delivery. A named
 * statement on the hot pool whose text never changes with the batch (every
 * value an array): bound and executed, not parsed and planned per batch as the
 * ORM's statement of literal rows was (issue #34 item 4).
 */
const DELIVERED_SQL = `
  WITH v AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[])
      AS v(delivery_id, attempt_id, attempt, status_code, duration_ms)),
  a AS (
    INSERT INTO webhook_attempts (id, delivery_id, attempt, status_code, error, duration_ms)
    SELECT attempt_id, delivery_id, attempt, status_code, NULL, duration_ms FROM v)
  UPDATE webhook_deliveries w
     SET status = 'delivered', delivered_at = now(), last_status_code = v.status_code, last_error = NULL,
         locked_until = NULL, updated_at = now()
    FROM v WHERE w.id = v.delivery_id`;

const deliveredCommit = new GroupCommit<TDelivered, void>(async (batch) => {
  // Raw SQL on purpose (platform-scoped group commit): one statement for a batch of leased deliveries of any workspace, by id.
  await preparedQuery("capstan_webhook_delivered", DELIVERED_SQL, [
    batch.map((d) => d.id),
    batch.map(() => newId("wat")),
    batch.map((d) => d.attempt),
    batch.map((d) => d.statusCode),
    batch.map((d) => d.durationMs),
  ]);
  return batch.map(() => undefined);
}, 200);

async function recordOutcome(
  row: TRow,
  statusCode: number | null,
  error: string | null,
  durationMs: number,
): Promise<void> {
  if (!error) {
    await deliveredCommit.add({ id: row.id, attempt: row.attemptCount, statusCode, durationMs });
    observeDelivery("delivered", durationMs);
    return;
  }
  const now = new Date();
  await scopedDb(row.workspaceId).$transaction(async (tx) => {
    await tx.webhookAttempt.create({
      data: { id: newId("wat"), deliveryId: row.id, attempt: row.attemptCount, statusCode, error, durationMs },
    });
    const base = { lastStatusCode: statusCode, lastError: error, lockedUntil: null, updatedAt: now };
    if (statusCode === 410) {
      await tx.eventSubscription.update({
        where: { id: row.subscriptionId },
        data: { status: "disabled", disabledReason: "endpoint answered 410 Gone", updatedAt: now },
      });
      await tx.webhookDelivery.update({ where: { id: row.id }, data: { ...base, status: "failed" } });
      observeDelivery("disabled", durationMs);
      return;
    }
    const delay = nextDelaySeconds(row.attemptCount);
    if (delay === null) {
      await tx.webhookDelivery.update({ where: { id: row.id }, data: { ...base, status: "dead" } });
      await tx.deadLetter.create({
        data: {
          id: newId("dlq"),
          workspaceId: row.workspaceId,
          deliveryId: row.id,
          subscriptionId: row.subscriptionId,
          eventId: row.eventId,
          eventType: row.event.type,
          attempts: row.attemptCount,
          lastStatusCode: statusCode,
          lastError: error,
        },
      });
      observeDelivery("dead", durationMs);
      return;
    }
    await tx.webhookDelivery.update({
      where: { id: row.id },
      data: { ...base, nextAttemptAt: new Date(now.getTime() + delay * 1000) },
    });
    observeDelivery("retry", durationMs);
  });
}
