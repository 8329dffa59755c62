import { createHash } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { S3Client } from "@aws-sdk/client-s3";
import { checkEgressLiteral, egressBlocked, guardedLookup } from "@/server/platform/egress";
import { ProviderError } from "./types";
import { fieldText } from "@/server/platform/body";

/**
 * storage.object on an S3-compatible service (AWS S3, MinIO, R2, Ceph...)
 * through @aws-sdk/client-s3, loaded lazily on the first S3 call so the
 * Bridge's other capabilities never load the SDK.
 *
 * - Connection: the binding's `provider_config` {endpoint, bucket, region
 *   (default us-east-1)}, path-style addressing, SigV4. The credential secret
 *   is `ACCESS_KEY_ID:SECRET_ACCESS_KEY` (optionally `:SESSION_TOKEN`), split
 *   at the first two colons.
 * - Keys: the object key of Bridge key `/a/b` for product `prod_x` is
 *   `prod_x/a/b`, so products sharing a bucket never see each other's
 *   objects; list maps keys back.
 * - Output shapes equal the platform store's: the sha256 is computed on write
 *   and kept as object metadata `x-amz-meta-sha256` (list reads it with a HEAD
 *   per listed object; an object written around Capstan has none: null), on
 *   read it is computed from the bytes. `deleted` is whether the object
 *   existed (HEAD before DELETE). The list cursor is S3's continuation token.
 * - Limits: connect 5 s, socket idle 20 s, 30 s per operation, 2 attempts.
 * - Egress: the endpoint's host must resolve to public addresses only (the
 *   egress guard, unless CAPSTAN_PROVIDER_ALLOW_PRIVATE), else "unavailable".
 * - Errors: connection errors, timeouts, 5xx, 429, SlowDown, RequestTimeout
 *   -> ProviderError("unavailable"); other 3xx/4xx (AccessDenied,
 *   NoSuchBucket, InvalidAccessKeyId, SignatureDoesNotMatch...) ->
 *   ProviderError("rejected"); NoSuchKey on read -> found: false. Details name
 *   the status and S3 error code only, never S3's message.
 */
export type TS3Target = {
  endpoint: string;
  bucket: string;
  region: string;
  /** The credential secret, `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`. */
  secret: string;
};

export type TS3Result = { output: unknown; bytes: number };

const CONNECT_TIMEOUT_MS = 5_000;
const SOCKET_TIMEOUT_MS = 20_000;
const OPERATION_TIMEOUT_MS = 30_000;
const MAX_ATTEMPTS = 2;
const HEAD_CONCURRENCY = 8;
const MAX_CLIENTS = 64;
const TRANSIENT_CODES = new Set([
  "SlowDown",
  "RequestTimeout",
  "RequestTimeTooSkewed",
  "ServiceUnavailable",
  "InternalError",
  "Throttling",
  "ThrottlingException",
]);

/** A read of an object larger than the caller allows (thrown before its body is read). */
export class ObjectTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`the object is ${bytes} bytes`);
  }
}

export function parseS3Secret(secret: string): { accessKeyId: string; secretAccessKey: string; sessionToken?: string } {
  const [accessKeyId, secretAccessKey, ...rest] = secret.split(":");
  if (!accessKeyId || !secretAccessKey) {
    throw new ProviderError("rejected", "the credential secret is not ACCESS_KEY_ID:SECRET_ACCESS_KEY");
  }
  const sessionToken = rest.join(":");
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}

/** The S3 object key of a Bridge key (`/a/b` -> `prod_x/a/b`) and back. */
export const objectKey = (productId: string, key: string) => `${productId}${key}`;
const bridgeKey = (productId: string, key: string) => key.slice(productId.length);

type TSdk = typeof import("@aws-sdk/client-s3");
let sdk: Promise<TSdk> | null = null;
function loadSdk(): Promise<TSdk> {
  sdk ??= import("@aws-sdk/client-s3").catch((err: unknown) => {
    sdk = null;
    throw err;
  });
  return sdk;
}

