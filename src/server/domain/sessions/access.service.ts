import type { Access, Prisma, Session } from "@/generated/prisma/client";
import { writeAudit, writeAuditStandalone } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import type { TRole } from "@/server/domain/identity/workspace-access.service";
import type { TAccess, TSession } from "./sessions.contract";

/**
 * Access to a surface (spec 2.12). Every /v1 call carries a bearer token,
 * so an access always belongs to an account (`usr_`); anonymous access
 * (account_id null) is reserved for a later public access policy.
 * Who qualifies on a `preview_direct` surface: any member of the surface's
 * workspace (viewer or above). An access lasts CAPSTAN_ACCESS_TTL_SECONDS
 * (24 h) or until the surface expires, whichever is first; asking again
 * while one is valid returns it (`reused_existing_access: true`), one row
 * per (account, surface) even under concurrency (a transaction-scoped
 * advisory lock on the pair).
 */
export type TCaller = { userId: string; correlationId: string };

export function toAccess(a: Access, reused = false): TAccess {
  return {
    id: a.id,
    workspace_id: a.workspaceId,
    account_id: a.accountId,
    product_id: a.productId,
    surface_id: a.surfaceId,
    deployment_id: a.deploymentId,
    access_entry: "direct_surface",
    entitlement_source: "direct",
    expires_at: iso(a.expiresAt),
    reused_existing_access: reused,
    ...(a.sessionId ? { session_id: a.sessionId } : {}),
    revoked_at: a.revokedAt ? iso(a.revokedAt) : null,
    created_at: iso(a.createdAt),
    updated_at: iso(a.updatedAt),
  };
}

export function toSession(s: Session): TSession {
  return {
    id: s.id,
    workspace_id: s.workspaceId,
    product_id: s.productId,
    surface_id: s.surfaceId,
    account_id: s.accountId,
    access_id: s.accessId,
    environment_id: s.environmentId,
    state: s.state as TSession["state"],
    closed_at: s.closedAt ? iso(s.closedAt) : null,
    closed_reason: s.closedReason,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}

export async function roleIn(workspaceId: string, userId: string): Promise<TRole | null> {
  const m = await scopedDb(workspaceId).membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    select: { role: true },
  });
  return (m?.role as TRole | undefined) ?? null;
}

/** Finds a valid access of the caller to the surface or qualifies a new one. */
export async function qualifyAccess(caller: TCaller, surfaceId: string): Promise<{ access: Access; reused: boolean }> {
  // platform-scoped: a surface's id path names no workspace; the row names it and membership is checked next.
  const srf = await db().surface.findUnique({ where: { id: surfaceId } });
  if (!srf) throw notFound(`Surface ${surfaceId}`);
  const actor = { kind: "user" as const, id: caller.userId };
  const deny = async (reason: string) =>
    writeAuditStandalone({
      workspaceId: srf.workspaceId,
      actor,
      action: "access.denied",
      target: { kind: "surface", id: srf.id },
      correlationId: caller.correlationId,
      details: { reason },
    });
  if (!(await roleIn(srf.workspaceId, caller.userId))) {
    await deny("not_a_member");
    // Another workspace's surface is as good as unknown.
    throw notFound(`Surface ${surfaceId}`);
  }
  if (srf.status !== "active" || srf.expiresAt <= new Date()) {
    await deny(`surface_${srf.status}`);
    throw new AppError(
      "conflict",
      `Surface ${surfaceId} is ${srf.status}: access is only granted to an active surface`,
      { reason: "surface_not_active" },
    );
  }
  return scopedDb(srf.workspaceId).$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`access:${surfaceId}:${caller.userId}`}, 0))`;
    const existing = await tx.access.findFirst({
      where: { surfaceId, accountId: caller.userId, revokedAt: null, expiresAt: { gt: new Date() } },
      orderBy: { createdAt: "desc" },
    });
    if (existing) return { access: existing, reused: true };
    const ttl = env().CAPSTAN_ACCESS_TTL_SECONDS * 1000;
    const access = await tx.access.create({
      data: {
        id: newId("acc"),
        workspaceId: srf.workspaceId,
        productId: srf.productId,
        surfaceId,
        deploymentId: srf.deploymentId,
        accountId: caller.userId,
        expiresAt: new Date(Math.min(srf.expiresAt.getTime(), Date.now() + ttl)),
      },
    });
    await writeAudit(tx, {
      workspaceId: srf.workspaceId,
      actor,
      action: "access.qualified",
      target: { kind: "access", id: access.id },
      correlationId: caller.correlationId,
      details: { surface_id: surfaceId },
    });
    await emitEvent(tx, {
      workspaceId: srf.workspaceId,
      type: "access.changed",
      correlationId: caller.correlationId,
      subject: access.id,
      data: { access_id: access.id, surface_id: surfaceId, account_id: caller.userId, status: "qualified" },
    });
    return { access, reused: false };
  });
}

export async function requestAccess(caller: TCaller, surfaceId: string): Promise<TAccess> {
  const { access, reused } = await qualifyAccess(caller, surfaceId);
  return toAccess(access, reused);
}

export async function listAccesses(
  workspaceId: string,
  q: TListQuery & { surface_id?: string },
): Promise<TPage<TAccess>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).access.findMany({
    ...args,
    where: { ...args.where, ...(q.surface_id ? { surfaceId: q.surface_id } : {}) },
  });
  return toPage(rows, q, (a) => toAccess(a));
}

/** Closes every active session of `where` in the caller's transaction. */
export async function closeSessionsTx(
  tx: Prisma.TransactionClient,
  where: Prisma.SessionWhereInput,
  reason: string,
): Promise<number> {
  const now = new Date();
  const r = await tx.session.updateMany({
    where: { ...where, state: "active" },
    data: { state: "closed", closedAt: now, closedReason: reason, updatedAt: now },
  });
  return r.count;
}

/** Revokes an access (owner or admin): audit access.revoked; its sessions close. */
export async function revokeAccess(caller: TCaller, workspaceId: string, accessId: string): Promise<TAccess> {
  const a = await scopedDb(workspaceId).access.findUnique({ where: { id: accessId } });
  if (!a) throw notFound(`Access ${accessId}`);
  return scopedDb(workspaceId).$transaction(async (tx) => {
    const now = new Date();
    const moved = await tx.access.updateMany({
      where: { id: accessId, revokedAt: null },
      data: { revokedAt: now, revokedBy: caller.userId, updatedAt: now },
    });
    if (moved.count !== 1)
      throw new AppError("conflict", `Access ${accessId} is already revoked`, { reason: "access_revoked" });
    const closed = await closeSessionsTx(tx, { accessId }, "access_revoked");
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "access.revoked",
      target: { kind: "access", id: accessId },
      correlationId: caller.correlationId,
      details: { surface_id: a.surfaceId, account_id: a.accountId, sessions_closed: closed },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "access.changed",
      correlationId: caller.correlationId,
      subject: accessId,
      data: { access_id: accessId, surface_id: a.surfaceId, account_id: a.accountId, status: "revoked" },
    });
    return toAccess(await tx.access.findUniqueOrThrow({ where: { id: accessId } }));
  });
}
