import { randomBytes } from "node:crypto";
import type { Prisma, ServiceIdentity } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { sha256Hex } from "@/server/platform/crypto";
import type { TDb, TTx } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, conflict, notFound } from "@/server/platform/errors";
import { newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { assertNameFree, isNameRace, nameTaken } from "@/server/platform/names";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import {
  CLIENT_SECRET_PREFIX,
  type TFederation,
  type TServiceIdentity,
  type TServiceIdentityKind,
  type TServiceIdentityRequest,
} from "./service-identities.contract";
import { forgetBridgeIdentity } from "./bridge-token.service";

/**
 * Service identities of a workspace (kind `workspace`) or of the platform
 * (kind `platform`, always in ws_platform). The two are separate namespaces:
 * an id of the other kind, or of another workspace, is a 404.
 * Secrets: `cssec_` + 32 random bytes (base64url), returned once, stored as
 * sha256 hex only (the column is omitted from every query by default).
 * Every change writes its audit record and a `service_identity.changed`
 * event in the same transaction.
 */
export type TCaller = { userId: string; correlationId: string };
export type TScope = { kind: TServiceIdentityKind; workspaceId: string };
export const platformScope: TScope = { kind: "platform", workspaceId: PLATFORM_WORKSPACE_ID };
export const workspaceScope = (workspaceId: string): TScope => ({ kind: "workspace", workspaceId });

type TRow = Omit<ServiceIdentity, "secretHash" | "previousSecretHash">;

/** The longest a previous client secret may keep working after a rotation (Stripe's limit for rolled keys). */
export const MAX_PREVIOUS_SECRET_SECONDS = 7 * 24 * 3600;

/** True while the secret before the last rotation is still accepted at the token endpoint. */
export function previousSecretInEffect(
  r: Pick<ServiceIdentity, "previousSecretExpiresAt" | "previousSecretRevokedAt">,
  now = Date.now(),
): boolean {
  return Boolean(r.previousSecretExpiresAt && !r.previousSecretRevokedAt && r.previousSecretExpiresAt.getTime() > now);
}

export function toServiceIdentity(r: TRow): TServiceIdentity {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    kind: r.kind as TServiceIdentity["kind"],
    name: r.name,
    product_id: r.productId,
    environment_type: r.environmentType as TServiceIdentity["environment_type"],
    federation: (r.federation as TFederation | null) ?? null,
    permissions: (r.permissions as string[] | null) ?? null,
    client_id: r.id,
    status: r.status as TServiceIdentity["status"],
    secret_rotated_at: isoOrNull(r.secretRotatedAt),
    previous_secret_expires_at: previousSecretInEffect(r) ? iso(r.previousSecretExpiresAt!) : null,
    revoked_at: isoOrNull(r.revokedAt),
    last_token_at: isoOrNull(r.lastTokenAt),
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

export function newClientSecret(): string {
  return CLIENT_SECRET_PREFIX + randomBytes(32).toString("base64url");
}

async function record(
  tx: TTx,
  caller: TCaller,
  row: TRow,
  action:
    | "service_identity.created"
    | "service_identity.revoked"
    | "service_identity.secret_rotated"
    | "service_identity.renamed",
  details: Record<string, unknown> = {},
): Promise<void> {
  await writeAudit(tx, {
    workspaceId: row.workspaceId,
    actor: { kind: "user", id: caller.userId },
    action,
    target: { kind: "service_identity", id: row.id },
    correlationId: caller.correlationId,
    details: { kind: row.kind, name: row.name, ...details },
  });
  await emitEvent(tx, {
    workspaceId: row.workspaceId,
    type: "service_identity.changed",
    correlationId: caller.correlationId,
    subject: row.id,
    data: {
      change: action.slice("service_identity.".length),
      service_identity_id: row.id,
      workspace_id: row.workspaceId,
      kind: row.kind,
      status: row.status,
      product_id: row.productId,
      environment_type: row.environmentType,
    },
  });
}

export async function createServiceIdentity(
  caller: TCaller,
  scope: TScope,
  input: TServiceIdentityRequest,
): Promise<TServiceIdentity & { client_secret: string }> {
  if (input.product_id) {
    const product = await scopedDb(scope.workspaceId).product.findUnique({
      where: { id: input.product_id },
      select: { id: true },
    });
    if (!product) {
      const message = `is not a product of workspace ${scope.workspaceId}`;
      throw new AppError("validation_failed", `product_id ${message}`, { errors: [{ path: "/product_id", message }] });
    }
  }
  const id = newId("svc");
  const secret = newClientSecret();
  const federation = input.federation
    ? { issuer: input.federation.issuer, subject: input.federation.subject, audience: input.federation.audience }
    : null;
  const name = input.name.trim();
  const row = await scopedDb(scope.workspaceId)
    .$transaction(async (tx) => {
      await assertNameFree(tx, "service_identities", scope.workspaceId, name);
      const created = await tx.serviceIdentity.create({
        data: {
          id,
          workspaceId: scope.workspaceId,
          kind: scope.kind,
          name,
          productId: input.product_id ?? null,
          environmentType: input.environment_type ?? null,
          federation: federation ?? undefined,
          permissions: input.permissions ?? undefined,
          secretHash: sha256Hex(secret),
          status: "active",
          createdBy: caller.userId,
        },
      });
      await record(tx, caller, created, "service_identity.created", {
        product_id: created.productId,
        environment_type: created.environmentType,
        federation,
        permissions: input.permissions ?? null,
      });
      return created;
    })
    .catch((err: unknown) => {
      throw isNameRace(err) ? nameTaken("service_identities", name) : err;
    });
  return { ...toServiceIdentity(row), client_secret: secret };
}

/**
 * PATCH: a new name, unique among the workspace's identities not revoked,
 * ignoring case (409 name_taken). Same name: unchanged, no audit.
 */
export async function renameServiceIdentity(
  caller: TCaller,
  scope: TScope,
  id: string,
  rawName: string,
): Promise<TServiceIdentity> {
  const name = rawName.trim();
  const row = await scopedDb(scope.workspaceId)
    .$transaction(async (tx) => {
      const before = await findOwned(scope, id, tx);
      if (before.name === name) return before;
      if (before.status !== "revoked") await assertNameFree(tx, "service_identities", scope.workspaceId, name, id);
      const current = await tx.serviceIdentity.update({ where: { id }, data: { name, updatedAt: new Date() } });
      await record(tx, caller, current, "service_identity.renamed", { from: before.name });
      return current;
    })
    .catch((err: unknown) => {
      throw isNameRace(err) ? nameTaken("service_identities", name) : err;
    });
  return toServiceIdentity(row);
}

/** `tx`: a client scoped to `scope.workspaceId` (another workspace's identity is not found). */
async function findOwned(scope: TScope, id: string, tx: TTx | TDb = scopedDb(scope.workspaceId)): Promise<TRow> {
  const row = await tx.serviceIdentity.findUnique({ where: { id } });
  if (!row || row.kind !== scope.kind) throw notFound(`Service identity ${id}`);
  return row;
}

export async function getServiceIdentity(scope: TScope, id: string): Promise<TServiceIdentity> {
  return toServiceIdentity(await findOwned(scope, id));
}

export async function listServiceIdentities(scope: TScope, q: TListQuery): Promise<TPage<TServiceIdentity>> {
  const args = keysetArgs(q);
  const where: Prisma.ServiceIdentityWhereInput = { ...args.where, kind: scope.kind };
  const rows = await scopedDb(scope.workspaceId).serviceIdentity.findMany({ ...args, where });
  return toPage(rows, q, toServiceIdentity);
}

/** Permanent. Idempotent: revoking a revoked identity returns it unchanged (no second audit). */
export async function revokeServiceIdentity(caller: TCaller, scope: TScope, id: string): Promise<TServiceIdentity> {
  const row = await scopedDb(scope.workspaceId).$transaction(async (tx) => {
    await findOwned(scope, id, tx);
    const now = new Date();
    const changed = await tx.serviceIdentity.updateMany({
      where: { id, status: "active" },
      data: { status: "revoked", revokedAt: now, updatedAt: now },
    });
    const current = await findOwned(scope, id, tx);
    if (changed.count === 1) await record(tx, caller, current, "service_identity.revoked");
    return current;
  });
  forgetBridgeIdentity(id);
  return toServiceIdentity(row);
}

/**
 * A new secret. `previousSecretExpiresIn` (seconds, 0..7 days, default 0)
 * keeps the old secret working at the token endpoint until then; 0 ends it,
 * and every bridge token obtained with it, at once. Tokens obtained with a
 * kept previous secret live until their own `exp` unless the previous secret
 * is revoked early. 409 when the identity is revoked, while a previous secret
 * is still in effect (revoke it first: no secret is silently dropped), and for
 * the loser of two concurrent rotations (compare-and-set on the secret hash).
 */
export async function rotateServiceIdentitySecret(
  caller: TCaller,
  scope: TScope,
  id: string,
  opts: { previousSecretExpiresIn?: number } = {},
): Promise<TServiceIdentity & { client_secret: string }> {
  const keepFor = opts.previousSecretExpiresIn ?? 0;
  if (!Number.isInteger(keepFor) || keepFor < 0 || keepFor > MAX_PREVIOUS_SECRET_SECONDS) {
    const message = `must be an integer from 0 to ${MAX_PREVIOUS_SECRET_SECONDS} seconds`;
    throw new AppError("validation_failed", `previous_secret_expires_in ${message}`, {
      errors: [{ path: "/previous_secret_expires_in", message }],
    });
  }
  const secret = newClientSecret();
  const row = await scopedDb(scope.workspaceId).$transaction(async (tx) => {
    await findOwned(scope, id, tx);
    const before = await tx.serviceIdentity.findUniqueOrThrow({ where: { id }, omit: { secretHash: false } });
    if (before.status !== "active")
      throw conflict(`Service identity ${id} is revoked; its secret cannot be rotated`, "service_identity_revoked");
    const now = new Date();
    if (previousSecretInEffect(before, now.getTime())) {
      throw conflict(
        `The previous client secret of ${id} is accepted until ${iso(before.previousSecretExpiresAt!)}; revoke it (:revoke-previous-secret) or wait before rotating again`,
        "secret_rotation_in_progress",
      );
    }
    const keep = keepFor > 0;
    const changed = await tx.serviceIdentity.updateMany({
      where: { id, status: "active", secretHash: before.secretHash },
      data: {
        secretHash: sha256Hex(secret),
        secretRotatedAt: now,
        updatedAt: now,
        previousSecretHash: keep ? before.secretHash : null,
        previousSecretRotatedAt: keep ? before.secretRotatedAt : null,
        previousSecretExpiresAt: keep ? new Date(now.getTime() + keepFor * 1000) : null,
        previousSecretRevokedAt: null,
      },
    });
    if (changed.count !== 1)
      throw conflict(
        `Service identity ${id} was rotated concurrently; this rotation was not applied`,
        "secret_rotation_in_progress",
      );
    const current = await findOwned(scope, id, tx);
    await record(tx, caller, current, "service_identity.secret_rotated", {
      step: "rotated",
      previous_secret_expires_in: keepFor,
      previous_secret_expires_at: isoOrNull(current.previousSecretExpiresAt),
    });
    return current;
  });
  forgetBridgeIdentity(id);
  return { ...toServiceIdentity(row), client_secret: secret };
}

/**
 * Ends the previous secret's overlap now: it is refused at the token endpoint
 * and bridge tokens obtained with it stop working (within 5 s elsewhere).
 * Idempotent: with no previous secret in effect the identity is returned unchanged.
 */
export async function revokePreviousServiceIdentitySecret(
  caller: TCaller,
  scope: TScope,
  id: string,
): Promise<TServiceIdentity> {
  const row = await scopedDb(scope.workspaceId).$transaction(async (tx) => {
    const before = await findOwned(scope, id, tx);
    const now = new Date();
    if (!before.previousSecretExpiresAt || before.previousSecretRevokedAt) return before;
    const changed = await tx.serviceIdentity.updateMany({
      where: { id, previousSecretRevokedAt: null, previousSecretExpiresAt: before.previousSecretExpiresAt },
      data: { previousSecretRevokedAt: now, previousSecretHash: null, updatedAt: now },
    });
    const current = await findOwned(scope, id, tx);
    if (changed.count === 1) {
      await record(tx, caller, current, "service_identity.secret_rotated", {
        step: "previous_secret_revoked",
        previous_secret_expires_at: iso(before.previousSecretExpiresAt),
        was_in_effect: before.previousSecretExpiresAt.getTime() > now.getTime(),
      });
    }
    return current;
  });
  forgetBridgeIdentity(id);
  return toServiceIdentity(row);
}
