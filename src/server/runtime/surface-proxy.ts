import { Readable } from "node:stream";
import { Pool, errors as undiciErrors } from "undici";
import { deadline } from "@/server/platform/deadline";

/**
 * Forwards one HTTP request to a deployment's ingress socket and streams the
 * answer back. Bodies stream both ways; the request body is capped; the
 * upstream has a header and body deadline. On Capstan's own hosts (path and
 * host routes) Capstan's credentials never reach the app: the Authorization
 * header and Capstan's cookies are stripped on the way in, and the app
 * cannot set cookies with Capstan's names on the way out. A custom domain is
 * the app's own origin (`ownOrigin`): everything passes both ways.
 * Hop-by-hop headers are dropped both ways.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-authorization",
  "proxy-authenticate",
  "host",
  "content-length",
]);
/** next-auth's cookies, with their __Secure- / __Host- variants. */
const CAPSTAN_COOKIE = /^(__Secure-|__Host-)?next-auth\./;
const SANDBOX_CSP = "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads";

/**
 * Where the app is reached: its ingress socket when it runs on this host, or
 * the runner gateway of the host it runs on (runner-gateway.ts), which pipes
 * the request to that socket unchanged.
 */
export type TUpstream = { socketPath: string } | { origin: string; deploymentId: string; key: string };

/** The gateway's own headers: set by Capstan only, removed by the gateway before the app. */
export const GATEWAY_KEY_HEADER = "x-capstan-runner-key";
export const GATEWAY_DEPLOYMENT_HEADER = "x-capstan-deployment";

export type TProxyTarget = {
  upstream: TUpstream;
  /** Path prefix the app is mounted under on this route ("" on the host route). */
  prefix: string;
  /** Path routes share the console's origin: their documents are sandboxed (see docs/decisions.md). */
  sandboxDocument: boolean;
  /**
   * A custom domain is the app's own origin: the browser never sends Capstan's credentials there,
   * so every header and cookie the client sent reaches the app, and every cookie it sets comes back.
   */
  ownOrigin?: boolean;
};

export type TProxyLimits = { maxBodyBytes: number; timeoutMs: number };

// On globalThis: Next.js bundles route handlers separately; one pool per socket and process.
const g = globalThis as unknown as { __capstanSurfacePools?: Map<string, Pool> };
const pools = (g.__capstanSurfacePools ??= new Map<string, Pool>());

function poolFor(upstream: TUpstream, timeoutMs: number): Pool {
  const key = "socketPath" in upstream ? upstream.socketPath : upstream.origin;
  let p = pools.get(key);
  if (!p) {
    const opts = {
      connections: 64,
      pipelining: 1,
      keepAliveTimeout: 4_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connectTimeout: 5_000,
    };
    p =
      "socketPath" in upstream
        ? new Pool("http://localhost", { ...opts, socketPath: upstream.socketPath })
        : new Pool(upstream.origin, opts);
    pools.set(key, p);
  }
  return p;
}

/** Through a runner gateway, the request names its deployment and carries the gateway key. */
function gatewayHeaders(upstream: TUpstream, headers: Record<string, string>): Record<string, string> {
  if ("socketPath" in upstream) return headers;
  return { ...headers, [GATEWAY_KEY_HEADER]: upstream.key, [GATEWAY_DEPLOYMENT_HEADER]: upstream.deploymentId };
}

/** Closes the pool of a socket that is gone (the deployment stopped). */
export async function dropPool(socketPath: string): Promise<void> {
  const p = pools.get(socketPath);
  if (!p) return;
  pools.delete(socketPath);
  await p.destroy().catch(() => undefined);
}

export class ProxyError extends Error {
  constructor(
    readonly status: 413 | 502 | 504,
    message: string,
    /** The problem's reason when the status alone does not say it (502 from a runner host that does not answer). */
    readonly reason?: "runner_host_unreachable",
  ) {
    super(message);
    this.name = "ProxyError";
  }
}

/**
 * A request that got no answer at all. Through a runner gateway this is the
 * host's fault, not the app's: the gateway answers an unreachable app with its
 * own 502 problem, so a refused, reset or timed-out connection to the gateway
 * means the host itself is unreachable (docs/decisions.md "Roles and runner hosts").
 */
function noAnswer(err: unknown, upstream: TUpstream): ProxyError {
  const why = (err as Error).message;
  if ("socketPath" in upstream) return new ProxyError(502, `The app could not be reached (${why})`);
  return new ProxyError(
    502,
    `The runner host of this app (${upstream.origin}) could not be reached (${why})`,
    "runner_host_unreachable",
  );
}

