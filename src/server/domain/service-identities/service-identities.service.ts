import { randomBytes } from "node:crypto";
import type { Prisma, ServiceIdentity } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { sha256Hex } from "@/server/platform/crypto";
import { db, type TTx } from "@/server/platform/db/client";
import { AppError, conflict, notFound } from "@/server/platform/errors";
import { newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import {
  CLIENT_SECRET_PREFIX, type TFederation, type TServiceIdentity, type TServiceIdentityKind,
  type TServiceIdentityRequest,
} from "./service-identities.contract";
import { forgetBridgeIdentity } from "./token.service";

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

type TRow = Omit<ServiceIdentity, "secretHash">;

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
  action: "service_identity.created" | "service_identity.revoked" | "service_identity.secret_rotated",
  details: Record<string, unknown> = {},
): Promise<void> {
  await writeAudit(tx, {
    workspaceId: row.workspaceId, actor: { kind: "user", id: caller.userId }, action,
    target: { kind: "service_identity", id: row.id }, correlationId: caller.correlationId,
    details: { kind: row.kind, name: row.name, ...details },
  });
  await emitEvent(tx, {
    workspaceId: row.workspaceId, type: "service_identity.changed", correlationId: caller.correlationId, subject: row.id,
    data: {
      change: action.slice("service_identity.".length), service_identity_id: row.id, workspace_id: row.workspaceId,
      kind: row.kind, status: row.status, product_id: row.productId, environment_type: row.environmentType,
    },
  });
}

export async function createServiceIdentity(
  caller: TCaller,
  scope: TScope,
  input: TServiceIdentityRequest,
): Promise<TServiceIdentity & { client_secret: string }> {
  if (input.product_id) {
    const product = await db().product.findUnique({ where: { id: input.product_id }, select: { workspaceId: true } });
    if (!product || product.workspaceId !== scope.workspaceId) {
      const message = `is not a product of workspace ${scope.workspaceId}`;
      throw new AppError("validation_failed", `product_id ${message}`, { errors: [{ path: "/product_id", message }] });
    }
  }
  const id = newId("svc");
  const secret = newClientSecret();
  const federation = input.federation
    ? { issuer: input.federation.issuer, subject: input.federation.subject, audience: input.federation.audience }
    : null;
  const row = await db().$transaction(async (tx) => {
    const created = await tx.serviceIdentity.create({
      data: {
        id, workspaceId: scope.workspaceId, kind: scope.kind, name: input.name, productId: input.product_id ?? null,
        environmentType: input.environment_type ?? null, federation: federation ?? undefined,
        permissions: input.permissions ?? undefined,
        secretHash: sha256Hex(secret), status: "active", createdBy: caller.userId,
      },
    });
    await record(tx, caller, created, "service_identity.created", {
      product_id: created.productId, environment_type: created.environmentType, federation,
      permissions: input.permissions ?? null,
    });
    return created;
  });
  return { ...toServiceIdentity(row), client_secret: secret };
}

async function findOwned(scope: TScope, id: string, tx: TTx | ReturnType<typeof db> = db()): Promise<TRow> {
  const row = await tx.serviceIdentity.findUnique({ where: { id } });
  if (!row || row.workspaceId !== scope.workspaceId || row.kind !== scope.kind) throw notFound(`Service identity ${id}`);
  return row;
}

export async function getServiceIdentity(scope: TScope, id: string): Promise<TServiceIdentity> {
  return toServiceIdentity(await findOwned(scope, id));
}

export async function listServiceIdentities(scope: TScope, q: TListQuery): Promise<TPage<TServiceIdentity>> {
  const args = keysetArgs(q);
  const where: Prisma.ServiceIdentityWhereInput = { ...args.where, workspaceId: scope.workspaceId, kind: scope.kind };
  const rows = await db().serviceIdentity.findMany({ ...args, where });
  return toPage(rows, q, toServiceIdentity);
}

/** Permanent. Idempotent: revoking a revoked identity returns it unchanged (no second audit). */
export async function revokeServiceIdentity(caller: TCaller, scope: TScope, id: string): Promise<TServiceIdentity> {
  const row = await db().$transaction(async (tx) => {
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

/** A new secret; the old one stops working at once (and so do bridge tokens obtained with it). Revoked: 409. */
export async function rotateServiceIdentitySecret(caller: TCaller, scope: TScope, id: string): Promise<TServiceIdentity & { client_secret: string }> {
  const secret = newClientSecret();
  const row = await db().$transaction(async (tx) => {
    await findOwned(scope, id, tx);
    const now = new Date();
    const changed = await tx.serviceIdentity.updateMany({
      where: { id, status: "active" },
      data: { secretHash: sha256Hex(secret), secretRotatedAt: now, updatedAt: now },
    });
    if (changed.count !== 1) throw conflict(`Service identity ${id} is revoked; its secret cannot be rotated`, "service_identity_revoked");
    const current = await findOwned(scope, id, tx);
    await record(tx, caller, current, "service_identity.secret_rotated");
    return current;
  });
  forgetBridgeIdentity(id);
  return { ...toServiceIdentity(row), client_secret: secret };
}
