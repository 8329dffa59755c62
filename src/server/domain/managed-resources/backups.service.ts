import type { ManagedResourceBackup, ManagedResourceRestore, Prisma } from "@/generated/prisma/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import type { TBackup, TRestore } from "./backups.contract";
import {
  BACKUP,
  RESTORE,
  type TBackupEvent,
  type TBackupState,
  type TRestoreEvent,
  type TRestoreState,
} from "./backups.states";
import { createResource } from "./managed-resources.service";

/**
 * Backups and restores of managed postgres resources (issue #33 item 4): the
 * API's use cases and the one place their statuses move. The dumps and
 * restores themselves run in the worker (backups.worker.ts).
 */
type TCaller = { userId: string; role: TRole; correlationId: string };
type TTx = Prisma.TransactionClient;

/** Days a backup is kept, per plan (docs/decisions.md "Backups and restore"). */
export const BACKUP_RETENTION_DAYS: Record<TPlanName, number> = { free: 7, team: 14, enterprise: 30 };
export async function retentionUntil(tx: TTx | ReturnType<typeof scopedDb>, from: Date): Promise<Date> {
  const plan = ((await tx.plan.findFirst({ select: { plan: true } }))?.plan ?? "free") as TPlanName;
  return new Date(from.getTime() + (BACKUP_RETENTION_DAYS[plan] ?? 7) * 86_400_000);
}

export function toBackup(b: ManagedResourceBackup): TBackup {
  return {
    id: b.id,
    workspace_id: b.workspaceId,
    resource_id: b.resourceId,
    trigger: b.trigger as TBackup["trigger"],
    status: b.status as TBackupState,
    size_bytes: Number(b.sizeBytes),
    failure: b.failureMessage ? { message: b.failureMessage } : null,
    started_at: b.startedAt ? iso(b.startedAt) : null,
    completed_at: b.completedAt ? iso(b.completedAt) : null,
    expires_at: iso(b.expiresAt),
    created_at: iso(b.createdAt),
    updated_at: iso(b.updatedAt),
  };
}