function stripCapstanCookies(cookie: string): string {
  return cookie
    .split(";")
    .map((c) => c.trim())
    .filter((c) => c && !CAPSTAN_COOKIE.test(c.split("=")[0]!.trim()))
    .join("; ");
}

/**
 * The headers the app receives: no hop-by-hop; on Capstan's own hosts no Authorization and no
 * Capstan cookies (on a custom domain, the app's own origin, both pass); forwarding headers set by us.
 */
export function upstreamHeaders(
  entries: Iterable<[string, string]>,
  host: string,
  proto: string,
  clientIp: string | null,
  target: TProxyTarget,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (
      HOP_BY_HOP.has(key) ||
      key.startsWith("x-forwarded-") ||
      key === GATEWAY_KEY_HEADER ||
      key === GATEWAY_DEPLOYMENT_HEADER
    )
      continue;
    if (key === "authorization" && !target.ownOrigin) continue;
    if (key === "cookie" && !target.ownOrigin) {
      const kept = stripCapstanCookies(value);
      if (kept) headers.cookie = kept;
      continue;
    }
    headers[key] = value;
  }
  headers.host = host;
  headers["x-forwarded-host"] = host;
  headers["x-forwarded-proto"] = proto;
  if (clientIp) headers["x-forwarded-for"] = clientIp;
  if (target.prefix) headers["x-forwarded-prefix"] = target.prefix;
  return headers;
}

/** The headers the client receives: no hop-by-hop, no Set-Cookie of Capstan's names, the sandbox CSP on the path route. */
export function downstreamHeaders(
  raw: Record<string, string | string[] | undefined>,
  target: TProxyTarget,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || HOP_BY_HOP.has(key)) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (key === "set-cookie" && !target.ownOrigin && CAPSTAN_COOKIE.test(v.split("=")[0]!.trim())) continue;
      out.push([key, v]);
    }
  }
  // An opaque origin for the app's documents on Capstan's own origin: its scripts cannot act as the console.
  if (target.sandboxDocument) out.push(["content-security-policy", SANDBOX_CSP]);
  return out;
}

export async function forward(
  req: Request,
  upstreamPath: string,
  target: TProxyTarget,
  limits: TProxyLimits,
  clientIp: string | null,
): Promise<Response> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes)
    throw new ProxyError(413, `The request body exceeds ${limits.maxBodyBytes} bytes`);
  const url = new URL(req.url);
  const headers = upstreamHeaders(req.headers.entries(), url.host, url.protocol.replace(":", ""), clientIp, target);

  const method = req.method.toUpperCase();
  const hasBody = method !== "GET" && method !== "HEAD" && req.body !== null;
  let body: AsyncIterable<Uint8Array> | undefined;
  if (hasBody && req.body) {
    const source = req.body;
    body = (async function* limited() {
      let size = 0;
      for await (const chunk of source as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > limits.maxBodyBytes)
          throw new ProxyError(413, `The request body exceeds ${limits.maxBodyBytes} bytes`);
        yield chunk;
      }
    })();
    if (Number.isFinite(declared)) headers["content-length"] = String(declared);
  }

  let res: Awaited<ReturnType<Pool["request"]>>;
  try {
    res = await poolFor(target.upstream, limits.timeoutMs).request({
      path: upstreamPath,
      method: method,
      headers: gatewayHeaders(target.upstream, headers),
      body: body as never,
    });
  } catch (err) {
    if (err instanceof ProxyError) throw err;
    if ((err as { cause?: unknown }).cause instanceof ProxyError) throw (err as { cause: ProxyError }).cause;
    if (err instanceof undiciErrors.HeadersTimeoutError)
      throw new ProxyError(504, `The app did not answer within ${limits.timeoutMs} ms`);
    throw noAnswer(err, target.upstream);
  }

  const out = new Headers();
  for (const [key, value] of downstreamHeaders(res.headers, target)) out.append(key, value);
  const noBody = method === "HEAD" || res.statusCode === 204 || res.statusCode === 304 || res.statusCode < 200;
  if (noBody) {
    res.body.resume();
    return new Response(null, { status: res.statusCode, headers: out });
  }
  return new Response(toWebStream(res.body), { status: res.statusCode, headers: out });
}

/**
 * Pull-based (backpressure: the app is read only as fast as the client
 * reads). Readable.toWeb is avoided: on Node 20 it can enqueue into a
 * cancelled stream and throw an uncaught ERR_INVALID_STATE.
 */
