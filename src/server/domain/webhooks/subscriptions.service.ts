import type { EventSubscription } from "@/generated/prisma/client";
import { db, type TTx } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { needsReseal, seal, unseal } from "@/server/platform/crypto";
import { logger } from "@/server/platform/logger";
import { isPrivateHostLiteral } from "@/server/platform/egress";
import { env } from "@/server/platform/env";
import { AppError, conflict, notFound } from "@/server/platform/errors";
import { writeAudit } from "@/server/platform/audit";
import { newId } from "@/server/platform/ids";
import { assertNameFree, freeName, isNameRace, nameTaken } from "@/server/platform/names";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import { newWebhookSecret } from "./signing";
import type { TSubscription } from "./webhooks.contract";

/** A subscription row without its sealed secrets (they are omitted from queries by default). */
type TSubscriptionRow = Omit<EventSubscription, "secretSealed" | "previousSecretSealed">;

export function toSubscription(s: TSubscriptionRow, lastDeliveryAt: Date | null = null): TSubscription {
  return {
    id: s.id,
    workspace_id: s.workspaceId,
    name: s.name,
    url: s.url,
    description: s.description,
    event_types: s.eventTypes as string[],
    status: s.status as TSubscription["status"],
    disabled_reason: s.disabledReason,
    secret_rotated_at: isoOrNull(s.secretRotatedAt),
    previous_secret_expires_at: previousSecretInEffect(s) ? iso(s.previousSecretExpiresAt!) : null,
    last_activity_at: isoOrNull(lastDeliveryAt),
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}

/** When each subscription last had a delivery queued (one grouped query over the page). */
async function lastDeliveries(workspaceId: string, ids: string[]): Promise<Map<string, Date | null>> {
  if (ids.length === 0) return new Map();
  const rows = await scopedDb(workspaceId).webhookDelivery.groupBy({
    by: ["subscriptionId"],
    where: { subscriptionId: { in: ids } },
    _max: { createdAt: true },
  });
  return new Map(rows.map((r) => [r.subscriptionId, r._max.createdAt]));
}

/** Default and longest overlap of a webhook secret rotation (Svix keeps the old secret 24 h). */
export const DEFAULT_WEBHOOK_OVERLAP_SECONDS = 24 * 3600;
export const MAX_WEBHOOK_OVERLAP_SECONDS = 7 * 24 * 3600;

/**
 * True while deliveries are also signed with the secret before the last
 * rotation. Read off the expiry alone (a rotation without overlap leaves it
 * null, an early revocation sets it to that moment), so rows read without
 * their secret columns answer the same.
 */
export function previousSecretInEffect(
  s: Pick<EventSubscription, "previousSecretExpiresAt">,
  now = Date.now(),
): boolean {
  return Boolean(s.previousSecretExpiresAt && s.previousSecretExpiresAt.getTime() > now);
}

const WITH_SECRETS = { secretSealed: false, previousSecretSealed: false } as const;

type TCaller = { userId: string; correlationId: string };

async function auditSecret(
  tx: TTx,
  caller: TCaller,
  row: TSubscriptionRow,
  action: "credential.created" | "credential.revoked",
  details: Record<string, unknown>,
) {
  await writeAudit(tx, {
    workspaceId: row.workspaceId,
    actor: { kind: "user", id: caller.userId },
    action,
    target: { kind: "webhook_secret", id: row.id },
    correlationId: caller.correlationId,
    details: { subscription_id: row.id, url: row.url, ...details },
  });
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
    throw new AppError("validation_failed", "url is not a valid absolute URL", {
      errors: [{ path: "/url", message: "invalid URL" }],
    });
  }
  const allowPrivate = env().CAPSTAN_WEBHOOK_ALLOW_PRIVATE;
  const fail = (message: string) =>
    new AppError("validation_failed", `url ${message}`, { errors: [{ path: "/url", message }] });
  if (url.username || url.password) throw fail("must not carry credentials");
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) throw fail("must use https");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isPrivateHostLiteral(host) && !allowPrivate) throw fail("must be a public host");
  return url.toString();
}

/**
 * A new endpoint. Its name is unique in the workspace ignoring case (409
 * name_taken); without one it is the description, else the URL's host
 * (`hooks.example.com`, then `hooks.example.com-2`, ...).
 */