/** One client (and so one keep-alive connection pool) per endpoint, region and key; oldest dropped beyond MAX_CLIENTS. */
const clients = new Map<string, S3Client>();
async function client(t: TS3Target): Promise<S3Client> {
  const credentials = parseS3Secret(t.secret);
  const id = createHash("sha256").update(`${t.endpoint}\n${t.region}\n${t.secret}`).digest("hex");
  const hit = clients.get(id);
  if (hit) return hit;
  const { S3Client } = await loadSdk();
  const c = new S3Client({
    endpoint: t.endpoint,
    region: t.region,
    forcePathStyle: true,
    credentials,
    maxAttempts: MAX_ATTEMPTS,
    // Many S3-compatible services reject the SDK's default CRC32 trailers (aws-chunked); payloads stay SigV4-signed.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // The SDK's keep-alive agents, but resolving through the egress guard (IP literals: checked in s3Storage).
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: SOCKET_TIMEOUT_MS,
      httpAgent: { lookup: guardedLookup("provider") },
      httpsAgent: { lookup: guardedLookup("provider") },
    },
  });
  clients.set(id, c);
  if (clients.size > MAX_CLIENTS) {
    const [oldest, old] = clients.entries().next().value as [string, S3Client];
    clients.delete(oldest);
    old.destroy();
  }
  return c;
}

type TSdkError = { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };

function mapError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const blocked = egressBlocked(err);
  if (blocked) return new ProviderError("unavailable", blocked.message);
  const e = err as TSdkError;
  const status = e.$metadata?.httpStatusCode;
  // HEAD answers have no body, so the SDK cannot name their error: the status's reason phrase then.
  const named = e.name && e.name !== "Error" && e.name !== "Unknown" ? e.name : undefined;
  const code =
    named ?? e.code ?? (status !== undefined ? (STATUS_CODES[status] ?? "error").replace(/\s+/g, "") : "error");
  if (status === undefined || status >= 500 || status === 429 || status === 408 || TRANSIENT_CODES.has(code)) {
    return new ProviderError("unavailable", status === undefined ? `S3 unreachable (${code})` : `S3 ${status} ${code}`);
  }
  return new ProviderError("rejected", `S3 ${status} ${code}`);
}

const status = (err: unknown) => (err as TSdkError).$metadata?.httpStatusCode;
const deadline = () => ({ abortSignal: AbortSignal.timeout(OPERATION_TIMEOUT_MS) });

/**
 * One storage.object action. `maxReadBytes`: a read of a larger object throws
 * ObjectTooLarge before its body is read.
 */
export async function s3Storage(
  t: TS3Target,
  productId: string,
  action: string,
  body: Record<string, unknown>,
  opts: { maxReadBytes: number },
): Promise<TS3Result> {
  try {
    checkEgressLiteral("provider", new URL(t.endpoint).hostname);
  } catch (err) {
    throw mapError(err);
  }
  const c = await client(t);
  const { GetObjectCommand, PutObjectCommand, HeadObjectCommand, DeleteObjectCommand, ListObjectsV2Command } =
    await loadSdk();
  const key = String(body.key ?? body.prefix);
  const Key = objectKey(productId, key);
  try {
    switch (action) {
      case "write": {
        const bytes = Buffer.from(fieldText(body.content_base64), "base64");
        const sha256 = createHash("sha256").update(bytes).digest("hex");
        await c.send(
          new PutObjectCommand({
            Bucket: t.bucket,
            Key,
            Body: bytes,
            ContentLength: bytes.length,
            ContentType: fieldText(body.content_type, "application/octet-stream"),
            Metadata: { sha256 },
          }),
          deadline(),
        );
        return { output: { key, size_bytes: bytes.length, sha256 }, bytes: bytes.length };
      }
      case "read": {
        let res;
        try {
          res = await c.send(new GetObjectCommand({ Bucket: t.bucket, Key }), deadline());
        } catch (err) {
          if ((err as TSdkError).name === "NoSuchKey") {
            return {
              output: { key, found: false, content_base64: null, size_bytes: 0, sha256: null, content_type: null },
              bytes: 0,
            };
          }
          throw err;
        }
        const declared = res.ContentLength ?? 0;
        if (declared > opts.maxReadBytes) {
          (res.Body as unknown as { destroy?: () => void } | undefined)?.destroy?.();
          throw new ObjectTooLarge(declared);
        }
        const bytes = Buffer.from((await res.Body?.transformToByteArray()) ?? new Uint8Array());
        if (bytes.length > opts.maxReadBytes) throw new ObjectTooLarge(bytes.length);
        return {
          output: {
            key,
            found: true,
            content_base64: bytes.toString("base64"),
            size_bytes: bytes.length,
            sha256: createHash("sha256").update(bytes).digest("hex"),
            content_type: res.ContentType ?? "application/octet-stream",
          },
          bytes: bytes.length,
        };
      }
      case "delete": {
        let existed = true;
        try {
          await c.send(new HeadObjectCommand({ Bucket: t.bucket, Key }), deadline());
        } catch (err) {
          if (status(err) !== 404) throw err;
          existed = false;
        }
        // Always sent: a missing bucket is an error here (HEAD cannot tell it from a missing key).
        await c.send(new DeleteObjectCommand({ Bucket: t.bucket, Key }), deadline());
        return { output: { key, deleted: existed }, bytes: 0 };
      }
      case "list": {
        const res = await c.send(
          new ListObjectsV2Command({
            Bucket: t.bucket,
            Prefix: Key,
            MaxKeys: Number(body.limit ?? 50),
            ...(body.cursor ? { ContinuationToken: fieldText(body.cursor) } : {}),
          }),
          deadline(),
        );
        const listed = (res.Contents ?? []).filter((o) => o.Key?.startsWith(Key));
        const objects: Array<{ key: string; size_bytes: number; sha256: string | null } | null> = Array.from(
          { length: listed.length },
          () => null,
        );
        let next = 0;
        const worker = async () => {
          while (next < listed.length) {
            const i = next++;
            const o = listed[i]!;
            try {
              const head = await c.send(new HeadObjectCommand({ Bucket: t.bucket, Key: o.Key! }), deadline());
              objects[i] = {
                key: bridgeKey(productId, o.Key!),
                size_bytes: Number(head.ContentLength ?? o.Size ?? 0),
                sha256: head.Metadata?.sha256 ?? null,
              };
            } catch (err) {
              if (status(err) !== 404) throw err; // deleted since the listing: left out
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(HEAD_CONCURRENCY, listed.length) }, worker));
        return {
          output: {
            objects: objects.filter((o) => o !== null),
            next_cursor: res.IsTruncated && res.NextContinuationToken ? res.NextContinuationToken : null,
          },
          bytes: 0,
        };
      }
      default:
        throw new ProviderError("rejected", `storage.object has no action ${action}`);
    }
  } catch (err) {
    if (err instanceof ObjectTooLarge) throw err;
    throw mapError(err);
  }
}

