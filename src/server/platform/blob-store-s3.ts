import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import {
  blobCorrupt,
  blobStoreUnavailable,
  blobUri,
  hashFile,
  SCOPE_NAME,
  SHA256,
  type BlobStore,
  type TEvidence,
} from "./blob-store.types";
import { sha256Hex } from "./crypto";
import { AppError } from "./errors";
import { logger } from "./logger";

/**
 * The platform blob store on an S3-compatible bucket (AWS S3, MinIO, R2, Ceph,
 * ...), shared by every replica. Object key `<prefix>sha256/ab/cd/<sha256>`
 * (the filesystem layout), the sha256 also kept as metadata `x-amz-meta-sha256`.
 *
 * - Credentials: the AWS SDK's default chain (AWS_ACCESS_KEY_ID /
 *   AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE and shared files,
 *   web identity, ECS / EC2 instance roles); nothing of it is configured here.
 * - Writes: HEAD first (an object of the right size at the address is the same
 *   blob: `created: false`), then @aws-sdk/lib-storage's Upload, which sends
 *   one PUT up to PART_SIZE and a multipart upload beyond it, holding at most
 *   QUEUE_SIZE parts in memory; files are read as a stream. A failed multipart
 *   upload is aborted at once or, while the store is down, before a later
 *   write (abortOrphans); keep a bucket lifecycle rule that aborts incomplete
 *   multipart uploads for a process that dies in between.
 * - Reads hash the body as it arrives and refuse bytes that do not match the
 *   address (503 blob_corrupt).
 * - No hang: connect 3 s, socket idle 15 s, 30 s per single-request
 *   operation, 3 attempts with the SDK's backoff; anything that is not an
 *   answer (refused, reset, timeout, 5xx, 4xx such as AccessDenied or
 *   NoSuchBucket) is 503 blob_store_unavailable naming the S3 status and code
 *   (never S3's message, never credentials).
 */
export type TS3BlobConfig = {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
};

export const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
const CONNECT_TIMEOUT_MS = 3_000;
const SOCKET_TIMEOUT_MS = 15_000;
const OPERATION_TIMEOUT_MS = 30_000;
const MAX_ORPHANS = 1_000;

type TSdk = typeof import("@aws-sdk/client-s3");
type TSdkError = { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };

export class S3BlobStore implements BlobStore {
  readonly kind = "s3" as const;
  private readonly prefix: string;
  private sdk?: Promise<{ s3: TSdk; client: S3Client }>;

  constructor(readonly cfg: TS3BlobConfig) {
    this.prefix = cfg.prefix && !cfg.prefix.endsWith("/") ? `${cfg.prefix}/` : cfg.prefix;
  }

