import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { copyFile, mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "./crypto";
import { env } from "./env";
import { S3BlobStore } from "./blob-store-s3";
import { blobCorrupt, blobUri, hashFile, SCOPE_NAME, SHA256, type BlobStore, type TEvidence } from "./blob-store.types";

export * from "./blob-store.types";

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
    sha256: string,
    size: number,
    write: ((fh: import("node:fs/promises").FileHandle) => Promise<void>) | undefined,
    from?: string,
    retried = false,
  ): Promise<TEvidence & { created: boolean }> {
    const evidence = { uri: blobUri(sha256), sha256, size_bytes: size };
    const final = this.pathFor(sha256);
    // Synchronous on purpose: a metadata lookup the kernel answers from its directory cache, where the thread pool's
    // round trip (a wake-up of another thread on every put, two per invocation) cost more than the lookup itself.
    const existing = statSync(final, { throwIfNoEntry: false });
    // A same-address file of another size is a torn write from a crashed older version: replace it.
    if (existing?.isFile() && existing.size === size) return { ...evidence, created: false };

    const tmpDir = path.join(this.rootDir, "tmp");
    await this.ensureDir(tmpDir);
    await this.ensureDir(path.dirname(final));
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
      // A directory removed behind the store's back (it remembered it made it): make it again, once.
      if ((err as NodeJS.ErrnoException).code === "ENOENT" && this.dirs.size && !retried) {
        this.dirs.clear();
        return this.place(sha256, size, write, from, true);
      }
      throw err;
    }
    return { ...evidence, created: true };
  }

  // Directories this store made (or found) already: a put does not ask for them again. deleteAll forgets them.
  private dirs = new Set<string>();
  private async ensureDir(dir: string): Promise<void> {
    if (this.dirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.dirs.add(dir);
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

  async delete(sha256: string): Promise<void> {
    if (!SHA256.test(sha256)) return;
    await rm(this.pathFor(sha256), { force: true });
  }

  private scoped = false;
  scope(name: string): BlobStore {
    if (!SCOPE_NAME.test(name)) throw new Error(`not a blob scope name: ${name}`);
    const store = new FsBlobStore(path.join(this.rootDir, "scopes", name));
    store.scoped = true;
    return store;
  }

  async deleteAll(): Promise<number> {
    if (!this.scoped) throw new Error("the shared store is never emptied");
    const dir = path.join(this.rootDir, "sha256");
    const files = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    this.dirs.clear();
    await rm(this.rootDir, { recursive: true, force: true });
    return files.filter((f) => f.isFile()).length;
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
      bucket: e.CAPSTAN_BLOB_S3_BUCKET,
      prefix: e.CAPSTAN_BLOB_S3_PREFIX,
      endpoint: e.CAPSTAN_BLOB_S3_ENDPOINT,
      region: e.CAPSTAN_BLOB_S3_REGION,
      forcePathStyle: e.CAPSTAN_BLOB_S3_FORCE_PATH_STYLE,
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
