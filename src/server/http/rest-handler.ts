import "server-only";
import { TRPCError, type AnyTRPCRouter } from "@trpc/server";
import { createOpenApiNodeHttpHandler, getInputOutputParsers, unwrapZodType } from "trpc-to-openapi";
import { ZodError } from "zod";
import { appRouter } from "@/server/trpc/root";
import { trpcErrorToAppError, type TMeta } from "@/server/trpc/init";
import { createContextInner, type TContext } from "@/server/trpc/context";
import { authenticateRequest } from "@/server/domain/identity/authenticate";
import { getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { AppError, problemResponse, toAppError } from "@/server/platform/errors";
import { readBodyLimited, parseJsonBody, tooLarge } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  requestFingerprint,
  validateIdempotencyKey,
} from "@/server/platform/idempotency";
import { logger } from "@/server/platform/logger";
import { handleEvidenceDownload } from "./evidence-handler";
import { handleInvoicePdf } from "./invoice-pdf-handler";
import { handleUpload } from "./uploads-handler";
import { handlePaymentCallback } from "./payment-callback-handler";
import { handleLogDownload } from "./log-download-handler";
import { handleBucketObject } from "./bucket-object-handler";
import { handlePushHook } from "./push-hook-handler";
import { newId } from "@/server/platform/ids";
import { oneTimeSecretPaths, storableBody } from "@/server/platform/one-time-secret";

/**
 * The `/v1` REST boundary: trpc-to-openapi behind a thin wrapper that owns
 * what the library gets wrong for our contract: problem+json errors, 201/202/
 * 204 statuses, 422 for body schema failures, body size limits, empty-body
 * normalisation, correlation ids and Idempotency-Key replay. The library's
 * node handler is built once (its fetch adapter rebuilds it per request).
 */
type TSeed = { ctx: TContext; error?: TRPCError; procedurePath?: string };
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);
type TNodeHandler = (req: unknown, res: unknown) => Promise<void>;
type TProcs = Record<string, { _def: { meta?: TMeta } }>;
type TDispatched = { status: number; headers: Headers; body: string };

/**
 * The REST machinery over one router: the app's (`handleRest`), or a router a
 * test extends with a planted operation (the one-time-secrets test).
 */
