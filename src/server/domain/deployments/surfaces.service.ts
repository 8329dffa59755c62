import type { Surface } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound, problemResponse } from "@/server/platform/errors";
import { idPattern, newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { upstreamFor } from "@/server/domain/runners/runner-hosts.service";
import { forward, ProxyError, type TProxyLimits, type TProxyTarget } from "@/server/runtime/surface-proxy";
import type { TEnvironmentType, TSurface } from "./deployments.contract";
import { retireInTx, release } from "./lifecycle";
import { cachedSurface, rememberSurface, type TSurfaceRoute } from "./surface-cache";
import { moveSurface } from "./transitions";
import { closeSessionsTx } from "@/server/domain/sessions/access.service";

/**
 * Surfaces: the web entry point of a deployment, reachable two ways
 *  - the host route `http://srf-<id body>.<CAPSTAN_SURFACE_DOMAIN>[:port]/` (its own origin;
 *    the `srf_<id>` spelling is accepted too), the surface's `url`;
 *  - the path route `<CAPSTAN_PUBLIC_URL>/s/<srf id>/` on Capstan's own origin (always works;
 *    documents there are sandboxed so the app cannot act as the console).
 */
const SRF_BODY = "[0-7][0-9a-hjkmnp-tv-z]{25}";
const SRF_ID = idPattern("srf");

export function surfaceHost(id: string): string {
  return `srf-${id.slice(4)}.${env().CAPSTAN_SURFACE_DOMAIN}`;
}

export function surfaceUrls(id: string): { url: string; pathUrl: string; host: string } {
  const pub = new URL(env().CAPSTAN_PUBLIC_URL);
  const host = surfaceHost(id);
  return { url: `${pub.protocol}//${host}${pub.port ? `:${pub.port}` : ""}/`, pathUrl: `${pub.origin}/s/${id}/`, host };
}

/** The surface id a Host header names, or null. */
export function surfaceIdFromHost(hostHeader: string | null): string | null {
  if (!hostHeader) return null;
  const domain = env().CAPSTAN_SURFACE_DOMAIN.replace(/\./g, "\\.");
  const m = new RegExp(`^srf[-_](${SRF_BODY})\\.${domain}(:\\d+)?$`, "i").exec(hostHeader.trim());
  return m ? `srf_${m[1]!.toLowerCase()}` : null;
}

export function surfaceTtlSeconds(type: TEnvironmentType): number {
  const e = env();
  return type === "preview" ? e.CAPSTAN_SURFACE_TTL_PREVIEW_SECONDS : type === "staging" ? e.CAPSTAN_SURFACE_TTL_STAGING_SECONDS : e.CAPSTAN_SURFACE_TTL_PRODUCTION_SECONDS;
}

export function toSurface(s: Surface): TSurface {
  const out: TSurface = {
    id: s.id, workspace_id: s.workspaceId, product_id: s.productId, deployment_id: s.deploymentId, environment_id: s.environmentId,
    environment_type: s.environmentType as TEnvironmentType, surface_type: "web", status: s.status as TSurface["status"],
    identity_requirement: "none", access_policy: "preview_direct", expires_at: iso(s.expiresAt), deadline_id: s.deadlineId,
    created_at: iso(s.createdAt), updated_at: iso(s.updatedAt),
  };
  if (s.reasonCode) out.reason_code = s.reasonCode;
  if (s.url) {
    out.url = s.url;
    out.path_url = surfaceUrls(s.id).pathUrl;
  }
  if (s.route) out.route = s.route as TSurface["route"];
  if (s.reachability) out.reachability = s.reachability as TSurface["reachability"];
  if (s.activatedAt) out.activated_at = iso(s.activatedAt);
  return out;
}

export async function listSurfaces(workspaceId: string, q: TListQuery & { product_id?: string; deployment_id?: string }): Promise<TPage<TSurface>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).surface.findMany({
    ...args,
    where: { ...args.where, ...(q.product_id ? { productId: q.product_id } : {}), ...(q.deployment_id ? { deploymentId: q.deployment_id } : {}) },
  });
  return toPage(rows, q, toSurface);
}

