import type { DeadLetter, WebhookAttempt, WebhookDelivery } from "@/generated/prisma/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import type { TDeadLetter } from "./webhooks.contract";

function toDeadLetter(d: DeadLetter): TDeadLetter {
  return {
    id: d.id,
    workspace_id: d.workspaceId,
    subscription_id: d.subscriptionId,
    delivery_id: d.deliveryId,
    event_id: d.eventId,
    event_type: d.eventType,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    redelivered_at: isoOrNull(d.redeliveredAt),
    redelivery_id: d.redeliveryId,
    created_at: iso(d.createdAt),
  };
}

export async function listDeadLetters(workspaceId: string, q: TListQuery): Promise<TPage<TDeadLetter>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).deadLetter.findMany({ ...args, where: args.where });
  return toPage(rows, q, toDeadLetter);
}

/**
 * Queues the dead event again as a fresh delivery (full retry schedule) to the
 * same subscription. 409 while an earlier redelivery is pending or delivered,
 * or when the subscription is disabled (rotate its secret to re-enable it).
 */
export async function redeliverDeadLetter(workspaceId: string, id: string): Promise<TDeadLetter> {
  return scopedDb(workspaceId).$transaction(async (tx) => {
    const rows = await tx.$queryRaw<
      { id: string }[]
    >`SELECT id FROM dead_letters WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`;
    if (!rows.length) throw notFound(`Dead letter ${id}`);
    const dl = await tx.deadLetter.findUniqueOrThrow({ where: { id } });
    if (dl.redeliveryId) {
      const previous = await tx.webhookDelivery.findUnique({ where: { id: dl.redeliveryId } });
      if (previous && (previous.status === "pending" || previous.status === "delivered")) {
        throw new AppError("conflict", `This dead letter was already redelivered (${previous.status})`, {
          reason: "already_redelivered",
        });
      }
    }
    const sub = await tx.eventSubscription.findUnique({ where: { id: dl.subscriptionId } });
    if (!sub || sub.status !== "active") {
      throw new AppError("conflict", "The subscription is gone or disabled; re-enable it before redelivering", {
        reason: "subscription_inactive",
      });
    }
    const deliveryId = newId("whk");
    await tx.webhookDelivery.create({
      data: {
        id: deliveryId,
        workspaceId,
        subscriptionId: dl.subscriptionId,
        eventId: dl.eventId,
        status: "pending",
        nextAttemptAt: new Date(),
      },
    });
    return toDeadLetter(
      await tx.deadLetter.update({ where: { id }, data: { redeliveredAt: new Date(), redeliveryId: deliveryId } }),
    );
  });
}

type TDeliveryRow = Omit<WebhookDelivery, "eventSeq"> & { attempts: WebhookAttempt[]; event: { type: string } };

export async function listDeliveries(workspaceId: string, subscriptionId: string, q: TListQuery) {
  const sub = await scopedDb(workspaceId).eventSubscription.findUnique({
    where: { id: subscriptionId },
    select: { id: true },
  });
  if (!sub) throw notFound(`Event subscription ${subscriptionId}`);
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).webhookDelivery.findMany({
    ...args,
    where: { ...args.where, subscriptionId },
    include: { attempts: { orderBy: { attempt: "asc" } }, event: { select: { type: true } } },
  });
  return toPage(rows, q, (d: TDeliveryRow) => ({
    id: d.id,
    subscription_id: d.subscriptionId,
    event_id: d.eventId,
    event_type: d.event.type,
    status: d.status as "pending" | "delivered" | "failed" | "dead",
    attempt_count: d.attemptCount,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: d.status === "pending" ? iso(d.nextAttemptAt) : null,
    delivered_at: isoOrNull(d.deliveredAt),
    created_at: iso(d.createdAt),
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      status_code: a.statusCode,
      error: a.error,
      duration_ms: a.durationMs,
      created_at: iso(a.createdAt),
    })),
  }));
}
