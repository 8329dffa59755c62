import type { Prisma } from "@/generated/prisma/client";
import { blobStore, type BlobStore } from "@/server/platform/blob-store";
import { scopedDb } from "@/server/platform/db/scoped";
import { logger } from "@/server/platform/logger";

/**
 * A managed bucket's objects (docs/decisions.md "Limits"): keys
 * in `storage_objects` (owner = the resource id), bytes in the bucket's own
 * blob scope (`scopes/<resource id>/`), content-addressed within it. Nothing
 * outside the bucket can refer to a blob of its scope, so a blob is deleted
 * once no key of the bucket names it: when an object is deleted, when it is
 * overwritten with other bytes, and all of them when the bucket is destroyed.
 *
 * Races: a PUT and a DELETE of one key are serialised by an advisory lock on
 * (bucket, key); the "is this blob still named?" check and the blob's removal
 * run under an advisory lock on (bucket, sha256) that a PUT of the same bytes
 * also takes before it commits its key, re-storing the blob if a removal got
 * there first. A crash between a key's removal and its blob's leaves a blob
 * nobody names (storage leaked, never data lost).
 *
 * Objects written before scopes existed live in the shared store: they are
 * still read from there (a fallback) and never deleted from it.
 */
export const MAX_OBJECT_BYTES = 32 * 1024 * 1024;

type TTx = Prisma.TransactionClient;
const store = (resourceId: string): BlobStore => blobStore().scope(resourceId);
const lock = (tx: TTx, ...parts: string[]) =>
  tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`mres-object:${parts.join(":")}`}, 0))`;

export type TObjectMeta = { key: string; sha256: string; sizeBytes: number; contentType: string; updatedAt: Date };

export async function putObject(
  workspaceId: string,
  resourceId: string,
  key: string,
  bytes: Buffer,
  contentType: string,
): Promise<TObjectMeta> {
  const scoped = store(resourceId);
  const blob = await scoped.put(bytes, contentType);
  const where = { workspaceId_productId_key: { workspaceId, productId: resourceId, key } };
  const { previous, row } = await scopedDb(workspaceId).$transaction(async (tx) => {
    await lock(tx, resourceId, "key", key);
    await lock(tx, resourceId, "sha", blob.sha256);
    // A DELETE of another key with the same bytes may have removed the blob since it was stored above.
    if (!(await scoped.has(blob.sha256))) await scoped.put(bytes, contentType);
    const prev = await tx.storageObject.findUnique({ where, select: { sha256: true } });
    const size = BigInt(bytes.length);
    const row = await tx.storageObject.upsert({
      where,
      create: { workspaceId, productId: resourceId, key, sha256: blob.sha256, sizeBytes: size, contentType },
      update: { sha256: blob.sha256, sizeBytes: size, contentType, updatedAt: new Date() },
    });
    return { previous: prev && prev.sha256 !== blob.sha256 ? prev.sha256 : null, row };
  });
  // Overwritten with other bytes: the old blob goes unless another key names it.
  if (previous) await release(workspaceId, resourceId, previous);
  return {
    key,
    sha256: row.sha256,
    sizeBytes: Number(row.sizeBytes),
    contentType: row.contentType,
    updatedAt: row.updatedAt,
  };
}

export async function getObject(
  workspaceId: string,
  resourceId: string,
  key: string,
): Promise<(TObjectMeta & { bytes: Buffer }) | null> {
  const row = await scopedDb(workspaceId).storageObject.findUnique({
    where: { workspaceId_productId_key: { workspaceId, productId: resourceId, key } },
  });
  if (!row) return null;
  const bytes = (await store(resourceId).get(row.sha256)) ?? (await blobStore().get(row.sha256));
  if (!bytes) return null;
  return {
    key,
    sha256: row.sha256,
    sizeBytes: Number(row.sizeBytes),
    contentType: row.contentType,
    updatedAt: row.updatedAt,
    bytes,
  };
}

/** Removes a key and, when no other key of the bucket names its bytes, the blob; false when there was no such key. */
export async function deleteObject(workspaceId: string, resourceId: string, key: string): Promise<boolean> {
  const gone = await scopedDb(workspaceId).$transaction(async (tx) => {
    await lock(tx, resourceId, "key", key);
    const row = await tx.storageObject.findUnique({
      where: { workspaceId_productId_key: { workspaceId, productId: resourceId, key } },
      select: { sha256: true },
    });
    if (!row) return null;
    await tx.storageObject.delete({
      where: { workspaceId_productId_key: { workspaceId, productId: resourceId, key } },
    });
    return row.sha256;
  });
  if (gone) await release(workspaceId, resourceId, gone);
  return gone !== null;
}

/** Deletes the blob of the bucket's scope when no key of the bucket names it any more. */
async function release(workspaceId: string, resourceId: string, sha256: string): Promise<void> {
  try {
    await scopedDb(workspaceId).$transaction(
      async (tx) => {
        await lock(tx, resourceId, "sha", sha256);
        const named = await tx.storageObject.count({ where: { productId: resourceId, sha256 } });
        if (named === 0) await store(resourceId).delete(sha256);
      },
      { timeout: 30_000 },
    );
  } catch (err) {
    // The key is gone either way; the blob is leaked storage, not lost data.
    logger.warn("managed_resource.blob_release_failed", { resource_id: resourceId, sha256, error: String(err) });
  }
}

/** The bucket was destroyed: every key, then every blob of its scope. */
export async function destroyBucket(workspaceId: string, resourceId: string): Promise<void> {
  await scopedDb(workspaceId).storageObject.deleteMany({ where: { productId: resourceId } });
  const removed = await store(resourceId).deleteAll();
  logger.info("managed_resource.bucket_emptied", { resource_id: resourceId, blobs: removed });
}