export async function getSurface(workspaceId: string, id: string): Promise<TSurface> {
  const s = await scopedDb(workspaceId).surface.findUnique({ where: { id } });
  if (!s) throw notFound(`Surface ${id}`);
  return toSurface(s);
}

async function resolveRoute(id: string): Promise<TSurfaceRoute | null> {
  const hit = cachedSurface(id);
  if (hit !== undefined) return hit;
  // Platform-scoped by design: the surface proxy resolves a surface by its id (from the path or Host) before any workspace is known.
  const s = await db().surface.findUnique({ where: { id }, include: { deployment: { select: { id: true, runtime: true, runnerHost: true } } } });
  const value = s
    ? { id, status: s.status, reasonCode: s.reasonCode, expiresAt: s.expiresAt, upstream: await upstreamFor(s.deployment), started: s.deployment.runtime !== null }
    : null;
  rememberSurface(id, value);
  return value;
}

export function refusal(req: Request, status: 404 | 410 | 503 | 413 | 502 | 504, title: string, detail: string, reason: string): Response {
  if ((req.headers.get("accept") ?? "").includes("text/html")) {
    const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} ${esc(title)}</title>`
      + `<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:15vh auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}p{color:#555}</style></head>`
      + `<body><h1>${esc(title)}</h1><p>${esc(detail)}</p><p><small>Capstan · ${status} · ${esc(reason)}</small></p></body></html>`;
    return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...(status === 503 ? { "retry-after": "2" } : {}) } });
  }
  const code = status === 404 ? "not_found" : status === 503 || status === 502 || status === 504 ? "unavailable" : "bad_request";
  const err = new AppError(code, detail, { reason, status: status === 413 ? 413 : undefined, headers: status === 503 ? { "retry-after": "2" } : {} });
  const res = problemResponse(err, { instance: new URL(req.url).pathname, correlationId: newId("evt") });
  if (status === 410 || status === 502 || status === 504) {
    // Statuses outside the error catalogue's defaults keep the problem body with the real status.
    return new Response(res.body, { status, headers: res.headers });
  }
  return res;
}

/**
 * Serves one request to a surface. `viaHost` is true on the host route (the
 * Host header named the surface); on the path route the app is mounted
 * under `/s/<srf>` and its documents are sandboxed.
 */
/**
 * Where a request to a surface goes: a proxy target, or the answer that
 * refuses it (404 unknown, 410 gone, 503 starting, 502 no process). Shared
 * by the Request-based route and the custom server's Node fast path.
 */
export async function decideSurface(
  req: Request, srfId: string, viaHost: boolean, opts: { allowValidating?: boolean } = {},
): Promise<{ target: TProxyTarget; limits: TProxyLimits } | { refuse: Response }> {
  const refuse = (...a: Parameters<typeof refusal>) => ({ refuse: refusal(...a) });
  if (!SRF_ID.test(srfId)) return refuse(req, 404, "No such surface", `${srfId.slice(0, 40)} is not a surface id`, "surface_not_found");
  const route = await resolveRoute(srfId);
  if (!route) return refuse(req, 404, "No such surface", `Surface ${srfId} does not exist`, "surface_not_found");
  const dead = route.status === "expired" || route.status === "configuration_failed" || route.status === "expiration_registration_failed";
  if (dead || route.expiresAt.getTime() <= Date.now()) {
    return refuse(req, 410, "This surface is gone", `Surface ${srfId} ${route.status === "expired" || !dead ? "has expired" : "failed"}${route.reasonCode ? ` (${route.reasonCode})` : ""}; deploy again to get a new one.`, route.reasonCode ?? "surface_expired");
  }
  if (route.status !== "active" && !(opts.allowValidating && route.status === "validating")) {
    return refuse(req, 503, "This surface is starting", `Surface ${srfId} is ${route.status}; try again in a moment.`, "surface_not_active");
  }
  if (!route.upstream) {
    return route.started
      ? refuse(req, 502, "The app could not be reached", `The runner host of surface ${srfId} is not live`, "runner_host_unreachable")
      : refuse(req, 502, "The app is not running", `Surface ${srfId} has no running process`, "deployment_not_running");
  }
  const e = env();
  return {
    target: { upstream: route.upstream, prefix: viaHost ? "" : `/s/${srfId}`, sandboxDocument: !viaHost },
    limits: { maxBodyBytes: e.CAPSTAN_SURFACE_MAX_BODY_BYTES, timeoutMs: e.CAPSTAN_SURFACE_TIMEOUT_MS },
  };
}

