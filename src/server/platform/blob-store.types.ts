import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { AppError } from "./errors";

/** Where a blob is and what it is: its address (blob:sha256:…), sha256 and size (spec 2.1's evidence reference). */
export type TEvidence = { uri: string; sha256: string; size_bytes: number };

/**
 * Content-addressed blob storage (snapshots, uploads, invocation bodies, build
 * logs, evidence). A blob's address is the sha256 of its bytes, so writing the
 * same bytes twice stores them once and the evidence reference (spec 2.1) is
 * stable. Two implementations: the filesystem (embedded default) and an
 * S3-compatible bucket (blob-store-s3.ts, chosen by CAPSTAN_BLOB_S3_BUCKET),
 * which several replicas share. Every read verifies the sha256.
 *
 * Failures are domain errors, never a stack: a store that cannot be reached is
 * 503 `blob_store_unavailable` (with Retry-After), bytes that do not match
 * their address are 503 `blob_corrupt`, a blob a record points at that the
 * store does not have is 503 `blob_missing` (raised by the callers that know
 * a record points at it).
 */
export interface BlobStore {
  readonly kind: "fs" | "s3";
  /** Stores the bytes; `created` is false when a blob with this sha256 already existed. */
  put(bytes: Buffer, contentType?: string): Promise<TEvidence & { created: boolean }>;
  /** Stores a file's bytes, streaming (never the whole file in memory). */
  putFile(filePath: string, contentType?: string): Promise<TEvidence & { created: boolean }>;
  /** The bytes, or null when absent (or when `sha256` is not a sha256). */
  get(sha256: string): Promise<Buffer | null>;
  has(sha256: string): Promise<boolean>;
  /** Removes the blob (absent: nothing to do). Only retention calls it, after checking nothing else refers to it. */
  delete(sha256: string): Promise<void>;
  /**
   * A store of its own under `scopes/<name>/` (a managed bucket's objects): its
   * blobs are content-addressed within the scope only, so no other scope and
   * no shared record can refer to them, and its owner may delete one once its
   * own records no longer name it.
   */
  scope(name: string): BlobStore;
  /** Removes every blob of this scope (the bucket was destroyed); the number removed. Only on a scope. */
  deleteAll(): Promise<number>;
}

export const SCOPE_NAME = /^[a-z0-9_]{1,64}$/;

export const SHA256 = /^[0-9a-f]{64}$/;

export function blobUri(sha256: string): string {
  return `blob:sha256:${sha256}`;
}

/** The store cannot be reached or answered with a server error: 503 with Retry-After; the caller may retry. */
export function blobStoreUnavailable(what: string, cause?: unknown): AppError {
  return new AppError("unavailable", `The blob store is unavailable (${what}); retry shortly`, {
    reason: "blob_store_unavailable",
    headers: { "retry-after": "5" },
    cause,
  });
}

export function blobCorrupt(sha256: string): AppError {
  return new AppError(
    "unavailable",
    `Blob ${sha256} is corrupt in the blob store (its content does not match its address)`,
    { reason: "blob_corrupt" },
  );
}

export function blobMissing(sha256: string): AppError {
  return new AppError("unavailable", `Blob ${sha256} is recorded but missing from the blob store`, {
    reason: "blob_missing",
  });
}

export function isBlobStoreOutage(err: unknown): boolean {
  return err instanceof AppError && err.reason === "blob_store_unavailable";
}

/** sha256 and size of a file, read as a stream. */
export async function hashFile(filePath: string): Promise<{ sha256: string; size: number }> {
  const h = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(filePath)) {
    h.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: h.digest("hex"), size };
}
