import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { blobStore, type BlobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { insertBackup, moveBackup, moveRestore } from "./backups.service";
import { dumpEncrypted, restoreEncrypted } from "./pg-dump";

/**
 * The backup worker (issue #33 item 4): claims pending backups and restores
 * (a CLAIM_SECONDS lease; a crash is retried after it), runs pg_dump /
 * pg_restore outside any transaction and records the outcome through the
 * transition tables. Also schedules the daily backups and expires old ones.
 *
 * Tenancy: claims and scans are platform-scoped by design (every
 * workspace's rows); each write after that runs on scopedDb(row.workspaceId).
 */
const CLAIM_SECONDS = 600;

/**
 * Where a workspace's backups are stored: a blob scope of their own (as a
 * bucket's objects have), so no other record can name these bytes and an
 * expired backup's blob can be deleted.
 */
export const backupBlobs = (workspaceId: string): BlobStore => blobStore().scope(`backups_${workspaceId}`);
const scrub = (s: string) => s.replace(/postgres(?:ql)?:\/\/[^\s]+/g, "[url]").slice(0, 500);

export async function processBackups(limit = 5): Promise<number> {
  // platform-scoped: the claim spans every workspace's backups.
  const claimed = await db().$queryRaw<Array<{ id: string }>>`
    UPDATE "managed_resource_backups" SET "claimed_until" = now() + make_interval(secs => ${CLAIM_SECONDS})
     WHERE "id" IN (SELECT "id" FROM "managed_resource_backups"
        WHERE "status" IN ('pending', 'running') AND ("claimed_until" IS NULL OR "claimed_until" < now())
        ORDER BY "created_at" ASC LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING "id"`;
  for (const { id } of claimed)
    await runBackup(id).catch((err) =>
      logger.error("managed_resource.backup_crashed", { backup_id: id, error: scrub(String(err)) }),
    );
  return claimed.length;
}

/** Dumps one claimed backup into the blob store; true when it completed. */
export async function runBackup(id: string): Promise<boolean> {
  // platform-scoped: a claimed row by id, to learn its workspace.
  const pre = await db().managedResourceBackup.findUniqueOrThrow({ where: { id } });
  const ws = scopedDb(pre.workspaceId);
  const resource = await ws.managedResource.findUniqueOrThrow({ where: { id: pre.resourceId } });
  const started = await ws.$transaction(async (tx) => {
    const b = await tx.managedResourceBackup.findUniqueOrThrow({ where: { id } });
    if (b.status !== "pending" && b.status !== "running") return null;
    return moveBackup(tx, b, "start", { startedAt: new Date() }, newId("evt"));
  });
  if (!started) return false;
  const dir = path.join(env().CAPSTAN_DATA_DIR, "tmp");
  const file = path.join(dir, `${id}.backup`);
  let failure: string | null = null;
  let stored: { sha256: string; bytes: number; kekId: string } | null = null;
  try {
    if (!resource.dbName || resource.status === "deleted") throw new Error("the database no longer exists");
    await mkdir(dir, { recursive: true });
    const dumped = await dumpEncrypted({ workspaceId: pre.workspaceId, backupId: id, database: resource.dbName, file });
    const blob = await backupBlobs(pre.workspaceId).putFile(file, "application/octet-stream");
    stored = { sha256: blob.sha256, bytes: dumped.bytes, kekId: dumped.kekId };
  } catch (err) {
    failure = scrub(String((err as Error)?.message ?? err));
  } finally {
    await rm(file, { force: true });
  }
  await ws.$transaction(async (tx) => {
    const b = await tx.managedResourceBackup.findUniqueOrThrow({ where: { id } });
    if (b.status !== "running") return;
    if (stored) {
      await moveBackup(
        tx,
        b,
        "complete",
        {
          blobSha256: stored.sha256,
          kekId: stored.kekId,
          sizeBytes: BigInt(stored.bytes),
          completedAt: new Date(),
          claimedUntil: null,
        },
        newId("evt"),
      );
    } else {
      await moveBackup(
        tx,
        b,
        "fail",
        { failureMessage: `The backup failed: ${failure}`, completedAt: new Date(), claimedUntil: null },
        newId("evt"),
      );
    }
  });
  logger.info("managed_resource.backup_finished", {
    backup_id: id,
    resource_id: pre.resourceId,
    ok: stored !== null,
    bytes: stored?.bytes ?? 0,
    error: failure,
  });
  return stored !== null;
}

export async function processRestores(limit = 5): Promise<number> {
  // platform-scoped: the claim spans every workspace's restores.
  const claimed = await db().$queryRaw<Array<{ id: string }>>`
    UPDATE "managed_resource_restores" SET "claimed_until" = now() + make_interval(secs => ${CLAIM_SECONDS})
     WHERE "id" IN (SELECT "id" FROM "managed_resource_restores"
        WHERE "status" IN ('pending', 'running') AND ("claimed_until" IS NULL OR "claimed_until" < now())
        ORDER BY "created_at" ASC LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING "id"`;
  for (const { id } of claimed)
    await runRestore(id).catch((err) =>
      logger.error("managed_resource.restore_crashed", { restore_id: id, error: scrub(String(err)) }),
    );
  return claimed.length;
}

async function runRestore(id: string): Promise<void> {
  // platform-scoped: a claimed row by id, to learn its workspace.
  const pre = await db().managedResourceRestore.findUniqueOrThrow({ where: { id } });
  const ws = scopedDb(pre.workspaceId);
  const target = await ws.managedResource.findUniqueOrThrow({ where: { id: pre.targetResourceId } });
  const fail = (message: string) =>
    ws.$transaction(async (tx) => {
      const r = await tx.managedResourceRestore.findUniqueOrThrow({ where: { id } });
      if (r.status === "pending" || r.status === "running")
        await moveRestore(
          tx,
          r,
          "fail",
          { failureMessage: message, completedAt: new Date(), claimedUntil: null },
          newId("evt"),
        );
    });
  if (target.status === "provisioning") {
    // A fork still being created: try again shortly.
    await ws.managedResourceRestore.update({ where: { id }, data: { claimedUntil: new Date(Date.now() + 2_000) } });
    return;
  }
  if (target.status !== "available" || !target.dbName || !target.roleName)
    return void (await fail(`The target resource ${target.name} is ${target.status}; nothing was restored.`));
  const backup = await ws.managedResourceBackup.findUniqueOrThrow({ where: { id: pre.backupId } });
  if (backup.status !== "completed" || !backup.blobSha256 || !backup.kekId)
    return void (await fail(`Backup ${backup.id} is ${backup.status}; nothing was restored.`));
  await ws.$transaction(async (tx) => {
    const r = await tx.managedResourceRestore.findUniqueOrThrow({ where: { id } });
    await moveRestore(tx, r, "start", { startedAt: new Date() }, newId("evt"));
  });
  try {
    // A backup made before backups had a scope of their own is in the shared store.
    const blob =
      (await backupBlobs(pre.workspaceId).get(backup.blobSha256)) ?? (await blobStore().get(backup.blobSha256));
    if (!blob) throw new Error(`the backup's bytes are missing from the blob store (${backup.blobSha256})`);
    // As the owner (named like the database), not the current login role: after a rotation that one only runs as the owner.
    await restoreEncrypted({
      workspaceId: pre.workspaceId,
      backupId: backup.id,
      kekId: backup.kekId,
      blob,
      database: target.dbName,
      role: target.dbName,
      clean: pre.mode === "in_place",
    });
  } catch (err) {
    return void (await fail(
      `The restore failed (the database was left as it was: the restore runs in one transaction): ${scrub(String((err as Error)?.message ?? err))}`,
    ));
  }
  await ws.$transaction(async (tx) => {
    const r = await tx.managedResourceRestore.findUniqueOrThrow({ where: { id } });
    if (r.status === "running")
      await moveRestore(tx, r, "complete", { completedAt: new Date(), claimedUntil: null }, newId("evt"));
  });
  logger.info("managed_resource.restored", { restore_id: id, target_resource_id: target.id, mode: pre.mode });
}

/** Asks for a scheduled backup of every available postgres resource whose last one is older than the interval. */
export async function scheduleBackups(now = new Date()): Promise<number> {
  const since = new Date(now.getTime() - env().CAPSTAN_MRES_BACKUP_INTERVAL_SECONDS * 1000);
  // platform-scoped: the schedule spans every workspace's resources.
  const due = await db().managedResource.findMany({
    where: {
      kind: "postgres",
      status: "available",
      backups: { none: { trigger: "scheduled", createdAt: { gte: since } } },
    },
    select: { id: true, workspaceId: true },
    take: 50,
  });
  for (const r of due) {
    await scopedDb(r.workspaceId).$transaction((tx) =>
      insertBackup(tx, {
        workspaceId: r.workspaceId,
        resourceId: r.id,
        trigger: "scheduled",
        createdBy: null,
        correlationId: newId("evt"),
      }),
    );
  }
  return due.length;
}

/**
 * Backups past their retention are expired, then their bytes are deleted. The
 * deletion follows the committed status (a crash in between leaves an expired
 * row that still names its blob, which the next pass deletes), and a blob
 * already gone is nothing to do, so it is safe to repeat.
 */
export async function expireBackups(now = new Date()): Promise<number> {
  // platform-scoped: the scan spans every workspace's backups.
  const old = await db().managedResourceBackup.findMany({
    where: { status: { in: ["completed", "failed"] }, expiresAt: { lt: now } },
    take: 100,
  });
  for (const b of old) {
    await scopedDb(b.workspaceId).$transaction(async (tx) => {
      const cur = await tx.managedResourceBackup.findUniqueOrThrow({ where: { id: b.id } });
      if (cur.status === "completed" || cur.status === "failed") await moveBackup(tx, cur, "expire", {}, newId("evt"));
    });
  }
  // platform-scoped: expired backups of every workspace whose blob is not deleted yet.
  const kept = await db().managedResourceBackup.findMany({
    where: { status: "expired", blobSha256: { not: null } },
    select: { id: true, workspaceId: true, blobSha256: true },
    take: 100,
  });
  for (const b of kept) await deleteBackupBlob(b.workspaceId, b.id, b.blobSha256!);
  return old.length;
}

async function deleteBackupBlob(workspaceId: string, id: string, sha256: string): Promise<void> {
  const ws = scopedDb(workspaceId);
  // Never the case (each blob is a ciphertext under a random IV), checked anyway: a live backup naming the same bytes keeps them.
  const shared = await ws.managedResourceBackup.count({
    where: { blobSha256: sha256, id: { not: id }, status: { not: "expired" } },
  });
  if (!shared) {
    const scope = backupBlobs(workspaceId);
    if (await scope.has(sha256)) await scope.delete(sha256);
    // Made before backups had a scope: a ciphertext bound to this backup (AAD) that no API returns, so nothing else names it.
    else await blobStore().delete(sha256);
  }
  await ws.managedResourceBackup.update({ where: { id }, data: { blobSha256: null, updatedAt: new Date() } });
  logger.info("managed_resource.backup_blob_deleted", { backup_id: id, workspace_id: workspaceId, kept: shared > 0 });
}

/**
 * Before a postgres resource's data is destroyed: a backup kept for the
 * retention period. True when one completed (now or earlier); the destroy
 * waits (and retries) otherwise, so no data goes without its backup.
 *
 * The backup is run here only under its lease, as the backup worker runs it:
 * a new one is made already claimed, an open one is claimed first, and one
 * another run holds is left to it (false: the destroy retries and finds it
 * completed). Two runs of one backup dump into the same file and the first to
 * finish deletes it under the other, so the backup would fail and hold up the
 * destroy (seen in the e2e of the console's resources).
 */
export async function backupBeforeDestroy(workspaceId: string, resourceId: string): Promise<boolean> {
  const ws = scopedDb(workspaceId);
  const done = await ws.managedResourceBackup.findFirst({
    where: { resourceId, trigger: "pre_destroy", status: "completed" },
    select: { id: true },
  });
  if (done) return true;
  const open = await ws.managedResourceBackup.findFirst({
    where: { resourceId, trigger: "pre_destroy", status: { in: ["pending", "running"] } },
  });
  if (open) return (await claimBackup(workspaceId, open.id)) && runBackup(open.id);
  const row = await ws.$transaction((tx) =>
    insertBackup(tx, {
      workspaceId,
      resourceId,
      trigger: "pre_destroy",
      createdBy: null,
      correlationId: newId("evt"),
      claimSeconds: CLAIM_SECONDS,
    }),
  );
  return runBackup(row.id);
}

/** Takes an open backup's lease, as processBackups does; false while another run holds it. */
async function claimBackup(workspaceId: string, id: string): Promise<boolean> {
  const now = new Date();
  const { count } = await scopedDb(workspaceId).managedResourceBackup.updateMany({
    where: {
      id,
      status: { in: ["pending", "running"] },
      OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
    },
    data: { claimedUntil: new Date(now.getTime() + CLAIM_SECONDS * 1000) },
  });
  return count === 1;
}
