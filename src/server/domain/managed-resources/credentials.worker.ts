import type { ManagedResourceCredential } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { emitEvent } from "@/server/platform/outbox";
import { iso } from "@/server/platform/time";
import { lockRow, type TTx } from "./managed-resources.model";
import { revokeRole } from "./postgres-credentials";

/**
 * The credential worker (docs/decisions.md "Credentials: rotation with an overlap, read-only roles").
 * Claims (a CLAIM_SECONDS lease, FOR UPDATE SKIP LOCKED) credentials whose
 * role must go: `retiring` past its overlap, `revoking`, and `pending` ones
 * whose request died (claim expired). The server work (sessions ended, role
 * dropped) is idempotent and runs outside any transaction; the state moves
 * run under the resource's row lock with their event. A failure keeps the
 * state, records why, and is retried after RETRY_SECONDS.
 *
 * Tenancy: the claim and the first read of a claimed row are
 * platform-scoped by design (db(): every workspace's credentials, by id);
 * every write after that runs on scopedDb(row.workspaceId).
 */
const CLAIM_SECONDS = 60;
const RETRY_SECONDS = 30;
/** How long a request may take between writing its pending credential and activating it; then the worker fails it. */
export const PENDING_SECONDS = 120;

/** Server error text may quote a statement: never let a verifier or URL through. */
export const scrubServerError = (err: unknown) =>
  String((err as Error)?.message ?? err)
    .replace(/SCRAM-SHA-256\$[^\s']+/g, "[verifier]")
    .replace(/postgres(?:ql)?:\/\/[^\s]+/g, "[url]")
    .slice(0, 500);

/** Every state move of a credential: `managed_resource.credential_changed` (never a secret). */
export async function credentialEvent(
  tx: TTx,
  c: ManagedResourceCredential,
  from: string | null,
  step: string,
  correlationId: string,
): Promise<void> {
  await emitEvent(tx, {
    workspaceId: c.workspaceId,
    type: "managed_resource.credential_changed",
    correlationId,
    subject: c.resourceId,
    data: {
      resource_id: c.resourceId,
      credential_id: c.id,
      username: c.roleName,
      access: c.kind === "read_only" ? "read_only" : "read_write",
      step,
      from,
      to: c.status,
      expires_at: c.expiresAt ? iso(c.expiresAt) : null,
    },
  });
}

export async function processCredentials(limit = 10): Promise<number> {
  // platform-scoped: the claim spans every workspace's credentials.
  const claimed = await db().$queryRaw<Array<{ id: string }>>`
    UPDATE "managed_resource_credentials" SET "claimed_until" = now() + make_interval(secs => ${CLAIM_SECONDS})
     WHERE "id" IN (
       SELECT "id" FROM "managed_resource_credentials"
        WHERE ("claimed_until" IS NULL OR "claimed_until" < now())
          AND ("status" = 'revoking' OR ("status" = 'retiring' AND "expires_at" <= now()) OR ("status" = 'pending' AND "created_at" < now() - make_interval(secs => ${PENDING_SECONDS})))
        ORDER BY "updated_at" ASC
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING "id"`;
  for (const { id } of claimed) {
    await retireCredential(id, newId("evt")).catch((err) =>
      logger.error("managed_resource.credential_step_crashed", { credential_id: id, error: scrubServerError(err) }),
    );
  }
  return claimed.length;
}

/**
 * Ends one credential whose time is up: a retiring one past its overlap
 * becomes revoking; a revoking one has its sessions ended and its role
 * dropped (the owner role only loses LOGIN), then is revoked; a pending one
 * whose request died is failed and its half-made role dropped.
 */
export async function retireCredential(id: string, correlationId: string): Promise<void> {
  // platform-scoped: a claimed credential by id, to learn its workspace.
  const first = await db().managedResourceCredential.findUniqueOrThrow({ where: { id } });
  const ws = scopedDb(first.workspaceId);
  const resource = await ws.managedResource.findUniqueOrThrow({
    where: { id: first.resourceId },
    select: { dbName: true },
  });
  const target = { owner: resource.dbName!, role: first.roleName, database: resource.dbName! };
  const moved = await ws.$transaction(async (tx) => {
    await lockRow(tx, null, first.resourceId);
    const c = await tx.managedResourceCredential.findUniqueOrThrow({ where: { id } });
    if (c.status === "retiring" && c.expiresAt && c.expiresAt <= new Date()) {
      const row = await tx.managedResourceCredential.update({
        where: { id },
        data: { status: "revoking", updatedAt: new Date() },
      });
      await credentialEvent(tx, row, "retiring", "overlap_ended", correlationId);
      return row;
    }
    if (c.status === "pending" && c.createdAt.getTime() < Date.now() - PENDING_SECONDS * 1000) {
      const row = await tx.managedResourceCredential.update({
        where: { id },
        data: {
          status: "failed",
          failureMessage: "The request that was creating this credential did not finish; its role is dropped.",
          updatedAt: new Date(),
        },
      });
      await credentialEvent(tx, row, "pending", "abandoned", correlationId);
      return row;
    }
    return c;
  });
  if (moved.status !== "revoking" && moved.status !== "failed") return;
  try {
    await revokeRole(target);
  } catch (err) {
    const message = scrubServerError(err);
    await ws.managedResourceCredential.updateMany({
      where: { id, status: moved.status },
      data: {
        failureMessage: `Dropping the role failed and will be retried: ${message}`,
        claimedUntil: new Date(Date.now() + RETRY_SECONDS * 1000),
        updatedAt: new Date(),
      },
    });
    logger.error("managed_resource.credential_revoke_failed", {
      credential_id: id,
      resource_id: first.resourceId,
      error: message,
    });
    throw err;
  }
  await ws.$transaction(async (tx) => {
    await lockRow(tx, null, first.resourceId);
    const c = await tx.managedResourceCredential.findUniqueOrThrow({ where: { id } });
    if (c.status === "failed")
      return void (await tx.managedResourceCredential.update({ where: { id }, data: { claimedUntil: null } }));
    if (c.status !== "revoking") return;
    const row = await tx.managedResourceCredential.update({
      where: { id },
      data: {
        status: "revoked",
        revokedAt: new Date(),
        claimedUntil: null,
        failureMessage: null,
        updatedAt: new Date(),
      },
    });
    await credentialEvent(tx, row, "revoking", "revoked", correlationId);
  });
  logger.info("managed_resource.credential_revoked", {
    credential_id: id,
    resource_id: first.resourceId,
    username: first.roleName,
  });
}
