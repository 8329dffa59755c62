import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real S3-compatible HTTP server on 127.0.0.1 for Bridge tests, in memory,
 * path-style only (`/{bucket}/{key}`):
 *
 * - PutObject (PUT), GetObject (GET), HeadObject (HEAD), DeleteObject (DELETE)
 *   and ListObjectsV2 (GET /{bucket}?list-type=2 with prefix, max-keys,
 *   continuation-token, start-after), multipart uploads (CreateMultipartUpload
 *   POST ?uploads, UploadPart PUT ?partNumber&uploadId, CompleteMultipartUpload
 *   POST ?uploadId, AbortMultipartUpload DELETE ?uploadId; parts but the last
 *   must be at least 5 MiB, EntityTooSmall otherwise), with AWS-style XML answers and errors
 *   (NoSuchKey, NoSuchBucket, AccessDenied, InvalidAccessKeyId,
 *   SignatureDoesNotMatch, XAmzContentSHA256Mismatch, ...).
 * - Every request must carry a valid AWS Signature Version 4 Authorization
 *   header: the access key id must be known and the signature is recomputed
 *   from the canonical request with the key's secret (a wrong secret is 403
 *   SignatureDoesNotMatch), the scope must name service `s3` and the
 *   server's region, x-amz-date must be within 15 minutes, and a signed
 *   payload hash must match the body. Presigned URLs are not supported.
 * - `grant(accessKeyId, buckets)` limits a key to some buckets (AccessDenied
 *   elsewhere).
 * - Fault modes via behave(): "ok", "500" (InternalError), "503" (SlowDown),
 *   "reset" (the connection is destroyed without an answer), each with an
 *   optional delayMs, and `after` (that many more requests are served normally
 *   first: an outage in the middle of a multipart upload); close() stops
 *   listening (connection refused).
 *
 * Every request is remembered in `requests` (method, bucket, key, query,
 * access key id, answer status).
 */
export type TS3Mode = "ok" | "500" | "503" | "reset";
export type TS3Object = {
  body: Buffer;
  contentType: string;
  metadata: Record<string, string>;
  etag: string;
  lastModified: Date;
};
export type TS3Request = {
  method: string;
  bucket: string | null;
  key: string | null;
  query: Record<string, string>;
  accessKeyId: string | null;
  status: number;
};

export type TS3Server = {
  /** e.g. http://127.0.0.1:43123 */
  endpoint: string;
  region: string;
  requests: TS3Request[];
  /** bucket -> key -> object */
  buckets: Map<string, Map<string, TS3Object>>;
  /** Multipart uploads begun and neither completed nor aborted (uploadId -> parts). */
  multipartUploads: Map<string, { bucket: string; key: string; parts: Map<number, Buffer> }>;
  addBucket(name: string): void;
  addKey(accessKeyId: string, secret: string): void;
  /** Limits the key to these buckets (AccessDenied elsewhere); by default a key may use every bucket. */
  grant(accessKeyId: string, buckets: string[]): void;
  behave(b: { mode: TS3Mode; delayMs?: number; after?: number }): void;
  close(): Promise<void>;
};

const XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/";
const MAX_SKEW_MS = 15 * 60_000;

const sha256Hex = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data).digest();