export async function createSubscription(
  caller: { userId: string },
  workspaceId: string,
  input: { url: string; event_types: string[]; description?: string; name?: string },
): Promise<TSubscription & { secret: string }> {
  const url = validateWebhookUrl(input.url);
  const explicit = input.name?.trim();
  for (let attempt = 1; ; attempt++) {
    const id = newId("wb");
    const secret = newWebhookSecret();
    try {
      const row = await scopedDb(workspaceId).$transaction(async (tx) => {
        if (explicit) await assertNameFree(tx, "event_subscriptions", workspaceId, explicit);
        const name =
          explicit ??
          (await freeName(tx, "event_subscriptions", workspaceId, input.description?.trim() || new URL(url).hostname));
        return tx.eventSubscription.create({
          data: {
            id,
            workspaceId,
            name,
            url,
            description: input.description ?? null,
            eventTypes: [...new Set(input.event_types)],
            secretSealed: seal(secret, `webhook:${id}`),
            status: "active",
            createdBy: caller.userId,
          },
        });
      });
      return { ...toSubscription(row), secret };
    } catch (err) {
      if (!isNameRace(err)) throw err;
      if (explicit) throw nameTaken("event_subscriptions", explicit);
      if (attempt >= 3) throw err;
    }
  }
}

/** PATCH: a new name (409 name_taken when another endpoint of the workspace has it, ignoring case). */
export async function renameSubscription(
  caller: TCaller,
  workspaceId: string,
  id: string,
  rawName: string,
): Promise<TSubscription> {
  const name = rawName.trim();
  await scopedDb(workspaceId)
    .$transaction(async (tx) => {
      const row = await tx.eventSubscription.findUnique({ where: { id } });
      if (!row) throw notFound(`Event subscription ${id}`);
      if (row.name === name) return;
      await assertNameFree(tx, "event_subscriptions", workspaceId, name, id);
      await tx.eventSubscription.update({ where: { id }, data: { name, updatedAt: new Date() } });
      await writeAudit(tx, {
        workspaceId,
        actor: { kind: "user", id: caller.userId },
        action: "webhook.renamed",
        target: { kind: "webhook", id },
        correlationId: caller.correlationId,
        details: { from: row.name, to: name },
      });
    })
    .catch((err: unknown) => {
      throw isNameRace(err) ? nameTaken("event_subscriptions", name) : err;
    });
  return getSubscription(workspaceId, id);
}

async function findOwned(workspaceId: string, id: string): Promise<TSubscriptionRow> {
  const row = await scopedDb(workspaceId).eventSubscription.findUnique({ where: { id } });
  if (!row) throw notFound(`Event subscription ${id}`);
  return row;
}

export async function getSubscription(workspaceId: string, id: string): Promise<TSubscription> {
  const row = await findOwned(workspaceId, id);
  return toSubscription(row, (await lastDeliveries(workspaceId, [id])).get(id) ?? null);
}

export async function listSubscriptions(workspaceId: string, q: TListQuery): Promise<TPage<TSubscription>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).eventSubscription.findMany({ ...args, where: args.where });
  const last = await lastDeliveries(
    workspaceId,
    rows.slice(0, q.limit).map((r) => r.id),
  );
  return toPage(rows, q, (r) => toSubscription(r, last.get(r.id) ?? null));
}

export async function deleteSubscription(workspaceId: string, id: string): Promise<void> {
  // One statement: of two concurrent deletes the loser counts 0 and gets the 404.
  const { count } = await scopedDb(workspaceId).eventSubscription.deleteMany({ where: { id } });
  if (count === 0) throw notFound(`Event subscription ${id}`);
}

/**
 * A new secret (shown once) that signs every delivery from now on; the old
 * one keeps signing too (a second `v1,` signature) for `overlapSeconds`
 * (default 24 h, 0..7 days; 0 drops it at once). Re-enables a disabled
 * endpoint. 409 while the previous rotation's overlap still runs (revoke the
 * previous secret first) and for the loser of two concurrent rotations; 404
 * for a deleted subscription.
 */