/** Object keys under this prefix belong to binding tests; no product's keys can start with it (they start with `prod_`). */
export const PROBE_PREFIX = "_capstan-test/";

/**
 * A binding test's S3 probe: PUT a 16-byte object under PROBE_PREFIX, GET it
 * back (same bytes), DELETE it: the three rights the Bridge needs, on the
 * binding's bucket, with its key, through the same client and egress guard.
 * Answers the probe's key and each step's S3 status; the first failing step
 * throws a ProviderError naming the step. A failed DELETE can leave the
 * probe object behind (named in the error).
 */
export async function s3Probe(t: TS3Target): Promise<{ key: string; steps: string[] }> {
  try {
    checkEgressLiteral("provider", new URL(t.endpoint).hostname);
  } catch (err) {
    throw mapError(err);
  }
  const c = await client(t);
  const { GetObjectCommand, PutObjectCommand, DeleteObjectCommand } = await loadSdk();
  const Key = `${PROBE_PREFIX}${Date.now()}-${createHash("sha256").update(String(Math.random())).digest("hex").slice(0, 12)}`;
  const body = Buffer.from("capstan probe ok");
  const steps: string[] = [];
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    try {
      const out = await run();
      steps.push(`${name} ok`);
      return out;
    } catch (err) {
      const e = mapError(err);
      throw new ProviderError(
        e.kind,
        `${name} ${t.bucket}/${Key} failed: ${e.message}${name === "DELETE" ? " (the probe object may remain)" : ""}`,
      );
    }
  };
  await step("PUT", () =>
    c.send(
      new PutObjectCommand({
        Bucket: t.bucket,
        Key,
        Body: body,
        ContentLength: body.length,
        ContentType: "text/plain",
      }),
      deadline(),
    ),
  );
  const got = await step("GET", async () => {
    const res = await c.send(new GetObjectCommand({ Bucket: t.bucket, Key }), deadline());
    return Buffer.from((await res.Body?.transformToByteArray()) ?? new Uint8Array());
  });
  if (!got.equals(body))
    throw new ProviderError("rejected", `GET ${t.bucket}/${Key} answered other bytes than were written`);
  await step("DELETE", () => c.send(new DeleteObjectCommand({ Bucket: t.bucket, Key }), deadline()));
  return { key: Key, steps };
}
