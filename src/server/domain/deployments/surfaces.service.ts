import type { Surface } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { notFound } from "@/server/platform/errors";
import { idPattern, newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { upstreamFor } from "@/server/domain/runners/runner-hosts.service";
import { forward, ProxyError, type TProxyLimits, type TProxyTarget } from "@/server/runtime/surface-proxy";
import type { TEnvironmentType, TSurface } from "./deployments.contract";
import { retireInTx, release } from "./lifecycle";
import { audienceRefusal, type TAudience } from "./surface-audience";
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
  return type === "preview"
    ? e.CAPSTAN_SURFACE_TTL_PREVIEW_SECONDS
    : type === "staging"
      ? e.CAPSTAN_SURFACE_TTL_STAGING_SECONDS
      : e.CAPSTAN_SURFACE_TTL_PRODUCTION_SECONDS;
}

export function toSurface(s: Surface): TSurface {
  const out: TSurface = {
    id: s.id,
    workspace_id: s.workspaceId,
    product_id: s.productId,
    deployment_id: s.deploymentId,
    environment_id: s.environmentId,
    environment_type: s.environmentType as TEnvironmentType,
    surface_type: "web",
    status: s.status as TSurface["status"],
    identity_requirement: "none",
    access_policy: "preview_direct",
    expires_at: iso(s.expiresAt),
    deadline_id: s.deadlineId,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
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

export async function listSurfaces(
  workspaceId: string,
  q: TListQuery & { product_id?: string; deployment_id?: string },
): Promise<TPage<TSurface>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).surface.findMany({
    ...args,
    where: {
      ...args.where,
      ...(q.product_id ? { productId: q.product_id } : {}),
      ...(q.deployment_id ? { deploymentId: q.deployment_id } : {}),
    },
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
  const s = await db().surface.findUnique({
    where: { id },
    include: {
      deployment: {
        select: { id: true, status: true, runtime: true, runnerHost: true, release: { select: { audience: true } } },
      },
    },
  });
  const value = s
    ? {
        id,
        status: s.status,
        reasonCode: s.reasonCode,
        expiresAt: s.expiresAt,
        // An active surface on a failed deployment is kept for its replacement (lost host): no upstream until it takes over.
        upstream: s.deployment.status === "failed" ? null : await upstreamFor(s.deployment),
        started: s.deployment.runtime !== null,
        replacing: s.deployment.status === "failed",
        workspaceId: s.workspaceId,
        audience: (s.deployment.release?.audience as { kind?: TAudience } | null)?.kind ?? null,
      }
    : null;
  rememberSurface(id, value);
  return value;
}

/** Why a surface does not serve a request, as data: the HTTP boundary (http/surface-handler.ts) renders it. */
export type TSurfaceRefusal = {
  status: 401 | 403 | 404 | 410 | 503 | 413 | 502 | 504;
  title: string;
  detail: string;
  reason: string;
};

/**
 * Where a request to a surface goes: a proxy target, or the answer that
 * refuses it (404 unknown, 410 gone, 503 starting, 502 no process). Shared
 * by the Request-based route and the custom server's Node fast path.
 */
export type TSurfaceAsk = {
  allowValidating?: boolean;
  /** Capstan's own reachability probe (apply.service): not a visitor, so no audience applies. */
  reachabilityProbe?: boolean;
  /** The request came on a custom domain (the app's own origin). */
  customDomain?: boolean;
  /** Who is asking (bearer token or console session), for releases not open to anyone; resolved only when needed. */
  callerOf?: () => Promise<string | null>;
};

export async function decideSurface(
  req: Request,
  srfId: string,
  viaHost: boolean,
  opts: TSurfaceAsk = {},
): Promise<{ target: TProxyTarget; limits: TProxyLimits } | { refuse: TSurfaceRefusal }> {
  const refuse = (status: TSurfaceRefusal["status"], title: string, detail: string, reason: string) => ({
    refuse: { status, title, detail, reason },
  });
  if (!SRF_ID.test(srfId))
    return refuse(404, "No such surface", `${srfId.slice(0, 40)} is not a surface id`, "surface_not_found");
  const route = await resolveRoute(srfId);
  if (!route) return refuse(404, "No such surface", `Surface ${srfId} does not exist`, "surface_not_found");
  const dead =
    route.status === "expired" ||
    route.status === "configuration_failed" ||
    route.status === "expiration_registration_failed";
  if (dead || route.expiresAt.getTime() <= Date.now()) {
    return refuse(
      410,
      "This surface is gone",
      `Surface ${srfId} ${route.status === "expired" || !dead ? "has expired" : "failed"}${route.reasonCode ? ` (${route.reasonCode})` : ""}; deploy again to get a new one.`,
      route.reasonCode ?? "surface_expired",
    );
  }
  if (route.status !== "active" && !(opts.allowValidating && route.status === "validating")) {
    return refuse(
      503,
      "This surface is starting",
      `Surface ${srfId} is ${route.status}; try again in a moment.`,
      "surface_not_active",
    );
  }
  // The release's audience (docs/decisions.md "The production path: staging, promotion, rollback"): before anything reaches the app.
  const denied = opts.reachabilityProbe
    ? null
    : await audienceRefusal(route.audience, route.workspaceId, {
        customDomain: Boolean(opts.customDomain),
        callerOf: opts.callerOf,
      });
  if (denied) return refuse(denied.status, denied.title, denied.detail, denied.reason);
  if (!route.upstream) {
    if (route.replacing)
      return refuse(
        503,
        "This app is moving",
        `The runner host of surface ${srfId} was lost; the app is being placed again on another host and answers here once it is healthy.`,
        "deployment_replacing",
      );
    return route.started
      ? refuse(
          502,
          "The app could not be reached",
          `The runner host of surface ${srfId} is not live`,
          "runner_host_unreachable",
        )
      : refuse(502, "The app is not running", `Surface ${srfId} has no running process`, "deployment_not_running");
  }
  const e = env();
  return {
    target: { upstream: route.upstream, prefix: viaHost ? "" : `/s/${srfId}`, sandboxDocument: !viaHost },
    limits: { maxBodyBytes: e.CAPSTAN_SURFACE_MAX_BODY_BYTES, timeoutMs: e.CAPSTAN_SURFACE_TIMEOUT_MS },
  };
}

/** A proxy failure (body too large, timeout, unreachable) as a refusal. */
export function proxyRefusal(err: ProxyError): TSurfaceRefusal {
  return {
    status: err.status,
    title:
      err.status === 413
        ? "Request too large"
        : err.status === 504
          ? "The app did not answer in time"
          : "The app could not be reached",
    detail: err.message,
    reason:
      err.reason ??
      (err.status === 413 ? "body_too_large" : err.status === 504 ? "upstream_timeout" : "upstream_unreachable"),
  };
}

/**
 * Capstan's own reachability probe of a new surface (apply.service): the status the app (or the refusal) answers
 * with; the body is not read.
 */
export async function probeSurface(
  req: Request,
  srfId: string,
  upstreamPath: string,
  opts: TSurfaceAsk = {},
): Promise<{ status: number }> {
  const decision = await decideSurface(req, srfId, false, opts);
  if ("refuse" in decision) return { status: decision.refuse.status };
  try {
    const res = await forward(req, upstreamPath, decision.target, decision.limits, null);
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status };
  } catch (err) {
    if (err instanceof ProxyError) return { status: err.status };
    throw err;
  }
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
        await tx.deadline.updateMany({
          where: { id: d.id, status: "registered" },
          data: { status: "fired", firedAt: new Date(), lockedUntil: null, updatedAt: new Date() },
        });
        const srf = await tx.surface.findUnique({ where: { id: d.subject_id }, include: { deployment: true } });
        if (!srf) return null;
        if (srf.deployment.status === "active") return retireInTx(ctx, srf.deployment, "expire", "expired");
        if (
          srf.status === "active" ||
          srf.status === "validating" ||
          srf.status === "awaiting_expiration_registration"
        ) {
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
