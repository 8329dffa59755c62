import type { Credential, Prisma } from "@/generated/prisma/client";
import { CAPABILITY_RULES } from "@/server/domain/source/contract-rules";
import { writeAudit } from "@/server/platform/audit";
import { currentKekId, seal, unseal } from "@/server/platform/crypto";
import { bumpVersion } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import { revokeBindingsOfCredential } from "./bindings.service";
import type { TCredential, TCredentialListQuery, TCredentialRequest, TOwnerKind } from "./credentials.contract";

/**
 * Credentials: write-only provider secrets, sealed with AES-256-GCM under the
 * master key (AAD `credential:<id>` binds each ciphertext to its row). The
 * plaintext exists only in the create request and in readCredentialSecret's
 * return value; nothing here logs, audits or emits it.
 */

/** kek_id of a revoked credential: its ciphertext was destroyed (crypto-shredded). */
export const DESTROYED_KEK = "destroyed";

type TCaller = { userId: string; correlationId: string };

const aad = (id: string) => `credential:${id}`;

export function toCredential(c: Omit<Credential, "secretSealed">): TCredential {
  return {
    id: c.id,
    workspace_id: c.workspaceId,
    owner_kind: c.ownerKind as TOwnerKind,
    provider: c.provider,
    capability: c.capability,
    actions: c.actions as string[],
    scope: c.scope as string[],
    expires_at: iso(c.expiresAt),
    created_by: c.createdBy,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
    revoked_at: isoOrNull(c.revokedAt),
  };
}

/** Capabilities whose credential owner is the platform (spec 2.7: data.kv). */
export const PLATFORM_OWNED_CAPABILITIES = Object.entries(CAPABILITY_RULES)
  .filter(([, rule]) => rule.owner === "platform")
  .map(([id]) => id);

export function ownerKindOf(workspaceId: string): TOwnerKind {
  return workspaceId === PLATFORM_WORKSPACE_ID ? "platform" : "workspace";
}

/** Creates a credential; the response (and everything recorded about it) omits the secret. */
export async function createCredential(
  caller: TCaller,
  workspaceId: string,
  input: TCredentialRequest,
): Promise<TCredential> {
  const expiresAt = new Date(input.expires_at);
  if (expiresAt.getTime() <= Date.now()) {
    throw new AppError("validation_failed", "expires_at must be in the future", {
      errors: [{ path: "/expires_at", message: "must be in the future" }],
    });
  }
  const id = newId("cred");
  const ownerKind = ownerKindOf(workspaceId);
  const created = await scopedDb(workspaceId).$transaction(async (tx) => {
    const row = await tx.credential.create({
      data: {
        id,
        workspaceId,
        ownerKind,
        provider: input.provider,
        capability: input.capability,
        actions: input.actions,
        scope: input.scope,
        expiresAt,
        secretSealed: seal(input.secret, aad(id)),
        kekId: currentKekId(),
        createdBy: caller.userId,
      },
    });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "credential.created",
      target: { kind: "credential", id },
      correlationId: caller.correlationId,
      details: {
        provider: input.provider,
        capability: input.capability,
        owner_kind: ownerKind,
        expires_at: iso(expiresAt),
      },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "credential.created",
      correlationId: caller.correlationId,
      subject: id,
      data: {
        workspace_id: workspaceId,
        credential_id: id,
        owner_kind: ownerKind,
        provider: input.provider,
        capability: input.capability,
        expires_at: iso(expiresAt),
      },
    });
    return toCredential(row);
  });
  // The Bridge's output check caches the workspace's secrets: let it see this one at once.
  bumpVersion(`credentials:${workspaceId}`);
  return created;
}

async function findOwned(workspaceId: string, id: string) {
  const row = await scopedDb(workspaceId).credential.findUnique({ where: { id } });
  if (!row) throw notFound(`Credential ${id}`);
  return row;
}

export async function getCredential(workspaceId: string, id: string): Promise<TCredential> {
  return toCredential(await findOwned(workspaceId, id));
}

/**
 * The workspace's own credentials; with `owner_kind=platform` from a regular
 * workspace, the platform credentials it may bind (metadata only).
 */
export async function listCredentials(workspaceId: string, q: TCredentialListQuery): Promise<TPage<TCredential>> {
  const args = keysetArgs(q);
  if (q.owner_kind === "platform" && workspaceId !== PLATFORM_WORKSPACE_ID) {
    // The platform's bindable credentials, metadata only: read in ws_platform's scope, not the caller's.
    const filter: Prisma.CredentialWhereInput = { capability: { in: PLATFORM_OWNED_CAPABILITIES }, revokedAt: null };
    const rows = await scopedDb(PLATFORM_WORKSPACE_ID).credential.findMany({
      ...args,
      where: { AND: [args.where, filter] },
    });
    return toPage(rows, q, toCredential);
  }
  const rows = await scopedDb(workspaceId).credential.findMany({
    ...args,
    where: { AND: [args.where, q.owner_kind ? { ownerKind: q.owner_kind } : {}] },
  });
  return toPage(rows, q, toCredential);
}