function restDispatcher(router: AnyTRPCRouter) {
  const seeds = new WeakMap<object, TSeed>();
  /** Which procedure answered (set from responseMeta, which sees ctx but not req). */
  const procedureOf = new WeakMap<TContext, string>();
  const secretPathCache = new Map<string, string[][]>();
  const procs = router._def.procedures as unknown as TProcs;

  // The library strips `endpoint` from the URL with String.replace. Our procedure
  // paths carry the full /v1 prefix, so we hand it a string no URL can contain.
  let nodeHandler: TNodeHandler | undefined;
  function handler(): TNodeHandler {
    if (!nodeHandler) pinBodyCoercion(procs);
    nodeHandler ??= createOpenApiNodeHttpHandler({
      router,
      createContext: ({ req }: { req: object }) => seeds.get(req)!.ctx,
      responseMeta: ({ ctx, paths, errors }: { ctx?: TContext; paths?: string[]; errors: unknown[] }) => {
        if (errors.length || !paths?.[0]) return {};
        if (ctx) procedureOf.set(ctx, paths[0]);
        const meta = procs[paths[0]]?._def.meta;
        return { status: meta?.successStatus ?? 200, headers: { ...ctx?.resHeaders } };
      },
      onError: ({ error, req, path }: { error: TRPCError; req: object; path?: string }) => {
        const seed = seeds.get(req);
        if (seed) {
          seed.error = error;
          seed.procedurePath = path;
        }
      },
    } as never) as unknown as TNodeHandler;
    return nodeHandler;
  }

  /** The marked one-time-secret fields of the procedure that answered (derived from its output schema, once). */
  function secretPaths(ctx: TContext): string[][] {
    const path = procedureOf.get(ctx);
    if (!path) return [];
    let paths = secretPathCache.get(path);
    if (!paths) {
      const { outputParser } = getInputOutputParsers(procs[path] as never) as { outputParser: unknown };
      paths = oneTimeSecretPaths(outputParser);
      secretPathCache.set(path, paths);
    }
    return paths;
  }

  function dispatch(req: Request, body: unknown, ctx: TContext): Promise<TDispatched & { seed: TSeed }> {
    const proxy = new Proxy(req, {
      get(target, prop) {
        if (prop === "body") return body;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const seed: TSeed = { ctx };
    seeds.set(proxy, seed);
    return new Promise((resolve, reject) => {
      const headers = new Headers();
      let status = 200;
      const res = {
        setHeader: (k: string, v: string | string[]) => {
          for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
        },
        get statusCode() {
          return status;
        },
        set statusCode(code: number) {
          status = code;
        },
        end: (b?: string) => resolve({ status, headers, body: b ?? "", seed }),
      };
      handler()(proxy, res).catch(reject);
    });
  }

  return { dispatch, secretPaths, procedureMeta: (path: string) => procs[path]?._def.meta };
}

/**
 * trpc-to-openapi sets `_def.coerce = true` on every number/boolean/date of a
 * procedure's input object on every request, bodies included, so `"10"` would
 * pass as 10 (and, the schemas being shared, on the tRPC path too). JSON bodies
 * carry real types: for body procedures we pin `coerce` to false with a
 * setter that ignores the library's writes. Query params declare z.coerce
 * explicitly where they want it.
 */
function pinBodyCoercion(procs: TProcs): void {
  for (const proc of Object.values(procs)) {
    const method = proc._def.meta?.openapi?.method;
    if (!method || !BODY_METHODS.has(method)) continue;
    const { inputParser } = getInputOutputParsers(proc as never) as { inputParser: unknown };
    pinObject(unwrapZodType(inputParser as never, true));
  }
}

type TZodLike = { _zod?: { def?: { type?: string } }; _def?: Record<string, unknown>; shape?: Record<string, unknown> };
function pinObject(schema: unknown): void {
  const s = schema as TZodLike;
  if (s?._zod?.def?.type !== "object" || !s.shape) return;
  for (const child of Object.values(s.shape)) {
    const inner = unwrapZodType(child as never, false) as unknown as TZodLike;
    const kind = inner?._zod?.def?.type;
    if (kind === "number" || kind === "boolean" || kind === "bigint" || kind === "date") {
      Object.defineProperty(inner._def!, "coerce", { get: () => false, set: () => undefined, configurable: true });
    } else if (kind === "object") {
      pinObject(inner);
    }
  }
}

type TDispatcher = ReturnType<typeof restDispatcher>;

/** Which part of the request a zod failure is about: path params and query are 400, bodies 422. */
function zodWhere(error: TRPCError, method: string, seed: TSeed, d: TDispatcher): "body" | "query" {
  if (!BODY_METHODS.has(method)) return "query";
  const meta = seed.procedurePath ? d.procedureMeta(seed.procedurePath) : undefined;
  const pathParams = new Set([...(meta?.openapi?.path ?? "").matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  const cause = error.cause;
  if (cause instanceof ZodError && cause.issues.some((i) => pathParams.has(String(i.path[0])))) return "query";
  return "body";
}

/** Raw-bytes routes (own Next.js routes too): dispatched here so any caller of handleRest reaches them. */
const UPLOADS = /^\/v1\/workspaces\/([^/]+)\/uploads$/;
const EVIDENCE = /^\/v1\/workspaces\/([^/]+)\/evidence\/([^/]+)$/;
const INVOICE_PDF = /^\/v1\/workspaces\/([^/]+)\/invoices\/([^/]+)\/pdf$/;
const PAYMENT_CALLBACK = /^\/v1\/payments\/callbacks\/([^/]+)$/;
const PUSH_HOOK = /^\/v1\/hooks\/products\/([^/]+)\/push$/;
const LOG_DOWNLOAD = /^\/v1\/workspaces\/([^/]+)\/deployments\/([^/]+)\/logs\/download$/;
const BUCKET_OBJECT = /^\/v1\/buckets\/([^/]+)\/(.+)$/;

/** The `/v1` REST handler over a router (tests plant operations in an extended one). */
export function createRestHandler(router: AnyTRPCRouter): (req: Request) => Promise<Response> {
  const d = restDispatcher(router);
  return (req) => handleRestWith(d, req);
}

let appHandler: ((req: Request) => Promise<Response>) | undefined;
export function handleRest(req: Request): Promise<Response> {
  appHandler ??= createRestHandler(appRouter);
  return appHandler(req);
}

/**
 * What a Node transport (rest-node.ts) knows before it builds the web Request: when the request arrived (timing
 * starts there) and its body, already read (the Request then carries none: reading it back through a web stream cost
 * 0.25 ms p50 of an invocation's answer on the bench machine).
 */
const arrivals = new WeakMap<Request, { at: number; body?: Buffer }>();
export function noteArrival(req: Request, arrivedAt: number, body?: Buffer): void {
  arrivals.set(req, { at: arrivedAt, body });
}

/** The text a JSON response of handleRest carries, for a transport that writes it itself (no stream read back). */
const texts = new WeakMap<Response, string>();
export function responseText(res: Response): string | undefined {
  return texts.get(res);
}

async function handleRestWith(d: TDispatcher, req: Request): Promise<Response> {
  const arrival = arrivals.get(req);
  const started = arrival?.at ?? performance.now();
  const url = new URL(req.url);
  const upload = req.method === "POST" ? UPLOADS.exec(url.pathname) : null;
  // Ids are URL-safe: passed as they are, so a malformed escape is a 400 from the handler, not a throw here.
  if (upload) return handleUpload(req, upload[1]!);
  const evidence = req.method === "GET" ? EVIDENCE.exec(url.pathname) : null;
  if (evidence) return handleEvidenceDownload(req, evidence[1]!, evidence[2]!);
  // Bytes too (the Next.js route serves the same handler with the console's session as well).
  const pdf = req.method === "GET" ? INVOICE_PDF.exec(url.pathname) : null;
  if (pdf) return handleInvoicePdf(req, pdf[1]!, pdf[2]!);
  // Signed over its raw body by the gateway, no bearer: its own handler.
  const callback = req.method === "POST" ? PAYMENT_CALLBACK.exec(url.pathname) : null;
  if (callback) return handlePaymentCallback(req, callback[1]!);
  // Signed over its raw body by the repository, no bearer: its own handler.
  const push = req.method === "POST" ? PUSH_HOOK.exec(url.pathname) : null;
  if (push) return handlePushHook(req, push[1]!);
  const logDownload = req.method === "GET" ? LOG_DOWNLOAD.exec(url.pathname) : null;
  if (logDownload) return handleLogDownload(req, logDownload[1]!, logDownload[2]!);
  // A presigned object URL: its signature is the only credential (no bearer, no session).
  const object = BUCKET_OBJECT.exec(url.pathname);
  if (object) return handleBucketObject(req, object[1]!, object[2]!);
  const instance = url.pathname;
  let correlationId = "";
  try {
    const corr = resolveCorrelation(req.headers);
    correlationId = corr.correlationId;
    await getDb();

    const method = req.method.toUpperCase();
    let body: unknown = undefined;
    if (BODY_METHODS.has(method)) {
      const max = env().CAPSTAN_MAX_BODY_BYTES;
      if (arrival?.body && arrival.body.length > max) throw tooLarge(max);
      const text = arrival?.body ? arrival.body.toString("utf8") : await readBodyLimited(req, max);
      body = parseJsonBody(text, req.headers.get("content-type"));
    }
    const idemKey = method === "POST" ? validateIdempotencyKey(req.headers.get("idempotency-key")) : undefined;
    const auth = await authenticateRequest(req.headers.get("authorization"));
    const ctx = createContextInner({
      correlationId,
      clientReference: corr.clientReference,
      principal: auth.principal,
      authError: auth.error,
      transport: "rest",
      request: { method, path: instance },
      startedAt: started,
    });

    // Normalise the request the library sees: JSON content type, parsed body.
    const headers = new Headers(req.headers);
    if (BODY_METHODS.has(method)) headers.set("content-type", "application/json");
    const forwarded = new Request(req.url, { method, headers });

    let claimId: string | undefined;
    if (idemKey && auth.principal) {
      const scope = { principalId: auth.principal.userId, method, path: instance, key: idemKey };
      const claim = await claimIdempotencyKey(scope, requestFingerprint(body));
      if (claim.kind === "replay") {
        const h = new Headers(claim.response.headers);
        h.set("idempotent-replayed", "true");
        h.set("x-correlation-id", correlationId);
        return new Response(claim.response.status === 204 ? null : claim.response.body, {
          status: claim.response.status,
          headers: h,
        });
      }
      claimId = claim.id;
    }

    let response: Response;
    try {
      response = await toResponse(await d.dispatch(forwarded, body, ctx), method, instance, correlationId, d);
    } catch (err) {
      if (claimId) await releaseIdempotencyKey(claimId);
      throw err;
    }
    if (claimId) {
      const text = await response.clone().text();
      // One-time secrets are never stored: the operation's marked fields are removed before the write.
      const stored = {
        status: response.status,
        headers: storableHeaders(response.headers),
        body: storableBody(text, d.secretPaths(ctx)),
      };
      await completeIdempotencyKey(claimId, stored);
    }
    logger.debug("http.request", {
      method,
      path: instance,
      status: response.status,
      ms: Math.round(performance.now() - started),
      correlation_id: correlationId,
    });
    return response;
  } catch (err) {
    const appErr = toAppError(err);
    if (appErr.code === "internal")
      logger.error("http.unhandled", {
        path: instance,
        correlation_id: correlationId,
        error: String((err as Error)?.stack ?? err),
      });
    // A bad X-Correlation-Id header fails before an id exists: give this response its own.
    return problemResponse(appErr, { instance, correlationId: correlationId || newId("evt") });
  }
}

async function toResponse(
  d: TDispatched & { seed: TSeed },
  method: string,
  instance: string,
  correlationId: string,
  dispatcher: TDispatcher,
): Promise<Response> {
  if (d.seed.error) {
    const error = d.seed.error;
    const appErr =
      error.cause instanceof AppError
        ? error.cause
        : trpcErrorToAppError(error, zodWhere(error, method, d.seed, dispatcher));
    if (appErr.code === "internal") {
      logger.error("http.procedure_failed", {
        path: instance,
        correlation_id: correlationId,
        error: String(error.cause?.stack ?? error.stack),
      });
    }
    return problemResponse(appErr, { instance, correlationId, headers: d.seed.ctx.resHeaders });
  }
  const headers = new Headers(d.headers);
  headers.set("x-correlation-id", correlationId);
  if (d.status === 204) {
    headers.delete("content-type");
    return new Response(null, { status: 204, headers });
  }
  const res = new Response(d.body, { status: d.status, headers });
  texts.set(res, d.body);
  return res;
}

function storableHeaders(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (k !== "x-correlation-id" && k !== "set-cookie") out[k] = v;
  });
  return out;
}
