import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { TEvidence } from "@/server/domain/source/source.types";
import { sha256Hex } from "./crypto";
import { env } from "./env";
import { AppError } from "./errors";
import { S3BlobStore } from "./blob-store-s3";

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
}

export const SHA256 = /^[0-9a-f]{64}$/;

export function blobUri(sha256: string): string {
  return `blob:sha256:${sha256}`;
}

/** The store cannot be reached or answered with a server error: 503 with Retry-After; the caller may retry. */
export function blobStoreUnavailable(what: string, cause?: unknown): AppError {
  return new AppError("unavailable", `The blob store is unavailable (${what}); retry shortly`, {
    reason: "blob_store_unavailable", headers: { "retry-after": "5" }, cause,
  });
}

export function blobCorrupt(sha256: string): AppError {
  return new AppError("unavailable", `Blob ${sha256} is corrupt in the blob store (its content does not match its address)`, { reason: "blob_corrupt" });
}

export function blobMissing(sha256: string): AppError {
  return new AppError("unavailable", `Blob ${sha256} is recorded but missing from the blob store`, { reason: "blob_missing" });
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

/**
 * Filesystem store: `<root>/sha256/ab/cd/<sha256>`. Writes go to a temp file
 * in `<root>/tmp` (same filesystem), are fsynced, then renamed into place, so
 * a reader never sees a partial blob and concurrent writers of the same bytes
 * both end with the same complete file. The content type is not kept: the
 * evidence reference does not carry one, callers that need it store it
 * beside the reference (uploads do).
 */
export class FsBlobStore implements BlobStore {
  readonly kind = "fs" as const;
  constructor(readonly rootDir: string) {}

  private pathFor(sha256: string): string {
    return path.join(this.rootDir, "sha256", sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(bytes: Buffer, _contentType?: string): Promise<TEvidence & { created: boolean }> {
    return this.place(sha256Hex(bytes), bytes.length, async (fh) => {
      await fh.writeFile(bytes);
    });
  }

  async putFile(filePath: string, _contentType?: string): Promise<TEvidence & { created: boolean }> {
    const { sha256, size } = await hashFile(filePath);
    return this.place(sha256, size, undefined, filePath);
  }

  private async place(
    sha256: string, size: number, write: ((fh: import("node:fs/promises").FileHandle) => Promise<void>) | undefined, from?: string,
  ): Promise<TEvidence & { created: boolean }> {
    const evidence = { uri: blobUri(sha256), sha256, size_bytes: size };
    const final = this.pathFor(sha256);
    const existing = await stat(final).catch(() => null);
    // A same-address file of another size is a torn write from a crashed older version: replace it.
    if (existing?.isFile() && existing.size === size) return { ...evidence, created: false };

    const tmpDir = path.join(this.rootDir, "tmp");
    await mkdir(tmpDir, { recursive: true });
    await mkdir(path.dirname(final), { recursive: true });
    const tmp = path.join(tmpDir, `${sha256}.${randomBytes(8).toString("hex")}`);
    try {
      if (from) await copyFile(from, tmp);
      const fh = await open(tmp, from ? "r+" : "wx", 0o644);
      try {
        if (write) await write(fh);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, final);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return { ...evidence, created: true };
  }

  async get(sha256: string): Promise<Buffer | null> {
    if (!SHA256.test(sha256)) return null;
    let bytes: Buffer;
    try {
      bytes = await readFile(this.pathFor(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
    // Content addressing is only worth something if it is checked on the way out.
    if (sha256Hex(bytes) !== sha256) throw blobCorrupt(sha256);
    return bytes;
  }

  async has(sha256: string): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    const s = await stat(this.pathFor(sha256)).catch(() => null);
    return s?.isFile() ?? false;
  }
}

const g = globalThis as unknown as { __capstanBlobStore?: { key: string; store: BlobStore } };

/**
 * The process-wide store: an S3-compatible bucket when CAPSTAN_BLOB_S3_BUCKET
 * is set, else the filesystem under `CAPSTAN_DATA_DIR/blobs`. Re-created when
 * its configuration changes (tests switch it per file).
 */
export function blobStore(): BlobStore {
  const e = env();
  if (e.CAPSTAN_BLOB_S3_BUCKET) {
    const cfg = {
      bucket: e.CAPSTAN_BLOB_S3_BUCKET, prefix: e.CAPSTAN_BLOB_S3_PREFIX, endpoint: e.CAPSTAN_BLOB_S3_ENDPOINT,
      region: e.CAPSTAN_BLOB_S3_REGION, forcePathStyle: e.CAPSTAN_BLOB_S3_FORCE_PATH_STYLE,
    };
    const key = `s3:${JSON.stringify(cfg)}`;
    if (g.__capstanBlobStore?.key !== key) {
      g.__capstanBlobStore = { key, store: new S3BlobStore(cfg) };
    }
    return g.__capstanBlobStore.store;
  }
  const root = path.resolve(e.CAPSTAN_DATA_DIR, "blobs");
  const key = `fs:${root}`;
  if (g.__capstanBlobStore?.key !== key) g.__capstanBlobStore = { key, store: new FsBlobStore(root) };
  return g.__capstanBlobStore.store;
}