export function toRestore(r: ManagedResourceRestore): TRestore {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    backup_id: r.backupId,
    source_resource_id: r.sourceResourceId,
    target_resource_id: r.targetResourceId,
    mode: r.mode as TRestore["mode"],
    status: r.status as TRestoreState,
    failure: r.failureMessage ? { message: r.failureMessage } : null,
    started_at: r.startedAt ? iso(r.startedAt) : null,
    completed_at: r.completedAt ? iso(r.completedAt) : null,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

/** Moves a backup's status (row locked by the caller's UPDATE), with its event. */
export async function moveBackup(
  tx: TTx,
  b: ManagedResourceBackup,
  event: TBackupEvent,
  data: Prisma.ManagedResourceBackupUncheckedUpdateInput,
  correlationId: string,
) {
  const to = BACKUP.next(b.status as TBackupState, event);
  const row = await tx.managedResourceBackup.update({
    where: { id: b.id },
    data: { ...data, status: to, updatedAt: new Date() },
  });
  await emitEvent(tx, {
    workspaceId: b.workspaceId,
    type: "managed_resource.backup_changed",
    correlationId,
    subject: b.id,
    data: { ...toBackup(row), from: b.status, step: event },
  });
  return row;
}

export async function moveRestore(
  tx: TTx,
  r: ManagedResourceRestore,
  event: TRestoreEvent,
  data: Prisma.ManagedResourceRestoreUncheckedUpdateInput,
  correlationId: string,
) {
  const to = RESTORE.next(r.status as TRestoreState, event);
  const row = await tx.managedResourceRestore.update({
    where: { id: r.id },
    data: { ...data, status: to, updatedAt: new Date() },
  });
  await emitEvent(tx, {
    workspaceId: r.workspaceId,
    type: "managed_resource.restore_changed",
    correlationId,
    subject: r.id,
    data: { ...toRestore(row), from: r.status, step: event },
  });
  return row;
}

/** Inserts a pending backup with its event (the worker runs it). */
export async function insertBackup(
  tx: TTx,
  p: {
    workspaceId: string;
    resourceId: string;
    trigger: TBackup["trigger"];
    createdBy: string | null;
    correlationId: string;
    /** Made already claimed by its creator for this long (the backup worker leaves it alone), else claimable at once. */
    claimSeconds?: number;
  },
) {
  const now = new Date();
  const row = await tx.managedResourceBackup.create({
    data: {
      id: newId("bak"),
      workspaceId: p.workspaceId,
      resourceId: p.resourceId,
      trigger: p.trigger,
      status: BACKUP.next(null, "request"),
      expiresAt: await retentionUntil(tx, now),
      createdBy: p.createdBy,
      createdAt: now,
      updatedAt: now,
      claimedUntil: p.claimSeconds ? new Date(now.getTime() + p.claimSeconds * 1000) : null,
    },
  });
  await emitEvent(tx, {
    workspaceId: p.workspaceId,
    type: "managed_resource.backup_changed",
    correlationId: p.correlationId,
    subject: row.id,
    data: { ...toBackup(row), from: null, step: "request" },
  });
  return row;
}

async function postgresResource(tx: TTx, id: string) {
  // tx is the workspace's scoped client: another workspace's resource is not found.
  const r = await tx.managedResource.findUnique({ where: { id } });
  if (!r) throw notFound(`Managed resource ${id}`);
  if (r.kind !== "postgres") {
    throw new AppError(
      "validation_failed",
      `Managed resource ${r.name} is an object bucket: backups are taken of postgres resources.`,
      { reason: "backups_postgres_only" },
    );
  }
  return r;
}

export async function requestBackup(caller: TCaller, workspaceId: string, resourceId: string): Promise<TBackup> {
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "managed_resources" WHERE "id" = ${resourceId} FOR UPDATE`;
    const r = await postgresResource(tx, resourceId);
    if (r.status !== "available") {
      throw new AppError(
        "conflict",
        `Managed resource ${r.name} is ${r.status}: a backup needs an available database.`,
        { reason: "resource_not_available" },
      );
    }
    return insertBackup(tx, {
      workspaceId,
      resourceId,
      trigger: "on_demand",
      createdBy: caller.userId,
      correlationId: caller.correlationId,
    });
  });
  return toBackup(row);
}

export async function listBackups(workspaceId: string, resourceId: string, q: TListQuery): Promise<TPage<TBackup>> {
  const ws = scopedDb(workspaceId);
  if (!(await ws.managedResource.findUnique({ where: { id: resourceId }, select: { id: true } })))
    throw notFound(`Managed resource ${resourceId}`);
  const args = keysetArgs(q);
  const rows = await ws.managedResourceBackup.findMany({ ...args, where: { ...args.where, resourceId } });
  return toPage(rows, q, toBackup);
}

async function backupOf(tx: TTx | ReturnType<typeof scopedDb>, resourceId: string, backupId: string) {
  const b = await tx.managedResourceBackup.findUnique({ where: { id: backupId } });
  // Another workspace's backup, or one of another resource: not found, as for any id that is not yours.
  if (!b || b.resourceId !== resourceId) throw notFound(`Backup ${backupId}`);
  return b;
}

export async function getBackup(workspaceId: string, resourceId: string, backupId: string): Promise<TBackup> {
  return toBackup(await backupOf(scopedDb(workspaceId), resourceId, backupId));
}

export async function getRestore(workspaceId: string, resourceId: string, restoreId: string): Promise<TRestore> {
  const r = await scopedDb(workspaceId).managedResourceRestore.findUnique({ where: { id: restoreId } });
  if (!r || (r.sourceResourceId !== resourceId && r.targetResourceId !== resourceId))
    throw notFound(`Restore ${restoreId}`);
  return toRestore(r);
}

/**
 * Restores a completed backup: into a new resource (`fork`, admin: detached,
 * provisioned by the worker, then filled) or over its own resource
 * (`in_place`, owner only, `confirm` = the resource's name; everything since
 * the backup is replaced).
 */
export async function requestRestore(
  caller: TCaller,
  workspaceId: string,
  resourceId: string,
  backupId: string,
  input: { mode: "fork" | "in_place"; name?: string; confirm?: string },
): Promise<TRestore> {
  const ws = scopedDb(workspaceId);
  const pre = await backupOf(ws, resourceId, backupId);
  if (pre.status !== "completed") {
    throw new AppError("conflict", `Backup ${backupId} is ${pre.status}: only a completed backup can be restored.`, {
      reason: "backup_not_completed",
    });
  }
  const source = await postgresResource(ws as unknown as TTx, resourceId);
  let targetId = resourceId;
  if (input.mode === "in_place") {
    if (input.name !== undefined)
      throw new AppError("validation_failed", "name is for a fork", {
        errors: [{ path: "/name", message: "only with mode fork" }],
      });
    if (!roleAtLeast(caller.role, "owner")) {
      throw new AppError(
        "forbidden",
        "Restoring over a resource replaces its data: only an owner of the workspace may do it.",
        { reason: "owner_required" },
      );
    }
    if (input.confirm !== source.name) {
      throw new AppError(
        "validation_failed",
        `Restoring over ${source.name} replaces everything written since the backup: send confirm = "${source.name}".`,
        {
          reason: "confirmation_required",
          errors: [{ path: "/confirm", message: `must be the resource's name (${source.name})` }],
        },
      );
    }
    if (source.status !== "available") {
      throw new AppError(
        "conflict",
        `Managed resource ${source.name} is ${source.status}: it can be restored over only while available.`,
        { reason: "resource_not_available" },
      );
    }
  } else {
    if (input.confirm !== undefined)
      throw new AppError("validation_failed", "confirm is for in_place", {
        errors: [{ path: "/confirm", message: "only with mode in_place" }],
      });
    const name = input.name ?? `${source.name.slice(0, 40)}-restored-${newId("rst").slice(-6)}`;
    // A new, detached resource (counted against the plan, its name checked) that the worker fills once provisioned.
    targetId = (await createResource(caller, workspaceId, { kind: "postgres", name })).id;
  }
  const row = await ws.$transaction(async (tx) => {
    const now = new Date();
    const created = await tx.managedResourceRestore.create({
      data: {
        id: newId("rst"),
        workspaceId,
        backupId,
        sourceResourceId: resourceId,
        targetResourceId: targetId,
        mode: input.mode,
        status: RESTORE.next(null, "request"),
        createdBy: caller.userId,
        createdAt: now,
        updatedAt: now,
      },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "managed_resource.restore_changed",
      correlationId: caller.correlationId,
      subject: created.id,
      data: { ...toRestore(created), from: null, step: "request" },
    });
    return created;
  });
  return toRestore(row);
}