export function proxyFailure(req: Request, err: ProxyError): Response {
  return refusal(req, err.status, err.status === 413 ? "Request too large" : err.status === 504 ? "The app did not answer in time" : "The app could not be reached", err.message, err.status === 413 ? "body_too_large" : err.status === 504 ? "upstream_timeout" : "upstream_unreachable");
}

export async function serveSurface(req: Request, srfId: string, upstreamPath: string, viaHost: boolean, opts: { allowValidating?: boolean } = {}): Promise<Response> {
  const decision = await decideSurface(req, srfId, viaHost, opts);
  if ("refuse" in decision) return decision.refuse;
  try {
    return await forward(req, upstreamPath, decision.target, decision.limits, req.headers.get("x-forwarded-for"));
  } catch (err) {
    if (err instanceof ProxyError) return proxyFailure(req, err);
    throw err;
  }
}

/** The Next.js route's entry: works out the surface and the upstream path from the request itself. */
export async function handleSurfaceRequest(req: Request, srfFromPath: string | null): Promise<Response> {
  const url = new URL(req.url);
  const hostSrf = surfaceIdFromHost(req.headers.get("host"));
  if (hostSrf) {
    // The host route is rewritten to /s/<srf>/...: strip that prefix again.
    const prefix = `/s/${hostSrf}`;
    const rest = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    return serveSurface(req, hostSrf, (rest || "/") + url.search, true);
  }
  const id = srfFromPath ?? "";
  const rest = url.pathname.slice(`/s/${id}`.length);
  return serveSurface(req, id, (rest || "/") + url.search, false);
}

/**
 * The deadline worker: fires registered deadlines that are due (leased with
 * FOR UPDATE SKIP LOCKED, so any number of processes can run it). A due
 * surface expires and its active deployment stops (deployment.stopped,
 * reason_code `expired`), freeing its process, port and directory.
 */
export async function fireDueDeadlines(limit = 20): Promise<number> {
  // Platform-scoped by design: a worker over every workspace's deadlines.
  const due = await db().$queryRaw<{ id: string; subject_id: string }[]>`
    UPDATE deadlines SET locked_until = now() + interval '60 seconds', updated_at = now()
     WHERE id IN (
       SELECT id FROM deadlines
        WHERE status = 'registered' AND due_at <= now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY due_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, subject_id`;
  for (const d of due) {
    try {
      // platform-scoped: a deadline worker over every workspace's surfaces.
      const released = await db().$transaction(async (tx) => {
        const ctx = { tx, actor: { kind: "system" as const, id: null }, correlationId: newId("evt") };
        await tx.deadline.updateMany({ where: { id: d.id, status: "registered" }, data: { status: "fired", firedAt: new Date(), lockedUntil: null, updatedAt: new Date() } });
        const srf = await tx.surface.findUnique({ where: { id: d.subject_id }, include: { deployment: true } });
        if (!srf) return null;
        if (srf.deployment.status === "active") return retireInTx(ctx, srf.deployment, "expire", "expired");
        if (srf.status === "active" || srf.status === "validating" || srf.status === "awaiting_expiration_registration") {
          await moveSurface(ctx, srf, "expire", { reasonCode: "deadline_reached" });
          await closeSessionsTx(tx, { surfaceId: srf.id }, "surface_expired");
        }
        return null;
      });
      if (released) await release(released);
    } catch (err) {
      logger.error("deadline.fire_failed", { deadline_id: d.id, error: String(err) });
    }
  }
  return due.length;
}
