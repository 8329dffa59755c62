import { blobMissing, blobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { notFound } from "@/server/platform/errors";
import type { TEvidence } from "./source.types";

/**
 * Evidence a workspace may download: every blob it uploaded or that Capstan
 * stored on its behalf (invocation bodies and logs, build logs, health
 * attempts). A sha256 another workspace stored is a 404 here even when the
 * bytes exist: content addressing must not become a way to probe others' data.
 */
export async function storeEvidence(workspaceId: string, bytes: Buffer, contentType: string): Promise<TEvidence> {
  const b = await blobStore().put(bytes, contentType);
  await grant(workspaceId, b.sha256, contentType);
  return { uri: b.uri, sha256: b.sha256, size_bytes: b.size_bytes };
}

/** A blob the caller grants itself in the statement that references it (see TEvidenceGrant). */
export async function putEvidence(bytes: Buffer, contentType: string): Promise<TEvidence> {
  const b = await blobStore().put(bytes, contentType);
  return { uri: b.uri, sha256: b.sha256, size_bytes: b.size_bytes };
}

/** A workspace's read access to a stored blob, for a caller that writes it with its own record (evidenceGrantsSql). */
export type TEvidenceGrant = { sha256: string; contentType: string };

/** As storeEvidence, from a file streamed to the store (uploads of any size). */
export async function storeEvidenceFile(
  workspaceId: string,
  filePath: string,
  contentType: string,
): Promise<TEvidence> {
  const b = await blobStore().putFile(filePath, contentType);
  await grant(workspaceId, b.sha256, contentType);
  return { uri: b.uri, sha256: b.sha256, size_bytes: b.size_bytes };
}

export async function readEvidence(
  workspaceId: string,
  sha256: string,
): Promise<{ bytes: Buffer; contentType: string }> {
  const row = /^[0-9a-f]{64}$/.test(sha256)
    ? await scopedDb(workspaceId).workspaceBlob.findUnique({ where: { workspaceId_sha256: { workspaceId, sha256 } } })
    : null;
  if (!row) throw notFound(`Evidence ${sha256.slice(0, 64)}`);
  // Granted means stored: a blob the store does not have is the store's fault (503), not the caller's (404).
  const bytes = await blobStore().get(sha256);
  if (!bytes) throw blobMissing(sha256);
  return { bytes, contentType: row.contentType };
}

/** Grants the workspace read access to blobs stored for it elsewhere (the runner's build logs). */
export async function claimEvidence(
  workspaceId: string,
  items: Array<{ evidence: TEvidence | null; contentType: string }>,
): Promise<void> {
  for (const { evidence, contentType } of items) if (evidence) await grant(workspaceId, evidence.sha256, contentType);
}

/** One statement, so concurrent writers of the same bytes do not race (Prisma's upsert is read-then-write). */
async function grant(workspaceId: string, sha256: string, contentType: string): Promise<void> {
  // Raw SQL on purpose: one statement (no upsert race); it names the workspace itself.
  await db().$executeRaw`
    INSERT INTO workspace_blobs (workspace_id, sha256, content_type) VALUES (${workspaceId}, ${sha256}, ${contentType.slice(0, 255)})
    ON CONFLICT DO NOTHING`;
}