/**
 * Revokes permanently (idempotent: revoking again returns the record and
 * records nothing). The ciphertext is destroyed, and every binding that uses
 * the credential, in any workspace, moves to `revoked`.
 */
export async function revokeCredential(caller: TCaller, workspaceId: string, id: string): Promise<TCredential> {
  await findOwned(workspaceId, id);
  // Not scoped: the bindings using a platform credential belong to other workspaces, and they are revoked with it.
  // platform-scoped: a platform credential's bindings live in other workspaces and are revoked with it.
  const revoked = await db().$transaction(async (tx) => {
    const now = new Date();
    const changed = await tx.credential.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: now, updatedAt: now, secretSealed: "", kekId: DESTROYED_KEK },
    });
    if (changed.count === 1) {
      await writeAudit(tx, {
        workspaceId,
        actor: { kind: "user", id: caller.userId },
        action: "credential.revoked",
        target: { kind: "credential", id },
        correlationId: caller.correlationId,
      });
      await emitEvent(tx, {
        workspaceId,
        type: "credential.revoked",
        correlationId: caller.correlationId,
        subject: id,
        data: { workspace_id: workspaceId, credential_id: id },
      });
      await revokeBindingsOfCredential(
        tx,
        { kind: "user", id: caller.userId },
        caller.correlationId,
        id,
        "credential_revoked",
      );
    }
    return toCredential(await tx.credential.findUniqueOrThrow({ where: { id } }));
  });
  // The Bridge caches binding lists briefly: let this process see the revoked bindings at once.
  bumpVersion("bindings");
  return revoked;
}

/**
 * The plaintext secret, for the Bridge's provider call (the one place that
 * opts into the sealed column). Throws a 409-class AppError with reason
 * `credential_revoked` or `credential_expired` when it is not usable.
 */
export async function readCredentialSecret(credentialId: string, now = new Date()): Promise<string> {
  // platform-scoped: by the id of a binding's credential, which may be a platform credential (a row of the platform workspace).
  const row = await db().credential.findUnique({ where: { id: credentialId }, omit: { secretSealed: false } });
  if (!row) throw notFound(`Credential ${credentialId}`);
  if (row.revokedAt || row.kekId === DESTROYED_KEK) {
    throw new AppError("conflict", `Credential ${credentialId} is revoked`, { reason: "credential_revoked" });
  }
  if (row.expiresAt.getTime() <= now.getTime()) {
    throw new AppError("conflict", `Credential ${credentialId} expired at ${iso(row.expiresAt)}`, {
      reason: "credential_expired",
    });
  }
  return unseal(row.secretSealed, aad(row.id));
}

/**
 * Master key rotation: re-seals every live credential whose kek_id is not the
 * current key's (the old key must still be in CAPSTAN_PREVIOUS_MASTER_KEYS).
 * Safe to run repeatedly and concurrently with other writers: each row is
 * updated only if its kek_id is still the one it was read with.
 */
export async function reencryptCredentials(): Promise<{ updated: number; failed: number }> {
  const current = currentKekId();
  let updated = 0;
  let failed = 0;
  let after = "";
  for (;;) {
    // platform-scoped: a maintenance command re-sealing every workspace's credentials.
    const rows = await db().credential.findMany({
      where: { kekId: { notIn: [current, DESTROYED_KEK] }, id: { gt: after } },
      select: { id: true, kekId: true, secretSealed: true },
      orderBy: { id: "asc" },
      take: 100,
    });
    if (!rows.length) break;
    for (const row of rows) {
      after = row.id;
      let resealed: string;
      try {
        resealed = seal(unseal(row.secretSealed, aad(row.id)), aad(row.id));
      } catch (err) {
        // Only the id and the error kind: the message of a crypto error never holds the plaintext, but be strict.
        logger.error("credentials.reencrypt_failed", {
          credential_id: row.id,
          kek_id: row.kekId,
          error: (err as Error).name,
        });
        failed++;
        continue;
      }
      // platform-scoped: the same maintenance command, row by row.
      const r = await db().credential.updateMany({
        where: { id: row.id, kekId: row.kekId },
        data: { secretSealed: resealed, kekId: current },
      });
      updated += r.count;
    }
  }
  return { updated, failed };
}
