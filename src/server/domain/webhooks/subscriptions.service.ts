import type { EventSubscription } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { needsReseal, seal, unseal } from "@/server/platform/crypto";
import { logger } from "@/server/platform/logger";
import { isPrivateHostLiteral } from "@/server/platform/egress";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { newWebhookSecret } from "./signing";
import type { TSubscription } from "./webhooks.contract";

export function toSubscription(s: EventSubscription): TSubscription {
  return {
    id: s.id, workspace_id: s.workspaceId, url: s.url, description: s.description,
    event_types: s.eventTypes as string[], status: s.status as TSubscription["status"],
    disabled_reason: s.disabledReason, created_at: iso(s.createdAt), updated_at: iso(s.updatedAt),
  };
}

/**
 * Webhook targets must be https and public unless CAPSTAN_WEBHOOK_ALLOW_PRIVATE
 * (tests, local development). Literal private addresses and localhost are
 * refused here; DNS names that resolve privately are refused when delivering,
 * by the egress guard (platform/egress.ts).
 */
export function validateWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("validation_failed", "url is not a valid absolute URL", { errors: [{ path: "/url", message: "invalid URL" }] });
  }
  const allowPrivate = env().CAPSTAN_WEBHOOK_ALLOW_PRIVATE;
  const fail = (message: string) => new AppError("validation_failed", `url ${message}`, { errors: [{ path: "/url", message }] });
  if (url.username || url.password) throw fail("must not carry credentials");
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) throw fail("must use https");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isPrivateHostLiteral(host) && !allowPrivate) throw fail("must be a public host");
  return url.toString();
}

export async function createSubscription(
  caller: { userId: string },
  workspaceId: string,
  input: { url: string; event_types: string[]; description?: string },
): Promise<TSubscription & { secret: string }> {
  const url = validateWebhookUrl(input.url);
  const id = newId("wb");
  const secret = newWebhookSecret();
  const row = await db().eventSubscription.create({
    data: {
      id, workspaceId, url, description: input.description ?? null, eventTypes: [...new Set(input.event_types)],
      secretSealed: seal(secret, `webhook:${id}`), status: "active", createdBy: caller.userId,
    },
  });
  return { ...toSubscription(row), secret };
}

async function findOwned(workspaceId: string, id: string): Promise<EventSubscription> {
  const row = await db().eventSubscription.findUnique({ where: { id } });
  if (!row || row.workspaceId !== workspaceId) throw notFound(`Event subscription ${id}`);
  return row;
}

export async function getSubscription(workspaceId: string, id: string): Promise<TSubscription> {
  return toSubscription(await findOwned(workspaceId, id));
}

export async function listSubscriptions(workspaceId: string, q: TListQuery): Promise<TPage<TSubscription>> {
  const args = keysetArgs(q);
  const rows = await db().eventSubscription.findMany({ ...args, where: { ...args.where, workspaceId } });
  return toPage(rows, q, toSubscription);
}

export async function deleteSubscription(workspaceId: string, id: string): Promise<void> {
  await findOwned(workspaceId, id);
  await db().eventSubscription.delete({ where: { id } });
}

/** A new secret replaces the old one at once (and re-enables a disabled endpoint). */
export async function rotateSubscriptionSecret(workspaceId: string, id: string): Promise<TSubscription & { secret: string }> {
  await findOwned(workspaceId, id);
  const secret = newWebhookSecret();
  const row = await db().eventSubscription.update({
    where: { id },
    data: { secretSealed: seal(secret, `webhook:${id}`), status: "active", disabledReason: null, updatedAt: new Date() },
  });
  return { ...toSubscription(row), secret };
}

/**
 * Master key rotation for webhook signing secrets: re-seals every secret not
 * sealed under the current master key (compare-and-swap per row; safe to run
 * repeatedly and next to a running server). Secrets never reach the log.
 */
export async function reencryptWebhookSecrets(): Promise<{ updated: number; failed: number }> {
  let updated = 0;
  let failed = 0;
  let after = "";
  for (;;) {
    const rows = await db().eventSubscription.findMany({
      where: { id: { gt: after } }, select: { id: true, secretSealed: true }, orderBy: { id: "asc" }, take: 200,
    });
    if (!rows.length) break;
    for (const row of rows) {
      after = row.id;
      if (!needsReseal(row.secretSealed)) continue;
      const aad = `webhook:${row.id}`;
      try {
        const resealed = seal(unseal(row.secretSealed, aad), aad);
        const r = await db().eventSubscription.updateMany({ where: { id: row.id, secretSealed: row.secretSealed }, data: { secretSealed: resealed } });
        updated += r.count;
      } catch (err) {
        logger.error("webhooks.reencrypt_failed", { subscription_id: row.id, error: (err as Error).name });
        failed++;
      }
    }
  }
  return { updated, failed };
}