function xmlEscape(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ is %XX (upper-case hex). */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

type TAuth = {
  accessKeyId: string;
  signedHeaders: string[];
  signature: string;
  date: string;
  region: string;
  service: string;
};

function parseAuthorization(header: string | undefined): TAuth {
  if (!header) throw new S3Error(403, "AccessDenied", "Anonymous access is not allowed");
  const m =
    /^AWS4-HMAC-SHA256\s+Credential=([^,\s]+)\s*,\s*SignedHeaders=([^,\s]+)\s*,\s*Signature=([0-9a-f]{64})$/.exec(
      header.trim(),
    );
  if (!m) throw new S3Error(400, "AuthorizationHeaderMalformed", "The authorization header is malformed");
  const parts = m[1]!.split("/");
  if (parts.length !== 5 || parts[4] !== "aws4_request")
    throw new S3Error(400, "AuthorizationHeaderMalformed", "The credential scope is malformed");
  const [accessKeyId, date, region, service] = parts as [string, string, string, string];
  return { accessKeyId, date, region, service, signedHeaders: m[2]!.split(";"), signature: m[3]! };
}

/** The SigV4 canonical request of an S3 request: the path exactly as sent (S3 does not normalise it). */
function canonicalRequest(
  req: http.IncomingMessage,
  rawPath: string,
  rawQuery: string,
  signedHeaders: string[],
  payloadHash: string,
): string {
  const query = rawQuery
    .split("&")
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf("=");
      const k = decodeURIComponent((i < 0 ? pair : pair.slice(0, i)).replace(/\+/g, "%20"));
      const v = i < 0 ? "" : decodeURIComponent(pair.slice(i + 1).replace(/\+/g, "%20"));
      return [uriEncode(k), uriEncode(v)] as const;
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const headers = signedHeaders
    .map((name) => {
      const raw = req.headers[name];
      const value = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
      return `${name}:${value.trim().replace(/\s+/g, " ")}\n`;
    })
    .join("");
  return [req.method, rawPath, query, headers, signedHeaders.join(";"), payloadHash].join("\n");
}

export async function startS3Server(opts: { region?: string } = {}): Promise<TS3Server> {
  const region = opts.region ?? "us-east-1";
  const keys = new Map<string, string>();
  const grants = new Map<string, Set<string>>();
  const buckets = new Map<string, Map<string, TS3Object>>();
  const requests: TS3Request[] = [];
  let behaviour: { mode: TS3Mode; delayMs: number; after: number } = { mode: "ok", delayMs: 0, after: 0 };
  const multipartUploads = new Map<
    string,
    { bucket: string; key: string; contentType: string; metadata: Record<string, string>; parts: Map<number, Buffer> }
  >();

  function verify(req: http.IncomingMessage, rawPath: string, rawQuery: string, body: Buffer): string {
    const auth = parseAuthorization(req.headers.authorization);
    const secret = keys.get(auth.accessKeyId);
    if (secret === undefined)
      throw new S3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
    if (auth.service !== "s3")
      throw new S3Error(
        400,
        "AuthorizationHeaderMalformed",
        `The credential scope names service ${auth.service}; expecting s3`,
      );
    if (auth.region !== region)
      throw new S3Error(
        400,
        "AuthorizationHeaderMalformed",
        `the region '${auth.region}' is wrong; expecting '${region}'`,
        { Region: region },
      );
    const amzDate = String(req.headers["x-amz-date"] ?? "");
    const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!dm || amzDate.slice(0, 8) !== auth.date)
      throw new S3Error(403, "AccessDenied", "x-amz-date is missing or does not match the credential scope");
    const at = Date.UTC(+dm[1]!, +dm[2]! - 1, +dm[3]!, +dm[4]!, +dm[5]!, +dm[6]!);
    if (Math.abs(Date.now() - at) > MAX_SKEW_MS)
      throw new S3Error(
        403,
        "RequestTimeTooSkewed",
        "The difference between the request time and the current time is too large.",
      );
    for (const required of ["host", "x-amz-date", "x-amz-content-sha256"]) {
      if (!auth.signedHeaders.includes(required)) throw new S3Error(403, "AccessDenied", `${required} must be signed`);
    }
    const payloadHash = String(req.headers["x-amz-content-sha256"] ?? "");
    const canonical = canonicalRequest(req, rawPath, rawQuery, auth.signedHeaders, payloadHash);
    const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
    const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonical)].join("\n");
    const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, auth.date), auth.region), auth.service), "aws4_request");
    const expected = hmac(signingKey, stringToSign);
    const given = Buffer.from(auth.signature, "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new S3Error(
        403,
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
      );
    }
    if (payloadHash.startsWith("STREAMING-"))
      throw new S3Error(501, "NotImplemented", "aws-chunked payloads are not supported by this test server");
    if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256Hex(body)) {
      throw new S3Error(
        400,
        "XAmzContentSHA256Mismatch",
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
    }
    return auth.accessKeyId;
  }

  function sendXml(res: http.ServerResponse, status: number, xml: string, headers: Record<string, string> = {}): void {
    const text = `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
    res.writeHead(status, {
      "content-type": "application/xml",
      "content-length": Buffer.byteLength(text),
      "x-amz-request-id": randomUUID(),
      ...headers,
    });
    res.end(text);
  }

  function sendError(res: http.ServerResponse, method: string, e: S3Error, resource: string): void {
    if (method === "HEAD") {
      // HEAD answers carry no body; S3 names the error only by status.
      res.writeHead(e.status, { "x-amz-request-id": randomUUID() });
      res.end();
      return;
    }
    const extra = Object.entries(e.extra)
      .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
      .join("");
    sendXml(
      res,
      e.status,
      `<Error><Code>${e.code}</Code><Message>${xmlEscape(e.message)}</Message>${extra}<Resource>${xmlEscape(resource)}</Resource><RequestId>${randomUUID()}</RequestId></Error>`,
    );
  }

  function listObjectsV2(
    res: http.ServerResponse,
    bucketName: string,
    objects: Map<string, TS3Object>,
    q: Record<string, string>,
  ): void {
    const prefix = q.prefix ?? "";
    const maxKeys = Math.min(1000, Math.max(0, Number(q["max-keys"] ?? 1000)));
    if (!Number.isInteger(maxKeys)) throw new S3Error(400, "InvalidArgument", "max-keys must be an integer");
    let after = q["start-after"] ?? "";
    if (q["continuation-token"] !== undefined) {
      const decoded = Buffer.from(q["continuation-token"], "base64url").toString("utf8");
      if (!decoded.startsWith("ct:"))
        throw new S3Error(400, "InvalidArgument", "The continuation token provided is incorrect");
      after = decoded.slice(3);
    }
    const all = [...objects.keys()]
      .filter((k) => k.startsWith(prefix) && k > after)
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const page = all.slice(0, maxKeys);
    const truncated = all.length > page.length;
    const contents = page
      .map((k) => {
        const o = objects.get(k)!;
        return `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>&quot;${o.etag}&quot;</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join("");
    const next = truncated
      ? `<NextContinuationToken>${Buffer.from(`ct:${page.at(-1)}`).toString("base64url")}</NextContinuationToken>`
      : "";
    const token =
      q["continuation-token"] !== undefined
        ? `<ContinuationToken>${xmlEscape(q["continuation-token"])}</ContinuationToken>`
        : "";
    sendXml(
      res,
      200,
      `<ListBucketResult xmlns="${XMLNS}"><Name>${xmlEscape(bucketName)}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${token}${next}${contents}</ListBucketResult>`,
    );
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, record: TS3Request): Promise<void> {
    const url = req.url ?? "/";
    const qi = url.indexOf("?");
    const rawPath = qi < 0 ? url : url.slice(0, qi);
    const rawQuery = qi < 0 ? "" : url.slice(qi + 1);
    const query = Object.fromEntries(new URLSearchParams(rawQuery));
    record.query = query;
    const segments = rawPath.split("/");
    const bucketName = segments[1] ? decodeURIComponent(segments[1]) : null;
    const key = segments.length > 2 ? decodeURIComponent(segments.slice(2).join("/")) : null;
    record.bucket = bucketName;
    record.key = key || null;
    const body = await readBody(req);
    const method = req.method ?? "GET";
    try {
      record.accessKeyId = parseAuthorization(req.headers.authorization).accessKeyId;
    } catch {
      // reported by verify() below
    }
    const faulty = behaviour.after > 0 ? (behaviour.after--, false) : true;
    if (faulty && behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
    if (faulty && behaviour.mode === "reset") {
      record.status = 0;
      req.socket.destroy();
      return;
    }
    try {
      if (faulty && behaviour.mode === "500")
        throw new S3Error(500, "InternalError", "We encountered an internal error. Please try again.");
      if (faulty && behaviour.mode === "503") throw new S3Error(503, "SlowDown", "Please reduce your request rate.");
      const accessKeyId = verify(req, rawPath, rawQuery, body);
      if (!bucketName) throw new S3Error(501, "NotImplemented", "ListBuckets is not supported by this test server");
      const objects = buckets.get(bucketName);
      if (!objects)
        throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", { BucketName: bucketName });
      const granted = grants.get(accessKeyId);
      if (granted && !granted.has(bucketName)) throw new S3Error(403, "AccessDenied", "Access Denied");

      if (!key) {
        if (method === "GET" && query["list-type"] === "2") return listObjectsV2(res, bucketName, objects, query);
        throw new S3Error(501, "NotImplemented", `${method} on a bucket is not supported by this test server`);
      }
      const metadataOf = () => {
        const metadata: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (name.startsWith("x-amz-meta-")) metadata[name.slice("x-amz-meta-".length)] = String(value);
        }
        return metadata;
      };
      if (method === "POST" && "uploads" in query) {
        const uploadId = randomUUID();
        multipartUploads.set(uploadId, {
          bucket: bucketName,
          key,
          contentType: String(req.headers["content-type"] ?? "binary/octet-stream"),
          metadata: metadataOf(),
          parts: new Map(),
        });
        return sendXml(
          res,
          200,
          `<InitiateMultipartUploadResult xmlns="${XMLNS}"><Bucket>${xmlEscape(bucketName)}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
        );
      }
      if (query.uploadId !== undefined) {
        const upload = multipartUploads.get(query.uploadId);
        if (!upload || upload.bucket !== bucketName || upload.key !== key)
          throw new S3Error(404, "NoSuchUpload", "The specified upload does not exist.");
        if (method === "PUT") {
          const n = Number(query.partNumber);
          if (!Number.isInteger(n) || n < 1 || n > 10_000)
            throw new S3Error(400, "InvalidArgument", "partNumber must be 1..10000");
          upload.parts.set(n, body);
          res.writeHead(200, {
            etag: `"${createHash("md5").update(body).digest("hex")}"`,
            "content-length": 0,
            "x-amz-request-id": randomUUID(),
          });
          res.end();
          return;
        }
        if (method === "DELETE") {
          multipartUploads.delete(query.uploadId);
          res.writeHead(204, { "x-amz-request-id": randomUUID() });
          res.end();
          return;
        }
        if (method === "POST") {
          const listed = [
            ...body.toString("utf8").matchAll(/<Part>[\s\S]*?<PartNumber>(\d+)<\/PartNumber>[\s\S]*?<\/Part>/g),
          ].map((m) => Number(m[1]));
          if (!listed.length) throw new S3Error(400, "MalformedXML", "The XML you provided was not well-formed");
          const chunks: Buffer[] = [];
          for (const [i, n] of listed.entries()) {
            const part = upload.parts.get(n);
            if (!part) throw new S3Error(400, "InvalidPart", `Part ${n} was not uploaded`);
            if (i > 0 && n <= listed[i - 1]!)
              throw new S3Error(400, "InvalidPartOrder", "The list of parts was not in ascending order.");
            if (i < listed.length - 1 && part.length < 5 * 1024 * 1024)
              throw new S3Error(
                400,
                "EntityTooSmall",
                "Your proposed upload is smaller than the minimum allowed object size.",
              );
            chunks.push(part);
          }
          const whole = Buffer.concat(chunks);
          const etag = `${createHash("md5").update(whole).digest("hex")}-${listed.length}`;
          objects.set(key, {
            body: whole,
            contentType: upload.contentType,
            metadata: upload.metadata,
            etag,
            lastModified: new Date(),
          });
          multipartUploads.delete(query.uploadId);
          return sendXml(
            res,
            200,
            `<CompleteMultipartUploadResult xmlns="${XMLNS}"><Location>${xmlEscape(`/${bucketName}/${key}`)}</Location><Bucket>${xmlEscape(bucketName)}</Bucket><Key>${xmlEscape(key)}</Key><ETag>&quot;${etag}&quot;</ETag></CompleteMultipartUploadResult>`,
          );
        }
        throw new S3Error(405, "MethodNotAllowed", `${method} is not allowed on an upload`);
      }
      switch (method) {
        case "PUT": {
          if (req.headers["x-amz-copy-source"])
            throw new S3Error(501, "NotImplemented", "CopyObject is not supported by this test server");
          const metadata = metadataOf();
          const etag = createHash("md5").update(body).digest("hex");
          objects.set(key, {
            body,
            contentType: String(req.headers["content-type"] ?? "binary/octet-stream"),
            metadata,
            etag,
            lastModified: new Date(),
          });
          res.writeHead(200, { etag: `"${etag}"`, "content-length": 0, "x-amz-request-id": randomUUID() });
          res.end();
          return;
        }
        case "GET":
        case "HEAD": {
          const o = objects.get(key);
          if (!o) throw new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key });
          const headers: Record<string, string | number> = {
            "content-type": o.contentType,
            "content-length": o.body.length,
            etag: `"${o.etag}"`,
            "last-modified": o.lastModified.toUTCString(),
            "accept-ranges": "bytes",
            "x-amz-request-id": randomUUID(),
          };
          for (const [k, v] of Object.entries(o.metadata)) headers[`x-amz-meta-${k}`] = v;
          res.writeHead(200, headers);
          res.end(method === "GET" ? o.body : undefined);
          return;
        }
        case "DELETE":
          objects.delete(key);
          res.writeHead(204, { "x-amz-request-id": randomUUID() });
          res.end();
          return;
        default:
          throw new S3Error(405, "MethodNotAllowed", `${method} is not allowed`);
      }
    } catch (err) {
      if (!(err instanceof S3Error)) throw err;
      record.status = err.status;
      sendError(res, method, err, rawPath);
    }
  }

  const server = http.createServer((req, res) => {
    const record: TS3Request = {
      method: req.method ?? "GET",
      bucket: null,
      key: null,
      query: {},
      accessKeyId: null,
      status: 200,
    };
    requests.push(record);
    res.on("finish", () => {
      record.status = res.statusCode;
    });
    handle(req, res, record).catch((err: unknown) => {
      record.status = 500;
      if (!res.headersSent)
        sendError(res, req.method ?? "GET", new S3Error(500, "InternalError", String(err)), req.url ?? "/");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    requests,
    buckets,
    multipartUploads,
    addBucket: (name) => {
      if (!buckets.has(name)) buckets.set(name, new Map());
    },
    addKey: (accessKeyId, secret) => {
      keys.set(accessKeyId, secret);
    },
    grant: (accessKeyId, names) => {
      grants.set(accessKeyId, new Set(names));
    },
    behave: (b) => {
      behaviour = { mode: b.mode, delayMs: b.delayMs ?? 0, after: b.after ?? 0 };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