  /** The object key of a blob. */
  keyOf(sha256: string): string {
    return `${this.prefix}sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
  }

  // The SDK loads on first use, so a process on the filesystem store never loads it.
  private load(): Promise<{ s3: TSdk; client: S3Client }> {
    this.sdk ??= import("@aws-sdk/client-s3").then((s3) => ({
      s3,
      client: new s3.S3Client({
        region: this.cfg.region,
        ...(this.cfg.endpoint ? { endpoint: this.cfg.endpoint } : {}),
        forcePathStyle: this.cfg.forcePathStyle,
        maxAttempts: 3,
        // Many S3-compatible services reject the SDK's default CRC32 trailers (aws-chunked); payloads stay SigV4-signed.
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
        requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: SOCKET_TIMEOUT_MS },
      }),
    }));
    this.sdk.catch(() => {
      this.sdk = undefined;
    });
    return this.sdk;
  }

  async put(bytes: Buffer, contentType?: string): Promise<TEvidence & { created: boolean }> {
    return this.upload(sha256Hex(bytes), bytes.length, () => bytes, contentType);
  }

  async putFile(filePath: string, contentType?: string): Promise<TEvidence & { created: boolean }> {
    const { sha256, size } = await hashFile(filePath);
    return this.upload(sha256, size, () => createReadStream(filePath), contentType);
  }

  private async upload(
    sha256: string,
    size: number,
    body: () => Buffer | Readable,
    contentType?: string,
  ): Promise<TEvidence & { created: boolean }> {
    const evidence = { uri: blobUri(sha256), sha256, size_bytes: size };
    const Key = this.keyOf(sha256);
    if ((await this.headSize(Key)) === size) return { ...evidence, created: false };
    const { s3, client } = await this.loadOrFail();
    await this.abortOrphans(s3, client);
    const { Upload } = await import("@aws-sdk/lib-storage");
    const stream = body();
    const up = new Upload({
      // Parts of a failed upload are aborted by abortOrphans (lib-storage's own abort fails too while the store is down).
      client,
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: true,
      params: {
        Bucket: this.cfg.bucket,
        Key,
        Body: stream,
        ContentLength: size,
        ContentType: contentType ?? "application/octet-stream",
        Metadata: { sha256 },
      },
    });
    try {
      await up.done();
    } catch (err) {
      if (up.uploadId && this.orphans.length < MAX_ORPHANS) this.orphans.push({ Key, UploadId: up.uploadId });
      await this.abortOrphans(s3, client);
      throw this.mapError(err, "write");
    } finally {
      if (typeof (stream as Readable).destroy === "function") (stream as Readable).destroy();
    }
    return { ...evidence, created: true };
  }

  /** The stored object's size, or null when there is none. */
  private async headSize(Key: string): Promise<number | null> {
    const { s3, client } = await this.loadOrFail();
    try {
      const head = await client.send(new s3.HeadObjectCommand({ Bucket: this.cfg.bucket, Key }), deadline());
      return Number(head.ContentLength ?? -1);
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw this.mapError(err, "head");
    }
  }

  /**
   * Multipart uploads that failed (their parts cost storage until aborted):
   * aborted right away, and again before later writes while the store was
   * down. Best effort; the bucket's lifecycle rule is the backstop.
   */
  private orphans: Array<{ Key: string; UploadId: string }> = [];
  private async abortOrphans(s3: TSdk, client: S3Client): Promise<void> {
    for (const o of [...this.orphans]) {
      try {
        await client.send(new s3.AbortMultipartUploadCommand({ Bucket: this.cfg.bucket, ...o }), {
          abortSignal: AbortSignal.timeout(5_000),
        });
      } catch (err) {
        if (statusOf(err) !== 404) return; // still down: later
      }
      this.orphans = this.orphans.filter((x) => x !== o);
    }
  }

  async get(sha256: string): Promise<Buffer | null> {
    if (!SHA256.test(sha256)) return null;
    const { s3, client } = await this.loadOrFail();
    let res;
    try {
      res = await client.send(
        new s3.GetObjectCommand({ Bucket: this.cfg.bucket, Key: this.keyOf(sha256) }),
        deadline(),
      );
    } catch (err) {
      if (statusOf(err) === 404 || (err as TSdkError).name === "NoSuchKey") return null;
      throw this.mapError(err, "read");
    }
    const h = createHash("sha256");
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of res.Body as Readable) {
        h.update(chunk as Buffer);
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      throw this.mapError(err, "read");
    }
    if (h.digest("hex") !== sha256) throw blobCorrupt(sha256);
    return Buffer.concat(chunks);
  }

  async delete(sha256: string): Promise<void> {
    if (!SHA256.test(sha256)) return;
    const { s3, client } = await this.loadOrFail();
    try {
      await client.send(new s3.DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: this.keyOf(sha256) }), deadline());
    } catch (err) {
      if (statusOf(err) === 404 || (err as TSdkError).name === "NoSuchKey") return;
      throw this.mapError(err, "delete");
    }
  }

  async has(sha256: string): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    return (await this.headSize(this.keyOf(sha256))) !== null;
  }

  private scoped = false;
  private readonly scopes = new Map<string, S3BlobStore>();
  scope(name: string): BlobStore {
    if (!SCOPE_NAME.test(name)) throw new Error(`not a blob scope name: ${name}`);
    let store = this.scopes.get(name);
    if (!store) {
      store = new S3BlobStore({ ...this.cfg, prefix: `${this.prefix}scopes/${name}/` });
      store.scoped = true;
      // One SDK client for the store and its scopes.
      store.sdk = this.load();
      this.scopes.set(name, store);
    }
    return store;
  }

  /**
   * Lists the scope's keys a page (1000) at a time and deletes them one by one,
   * 16 at once (DeleteObjects needs a Content-MD5 or checksum header that not
   * every S3-compatible service accepts).
   */
  async deleteAll(): Promise<number> {
    if (!this.scoped) throw new Error("the shared store is never emptied");
    const { s3, client } = await this.loadOrFail();
    let removed = 0;
    let token: string | undefined;
    try {
      do {
        const page = await client.send(
          new s3.ListObjectsV2Command({ Bucket: this.cfg.bucket, Prefix: this.prefix, ContinuationToken: token }),
          deadline(),
        );
        const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        for (let i = 0; i < keys.length; i += 16) {
          await Promise.all(
            keys
              .slice(i, i + 16)
              .map((k) => client.send(new s3.DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: k.Key }), deadline())),
          );
        }
        removed += keys.length;
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw this.mapError(err, "delete");
    }
    return removed;
  }

  private async loadOrFail() {
    return this.load().catch((err: unknown) => {
      throw blobStoreUnavailable("the S3 client could not be loaded", err);
    });
  }

  private mapError(err: unknown, op: string): AppError {
    if (err instanceof AppError) return err;
    const e = err as TSdkError;
    const status = e.$metadata?.httpStatusCode;
    const code = e.name && e.name !== "Error" && e.name !== "Unknown" ? e.name : (e.code ?? "error");
    const what = status === undefined ? `S3 ${op}: unreachable (${code})` : `S3 ${op}: ${status} ${code}`;
    logger.warn("blob_store.unavailable", { op, status: status ?? null, code, bucket: this.cfg.bucket });
    return blobStoreUnavailable(what, err);
  }
}

const statusOf = (err: unknown) => (err as TSdkError).$metadata?.httpStatusCode;
const deadline = () => ({ abortSignal: AbortSignal.timeout(OPERATION_TIMEOUT_MS) });
