import type { WebhookDelivery } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { unseal } from "@/server/platform/crypto";
import { egressBlocked, egressFetch } from "@/server/platform/egress";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { toCloudEvent } from "@/server/platform/outbox";
import { webhookHeaders } from "./signing";

/**
 * Outbox -> webhook delivery, at least once. Two steps, each safe with many
 * worker processes on one database:
 *  1. dispatch: claim undispatched outbox rows (FOR UPDATE SKIP LOCKED) and,
 *     in the same transaction, create one delivery per matching subscription.
 *  2. deliver: lease due deliveries (UPDATE ... RETURNING with locked_until);
 *     a worker that dies after sending but before recording leaves the lease
 *     to expire, and the delivery is retried: never lost, possibly repeated
 *     (receivers dedupe on webhook-id, which is the event id).
 * Retries follow CAPSTAN_WEBHOOK_SCHEDULE (Svix's by default) with +-20 %
 * jitter; 410 Gone disables the endpoint; an exhausted schedule dead-letters.
 */
const DISPATCH_BATCH = 100;
const DELIVER_BATCH = 20;

export async function dispatchOutbox(): Promise<number> {
  return db().$transaction(async (tx) => {
    const events = await tx.$queryRaw<{ id: string; workspace_id: string; type: string; created_at: Date }[]>`
      SELECT id, workspace_id, type, created_at FROM outbox_events
       WHERE dispatched_at IS NULL
       ORDER BY created_at, id
       LIMIT ${DISPATCH_BATCH}
       FOR UPDATE SKIP LOCKED`;
    if (!events.length) return 0;
    const workspaces = [...new Set(events.map((e) => e.workspace_id))];
    const subs = await tx.eventSubscription.findMany({ where: { workspaceId: { in: workspaces }, status: "active" } });
    const now = new Date();
    const deliveries = events.flatMap((e) =>
      subs
        // Only subscriptions that existed when the event was written: how far dispatch lags must not decide it.
        .filter((s) => s.workspaceId === e.workspace_id && s.createdAt.getTime() <= new Date(e.created_at).getTime() && matches(s.eventTypes as string[], e.type))
        .map((s) => ({
          id: newId("whk"), workspaceId: e.workspace_id, subscriptionId: s.id, eventId: e.id,
          status: "pending", nextAttemptAt: now,
        })),
    );
    if (deliveries.length) await tx.webhookDelivery.createMany({ data: deliveries });
    await tx.outboxEvent.updateMany({ where: { id: { in: events.map((e) => e.id) } }, data: { dispatchedAt: now } });
    return events.length;
  });
}

function matches(filters: string[], type: string): boolean {
  return filters.includes("*") || filters.includes(type);
}

export function nextDelaySeconds(attemptsMade: number, schedule = env().CAPSTAN_WEBHOOK_SCHEDULE, random = Math.random): number | null {
  if (attemptsMade >= schedule.length) return null;
  const base = schedule[attemptsMade]!;
  return base * (0.8 + 0.4 * random());
}

/** Leases and sends due deliveries; returns how many were attempted. */
export async function deliverDue(): Promise<number> {
  // The lease outlives the request timeout, so only a dead worker loses it.
  const leaseMs = env().CAPSTAN_WEBHOOK_TIMEOUT_MS * 2 + 1000;
  const leased = await db().$queryRaw<{ id: string }[]>`
    UPDATE webhook_deliveries
       SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}::double precision),
           attempt_count = attempt_count + 1, updated_at = now()
     WHERE id IN (
       SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY next_attempt_at
        LIMIT ${DELIVER_BATCH}
        FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  if (!leased.length) return 0;
  const rows = await db().webhookDelivery.findMany({
    where: { id: { in: leased.map((r) => r.id) } },
    include: { event: true, subscription: { omit: { secretSealed: false, previousSecretSealed: false } } },
  });
  await Promise.all(rows.map((row) => attempt(row).catch((err) => logger.error("webhook.attempt_crashed", { delivery_id: row.id, error: String(err) }))));
  return rows.length;
}

type TRow = WebhookDelivery & {
  event: Parameters<typeof toCloudEvent>[0];
  subscription: { id: string; url: string; secretSealed: string; status: string; previousSecretSealed: string | null; previousSecretExpiresAt: Date | null };
};

async function attempt(row: TRow): Promise<void> {
  if (row.subscription.status !== "active") {
    await db().webhookDelivery.update({
      where: { id: row.id },
      data: { status: "failed", lastError: "endpoint disabled", lockedUntil: null, updatedAt: new Date() },
    });
    return;
  }
  const body = JSON.stringify(toCloudEvent(row.event));
  const secrets = signingSecrets(row.subscription);
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const res = await egressFetch("webhook", row.subscription.url, {
      method: "POST",
      headers: webhookHeaders(secrets, row.eventId, body),
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(env().CAPSTAN_WEBHOOK_TIMEOUT_MS),
    });
    statusCode = res.status;
    await res.body?.cancel().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
  } catch (err) {
    const blocked = egressBlocked(err);
    if (blocked) error = blocked.message.slice(0, 500);
    else error = (err as Error).name === "TimeoutError" ? "timeout" : `network error: ${(err as Error).message}`.slice(0, 500);
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

async function recordOutcome(row: TRow, statusCode: number | null, error: string | null, durationMs: number): Promise<void> {
  const now = new Date();
  await db().$transaction(async (tx) => {
    await tx.webhookAttempt.create({
      data: { id: newId("wat"), deliveryId: row.id, attempt: row.attemptCount, statusCode, error, durationMs },
    });
    const base = { lastStatusCode: statusCode, lastError: error, lockedUntil: null, updatedAt: now };
    if (!error) {
      await tx.webhookDelivery.update({ where: { id: row.id }, data: { ...base, status: "delivered", deliveredAt: now } });
      return;
    }
    if (statusCode === 410) {
      await tx.eventSubscription.update({
        where: { id: row.subscriptionId },
        data: { status: "disabled", disabledReason: "endpoint answered 410 Gone", updatedAt: now },
      });
      await tx.webhookDelivery.update({ where: { id: row.id }, data: { ...base, status: "failed" } });
      return;
    }
    const delay = nextDelaySeconds(row.attemptCount);
    if (delay === null) {
      await tx.webhookDelivery.update({ where: { id: row.id }, data: { ...base, status: "dead" } });
      await tx.deadLetter.create({
        data: {
          id: newId("dlq"), workspaceId: row.workspaceId, deliveryId: row.id, subscriptionId: row.subscriptionId,
          eventId: row.eventId, eventType: row.event.type, attempts: row.attemptCount,
          lastStatusCode: statusCode, lastError: error,
        },
      });
      return;
    }
    await tx.webhookDelivery.update({
      where: { id: row.id },
      data: { ...base, nextAttemptAt: new Date(now.getTime() + delay * 1000) },
    });
  });
}
