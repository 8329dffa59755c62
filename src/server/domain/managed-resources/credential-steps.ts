import { randomBytes } from "node:crypto";
import type { ManagedResourceCredential } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import type { TRole } from "@/server/domain/identity/workspace-access.service";
import { credentialEvent, PENDING_SECONDS, scrubServerError } from "./credentials.worker";
import type { TManagedResource } from "./managed-resources.contract";
import { limitsFor, lockRow, toResource, usesInclude, type TMres, type TTx } from "./managed-resources.model";
import { revokeRole } from "./postgres-credentials";

/** The steps every credential change of a managed resource takes (credentials.service.ts): lock, pending, activate, audit. */

export type TCaller = { userId: string; role: TRole; correlationId: string };

export const conflict = (detail: string, reason: string, extensions?: Record<string, unknown>) =>
  new AppError("conflict", detail, { reason, ...(extensions ? { extensions } : {}) });

export async function render(workspaceId: string, id: string): Promise<TManagedResource> {
  const ws = scopedDb(workspaceId);
  const row = await ws.managedResource.findUniqueOrThrow({ where: { id }, include: usesInclude });
  const plan = (await ws.plan.findFirst({ select: { plan: true } }))?.plan ?? "free";
  return toResource(row, plan);
}

/** The checks every credential change shares: a postgres resource whose database exists and no other change in flight. */
export async function lockForChange(tx: TTx, workspaceId: string, id: string, what: string): Promise<TMres> {
  const r = await lockRow(tx, workspaceId, id);
  if (r.kind !== "postgres") {
    throw new AppError(
      "validation_failed",
      `Managed resource ${r.name} is a ${r.kind}; only postgres resources have credentials.`,
      { reason: "credentials_postgres_only" },
    );
  }
  if (r.status === "deleted" || r.status === "deleting") {
    throw conflict(
      `Managed resource ${r.name} is ${r.status === "deleted" ? "deleted" : "being destroyed"}; ${what} is not possible (nothing was changed).`,
      "resource_deleted",
      { resource_status: r.status },
    );
  }
  const pending = await tx.managedResourceCredential.findFirst({
    where: { resourceId: id, status: "pending" },
    select: { id: true },
  });
  if (pending)
    throw conflict(
      `Another credential change of ${r.name} is in progress; try again in a moment (nothing was changed).`,
      "credential_change_in_progress",
    );
  return r;
}

export const available = (r: TMres, what: string) => {
  if (r.status !== "available") {
    throw conflict(
      `Managed resource ${r.name} is ${r.status}; ${what} needs an available database (nothing was changed).`,
      "resource_not_available",
      { resource_status: r.status },
    );
  }
};

export const roleSuffix = () => Array.from(randomBytes(8), (b) => "abcdefghjkmnpqrstvwxyz0123456789"[b & 31]).join("");

export async function planLimit(workspaceId: string): Promise<number> {
  const plan = (await scopedDb(workspaceId).plan.findFirst({ select: { plan: true } }))?.plan ?? "free";
  return limitsFor(plan).connections;
}

/** The server step failed: the pending credential fails (its half-made role dropped) and the caller gets a 503. */
export async function failPending(
  r: TMres,
  cred: ManagedResourceCredential,
  err: unknown,
  correlationId: string,
): Promise<never> {
  const message = scrubServerError(err);
  await revokeRole({ owner: r.dbName!, role: cred.roleName, database: r.dbName! }).catch(() => undefined);
  await scopedDb(r.workspaceId).$transaction(async (tx) => {
    const cur = await tx.managedResourceCredential.findUnique({ where: { id: cred.id } });
    if (cur?.status !== "pending") return;
    const row = await tx.managedResourceCredential.update({
      where: { id: cred.id },
      data: { status: "failed", failureMessage: message, claimedUntil: null, updatedAt: new Date() },
    });
    await credentialEvent(tx, row, "pending", "create_failed", correlationId);
  });
  logger.error("managed_resource.credential_failed", { resource_id: r.id, credential_id: cred.id, error: message });
  throw new AppError(
    "unavailable",
    `The managed PostgreSQL server did not accept the new role (${message}); nothing was changed, try again.`,
    { reason: "managed_postgres_unavailable" },
  );
}

export async function insertPending(
  tx: TTx,
  r: TMres,
  caller: TCaller,
  kind: "primary" | "read_only",
): Promise<ManagedResourceCredential> {
  const now = new Date();
  const roleName = `${r.dbName}_${kind === "read_only" ? "ro_" : ""}${roleSuffix()}`;
  return tx.managedResourceCredential.create({
    data: {
      id: newId("mcred"),
      workspaceId: r.workspaceId,
      resourceId: r.id,
      kind,
      roleName,
      status: "pending",
      claimedUntil: new Date(now.getTime() + PENDING_SECONDS * 1000),
      createdBy: caller.userId,
      createdAt: now,
      updatedAt: now,
    },
  });
}

/** Moves the pending credential to active; false when the worker already gave up on it (the request took too long). */
export async function activate(
  tx: TTx,
  cred: ManagedResourceCredential,
  correlationId: string,
): Promise<ManagedResourceCredential | null> {
  const now = new Date();
  const done = await tx.managedResourceCredential.updateMany({
    where: { id: cred.id, status: "pending" },
    data: { status: "active", activatedAt: now, claimedUntil: null, updatedAt: now },
  });
  if (done.count !== 1) return null;
  const row = await tx.managedResourceCredential.findUniqueOrThrow({ where: { id: cred.id } });
  await credentialEvent(tx, row, "pending", "activated", correlationId);
  return row;
}

export const audit = (
  tx: TTx,
  caller: TCaller,
  r: TMres,
  action: "credential.created" | "credential.revoked",
  cred: ManagedResourceCredential,
  details: Record<string, unknown>,
) =>
  writeAudit(tx, {
    workspaceId: r.workspaceId,
    actor: { kind: "user", id: caller.userId },
    action,
    target: { kind: "managed_resource_credential", id: cred.id },
    correlationId: caller.correlationId,
    details: {
      resource_id: r.id,
      resource_name: r.name,
      username: cred.roleName,
      access: cred.kind === "read_only" ? "read_only" : "read_write",
      ...details,
    },
  });
