import { storeEvidenceFile } from "./evidence.service";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { iso } from "@/server/platform/time";

/**
 * Stores uploaded bytes content-addressed and returns an evidence reference
 * (spec 2.1). The bytes arrive as a file the transport streamed the body into,
 * and stream on to the blob store: an upload is never in memory whole.
 */
export async function createUpload(
  userId: string,
  workspaceId: string,
  upload: { path: string; size: number },
  contentType: string,
) {
  if (upload.size === 0) {
    throw new AppError("validation_failed", "An upload needs a non-empty body", {
      errors: [{ path: "/", message: "empty body" }],
    });
  }
  const blob = await storeEvidenceFile(workspaceId, upload.path, contentType);
  const row = await scopedDb(workspaceId).upload.create({
    data: {
      id: newId("upl"),
      workspaceId,
      uri: blob.uri,
      sha256: blob.sha256,
      sizeBytes: BigInt(blob.size_bytes),
      contentType: contentType.slice(0, 255),
      createdBy: userId,
    },
  });
  return {
    id: row.id,
    workspace_id: workspaceId,
    uri: row.uri,
    sha256: row.sha256,
    size_bytes: Number(row.sizeBytes),
    content_type: row.contentType,
    created_at: iso(row.createdAt),
  };
}
