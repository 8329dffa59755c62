import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { TEvidence } from "@/server/domain/source/source.types";
import { sha256Hex } from "./crypto";
import { env } from "./env";

/**
 * Content-addressed blob storage (snapshots, uploads, invocation bodies).
 * A blob's address is the sha256 of its bytes, so writing the same bytes
 * twice stores them once and the evidence reference (spec 2.1) is stable.
 */
export interface BlobStore {
  /** Stores the bytes; `created` is false when a blob with this sha256 already existed. */
  put(bytes: Buffer, contentType?: string): Promise<TEvidence & { created: boolean }>;
  /** The bytes, or null when absent (or when `sha256` is not a sha256). */
  get(sha256: string): Promise<Buffer | null>;
  has(sha256: string): Promise<boolean>;
}

const SHA256 = /^[0-9a-f]{64}$/;

export function blobUri(sha256: string): string {
  return `blob:sha256:${sha256}`;
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
  constructor(readonly rootDir: string) {}

  private pathFor(sha256: string): string {
    return path.join(this.rootDir, "sha256", sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(bytes: Buffer, _contentType?: string): Promise<TEvidence & { created: boolean }> {
    const sha256 = sha256Hex(bytes);
    const evidence = { uri: blobUri(sha256), sha256, size_bytes: bytes.length };
    const final = this.pathFor(sha256);
    const existing = await stat(final).catch(() => null);
    // A same-address file of another size is a torn write from a crashed older version: replace it.
    if (existing?.isFile() && existing.size === bytes.length) return { ...evidence, created: false };

    const tmpDir = path.join(this.rootDir, "tmp");
    await mkdir(tmpDir, { recursive: true });
    await mkdir(path.dirname(final), { recursive: true });
    const tmp = path.join(tmpDir, `${sha256}.${randomBytes(8).toString("hex")}`);
    try {
      const fh = await open(tmp, "wx", 0o644);
      try {
        await fh.writeFile(bytes);
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
    if (sha256Hex(bytes) !== sha256) throw new Error(`blob ${sha256} is corrupt (content does not match its address)`);
    return bytes;
  }

  async has(sha256: string): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    const s = await stat(this.pathFor(sha256)).catch(() => null);
    return s?.isFile() ?? false;
  }
}

let shared: FsBlobStore | undefined;

/**
 * The process-wide store under `CAPSTAN_DATA_DIR/blobs`. Re-created when the
 * data directory changes (tests switch it per file).
 * An S3-compatible store (a later issue) plugs in here: choose it from env
 * (bucket, endpoint) and return it instead; callers only see `BlobStore`.
 */
export function blobStore(): BlobStore {
  const root = path.resolve(env().CAPSTAN_DATA_DIR, "blobs");
  if (!shared || shared.rootDir !== root) shared = new FsBlobStore(root);
  return shared;
}