export async function rotateSubscriptionSecret(
  caller: TCaller,
  workspaceId: string,
  id: string,
  overlapSeconds = DEFAULT_WEBHOOK_OVERLAP_SECONDS,
): Promise<TSubscription & { secret: string }> {
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_WEBHOOK_OVERLAP_SECONDS) {
    const message = `must be an integer from 0 to ${MAX_WEBHOOK_OVERLAP_SECONDS} seconds`;
    throw new AppError("validation_failed", `previous_secret_expires_in ${message}`, {
      errors: [{ path: "/previous_secret_expires_in", message }],
    });
  }
  const secret = newWebhookSecret();
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const before = await tx.eventSubscription.findUnique({ where: { id }, omit: WITH_SECRETS });
    if (!before) throw notFound(`Event subscription ${id}`);
    const now = new Date();
    if (previousSecretInEffect(before, now.getTime())) {
      throw conflict(
        `The previous signing secret of ${id} still signs until ${iso(before.previousSecretExpiresAt!)}; revoke it (:revoke-previous-secret) or wait before rotating again`,
        "secret_rotation_in_progress",
      );
    }
    const keep = overlapSeconds > 0;
    const changed = await tx.eventSubscription.updateMany({
      where: { id, secretSealed: before.secretSealed },
      data: {
        secretSealed: seal(secret, `webhook:${id}`),
        secretRotatedAt: now,
        status: "active",
        disabledReason: null,
        updatedAt: now,
        previousSecretSealed: keep ? before.secretSealed : null,
        previousSecretExpiresAt: keep ? new Date(now.getTime() + overlapSeconds * 1000) : null,
      },
    });
    if (changed.count !== 1)
      throw conflict(
        `Event subscription ${id} was rotated concurrently; this rotation was not applied`,
        "secret_rotation_in_progress",
      );
    const after = await tx.eventSubscription.findUniqueOrThrow({ where: { id } });
    await auditSecret(tx, caller, after, "credential.created", {
      step: "rotated",
      previous_secret_expires_in: overlapSeconds,
      previous_secret_expires_at: isoOrNull(after.previousSecretExpiresAt),
    });
    return after;
  });
  return { ...toSubscription(row), secret };
}

/** Stops signing with the previous secret now. Idempotent (nothing in effect: unchanged, no audit). */
export async function revokePreviousSubscriptionSecret(
  caller: TCaller,
  workspaceId: string,
  id: string,
): Promise<TSubscription> {
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const before = await tx.eventSubscription.findUnique({ where: { id }, omit: WITH_SECRETS });
    if (!before) throw notFound(`Event subscription ${id}`);
    if (!previousSecretInEffect(before)) return before;
    const now = new Date();
    const changed = await tx.eventSubscription.updateMany({
      where: { id, previousSecretSealed: before.previousSecretSealed },
      data: { previousSecretSealed: null, previousSecretExpiresAt: now, updatedAt: now },
    });
    const after = await tx.eventSubscription.findUniqueOrThrow({ where: { id } });
    if (changed.count === 1) {
      await auditSecret(tx, caller, after, "credential.revoked", {
        step: "previous_secret_revoked",
        scheduled_expiry: iso(before.previousSecretExpiresAt!),
      });
    }
    return after;
  });
  return toSubscription(row);
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
    // platform-scoped: a maintenance command re-sealing every workspace's webhook secrets.
    const rows = await db().eventSubscription.findMany({
      where: { id: { gt: after } },
      select: { id: true, secretSealed: true, previousSecretSealed: true },
      orderBy: { id: "asc" },
      take: 200,
    });
    if (!rows.length) break;
    for (const row of rows) {
      after = row.id;
      const previous = row.previousSecretSealed;
      if (!needsReseal(row.secretSealed) && !(previous && needsReseal(previous))) continue;
      const aad = `webhook:${row.id}`;
      try {
        const reseal = (sealed: string) => (needsReseal(sealed) ? seal(unseal(sealed, aad), aad) : sealed);
        // platform-scoped: the same maintenance command, row by row.
        const r = await db().eventSubscription.updateMany({
          where: { id: row.id, secretSealed: row.secretSealed, previousSecretSealed: previous },
          data: { secretSealed: reseal(row.secretSealed), previousSecretSealed: previous ? reseal(previous) : null },
        });
        updated += r.count;
      } catch (err) {
        logger.error("webhooks.reencrypt_failed", { subscription_id: row.id, error: (err as Error).name });
        failed++;
      }
    }
  }
  return { updated, failed };
}