function toWebStream(body: Readable): ReadableStream<Uint8Array> {
  const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer, undefined>;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      } catch (err) {
        controller.error(err);
      }
    },
    cancel() {
      body.destroy();
    },
  });
}

export type TOnceResult =
  | { ok: true; status: number; body: Buffer; truncated: boolean; contentType: string | null }
  | { ok: false; kind: "timeout" | "unreachable"; message: string };

/**
 * One complete request to a deployment's ingress socket within `timeoutMs`
 * (headers and body), reading at most `maxBodyBytes` of the answer. For
 * managed executions, which keep the whole response as evidence.
 */
export async function requestOnce(
  upstream: TUpstream,
  req: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body: Buffer | null;
    timeoutMs: number;
    maxBodyBytes: number;
  },
): Promise<TOnceResult> {
  const limit = deadline(req.timeoutMs);
  try {
    const res = await poolFor(upstream, req.timeoutMs).request({
      path: req.path,
      method: req.method,
      headers: gatewayHeaders(upstream, { host: "localhost", ...req.headers }),
      body: req.body ?? undefined,
      signal: limit.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (size + chunk.length > req.maxBodyBytes) {
        chunks.push(chunk.subarray(0, req.maxBodyBytes - size));
        truncated = true;
        res.body.destroy();
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    const type = res.headers["content-type"];
    return {
      ok: true,
      status: res.statusCode,
      body: Buffer.concat(chunks),
      truncated,
      contentType: typeof type === "string" ? type : null,
    };
  } catch (err) {
    if (
      limit.expired() ||
      err instanceof undiciErrors.HeadersTimeoutError ||
      err instanceof undiciErrors.BodyTimeoutError
    ) {
      return { ok: false, kind: "timeout", message: `The app did not answer within ${req.timeoutMs} ms` };
    }
    return { ok: false, kind: "unreachable", message: `The app could not be reached (${(err as Error).message})` };
  } finally {
    limit.done();
  }
}

/**
 * The same forwarding on Node's own request and response objects: the fast
 * path the custom server (scripts/server.mjs) takes for surface traffic,
 * without Next.js routing or Web stream conversions. Streams both ways with
 * the same limits; errors go to `onError` before anything was sent.
 */
export function pipeNode(
  req: import("node:http").IncomingMessage,
  res: import("node:http").ServerResponse,
  upstreamPath: string,
  target: TProxyTarget,
  limits: TProxyLimits,
  onError: (err: ProxyError) => void,
): void {
  const declared = Number(req.headers["content-length"] ?? "NaN");
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes)
    return onError(new ProxyError(413, `The request body exceeds ${limits.maxBodyBytes} bytes`));
  const entries: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") entries.push([k, v]);
  const host = req.headers.host ?? "localhost";
  const headers = upstreamHeaders(entries, host, "http", req.socket.remoteAddress ?? null, target);
  const method = (req.method ?? "GET").toUpperCase();
  const hasBody = method !== "GET" && method !== "HEAD";
  if (hasBody && Number.isFinite(declared)) headers["content-length"] = String(declared);
  let size = 0;
  const body = hasBody
    ? (async function* limited() {
        for await (const chunk of req as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > limits.maxBodyBytes)
            throw new ProxyError(413, `The request body exceeds ${limits.maxBodyBytes} bytes`);
          yield chunk;
        }
      })()
    : undefined;
  poolFor(target.upstream, limits.timeoutMs)
    .request({
      path: upstreamPath,
      method: method,
      headers: gatewayHeaders(target.upstream, headers),
      body: body as never,
    })
    .then((up) => {
      const out = downstreamHeaders(up.headers, target);
      res.writeHead(up.statusCode, out.flat());
      if (method === "HEAD" || up.statusCode === 204 || up.statusCode === 304) {
        up.body.resume();
        res.end();
        return;
      }
      up.body.pipe(res);
      up.body.on("error", () => res.destroy());
      res.on("close", () => up.body.destroy());
    })
    .catch((err: unknown) => {
      const cause =
        err instanceof ProxyError
          ? err
          : (err as { cause?: unknown }).cause instanceof ProxyError
            ? (err as { cause: ProxyError }).cause
            : null;
      if (res.headersSent) return void res.destroy();
      onError(
        cause ??
          (err instanceof undiciErrors.HeadersTimeoutError
            ? new ProxyError(504, `The app did not answer within ${limits.timeoutMs} ms`)
            : noAnswer(err, target.upstream)),
      );
    });
}
