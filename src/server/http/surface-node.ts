import type { IncomingMessage, ServerResponse } from "node:http";
import { decideSurface, surfaceIdFromHost } from "@/server/domain/deployments/surfaces.service";
import { proxyFailure, refusal } from "./surface-handler";
import { cachedHostRoute, hostOf, resolveHostRoute, type THostRoute } from "@/server/domain/domains/domain-routes";
import { env } from "@/server/platform/env";
import { problemBody } from "@/server/platform/errors";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from "@/server/platform/db-unavailable";
import { pipeNode } from "@/server/runtime/surface-proxy";
import { domainPage } from "./domain-pages";
import { surfaceCaller } from "./surface-caller";

/**
 * Surface traffic on the custom server's fast path (scripts/server.mjs):
 * a request whose Host names a surface, or whose path starts with /s/<srf>,
 * is decided and piped here on Node's own objects; everything else returns
 * false and goes to Next.js. Same decisions, headers and limits as the
 * route handler (app/s/[srf]), which remains the path under `next dev` and
 * `next start`.
 *
 * A Host that is a verified custom domain goes to its product's active
 * surface in the domain's environment (docs/decisions.md "Custom domains"),
 * as the app's own origin (headers and cookies untouched). Any other name
 * that is not Capstan's own gets a small page or problem saying whether the
 * domain is unknown, unverified or failed, never the console. A Host needs a
 * (cached) lookup first: with `fallback` (the custom server passes Next.js's
 * handler) it is looked up and then served; without one only what the cache
 * already knows is served.
 */
const PATH_ROUTE = /^\/s\/([^/?#]+)(\/[^?#]*)?(\?.*)?$/;

export function serveSurfaceNode(req: IncomingMessage, res: ServerResponse, fallback?: () => void): boolean {
  try {
    return route(req, res, fallback);
  } catch {
    // A request listener must never throw (it would take the process down): hostile input is a 400.
    if (!res.headersSent) res.writeHead(400, { "content-type": "application/problem+json" });
    res.end(problemBody(400, "The request line or Host header is malformed", { reason: "malformed_request" }));
    return true;
  }
}

function route(req: IncomingMessage, res: ServerResponse, fallback?: () => void): boolean {
  const url = req.url ?? "/";
  const hostSrf = surfaceIdFromHost(req.headers.host ?? null);
  let srf: string;
  let upstream: string;
  if (hostSrf) {
    srf = hostSrf;
    upstream = url;
  } else {
    const custom = customHost(req.headers.host);
    if (custom) {
      const known = cachedHostRoute(custom);
      if (known !== undefined && (known || fallback)) return serveCustom(req, res, custom, known, fallback);
      if (known === undefined && fallback) {
        void resolveHostRoute(custom)
          .then((r) => serveCustom(req, res, custom, r, fallback))
          .catch(() => fallback());
        return true;
      }
    }
    const m = PATH_ROUTE.exec(url);
    if (!m) return false;
    // Ids are URL-safe: no decoding (a malformed escape is then just an unknown surface).
    srf = m[1]!;
    upstream = (m[2] || "/") + (m[3] ?? "");
  }
  // A Request stand-in for the decision (headers only; the body stays on the Node stream).
  const headers = new Headers();
  if (req.headers.accept) headers.set("accept", String(req.headers.accept));
  // The decision only needs the path and Accept; the Host header is the client's and may be anything.
  const probe = new Request(`http://surface.capstan.internal/s/${encodeURIComponent(srf)}`, { headers });
  // Capstan's own hosts: the caller (bearer token or console session) counts for a release's audience.
  const callerOf = () => surfaceCaller(req.headers.authorization, req.headers.cookie);
  void decideSurface(probe, srf, Boolean(hostSrf), { callerOf })
    .then(async (decision) => {
      if ("refuse" in decision) return send(res, refusal(probe, decision.refuse));
      pipeNode(req, res, upstream, decision.target, decision.limits, (err) => void send(res, proxyFailure(probe, err)));
    })
    .catch((err: unknown) => answerFailure(res, err));
  return true;
}

/** A decision that threw: 503 with Retry-After when the database had no connection for it, else 500. */
function answerFailure(res: ServerResponse, err: unknown): void {
  const unavailable = isDatabaseUnavailable(err);
  if (!res.headersSent) {
    res.writeHead(unavailable ? 503 : 500, {
      "content-type": "application/problem+json",
      ...(unavailable ? { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) } : {}),
    });
  }
  res.end(
    unavailable
      ? problemBody(503, "The database has no connection free for this request; retry shortly", {
          reason: "database_unavailable",
        })
      : problemBody(500, "The surface could not be served; try again"),
  );
}

let consoleHosts: Set<string> | undefined;

/**
 * The Host as a possible custom domain: not one of Capstan's own hosts (CAPSTAN_PUBLIC_URL's,
 * NEXTAUTH_URL's, CAPSTAN_CONSOLE_HOSTS), not an IP, not a single label.
 */
function customHost(header: string | undefined): string | null {
  const host = hostOf(header);
  if (!host) return null;
  if (!consoleHosts) {
    const e = env();
    const urls = [e.CAPSTAN_PUBLIC_URL, process.env.NEXTAUTH_URL].filter((u): u is string => Boolean(u));
    consoleHosts = new Set(
      [
        ...urls.map((u) => {
          try {
            return new URL(u).hostname.toLowerCase();
          } catch {
            return "";
          }
        }),
        ...e.CAPSTAN_CONSOLE_HOSTS.split(",").map((h) => h.trim().toLowerCase()),
      ].filter(Boolean),
    );
  }
  return consoleHosts.has(host) ? null : host;
}

/** Capstan's probes answer on any Host that is not a routed custom domain (load balancers ask by address or by name). */
const OPERATOR_PATHS = /^\/(healthz|readyz|metrics|tls\/ask)(\?|$)/;

function serveCustom(
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  r: THostRoute,
  fallback?: () => void,
): true {
  const headers = new Headers();
  if (req.headers.accept) headers.set("accept", String(req.headers.accept));
  const probe = new Request(`http://domain.capstan.internal${(req.url ?? "/").startsWith("/") ? "" : "/"}`, {
    headers,
  });
  if (!r || r.kind === "unverified") {
    if (fallback && OPERATOR_PATHS.test(req.url ?? "/")) {
      fallback();
      return true;
    }
    // Never the console on a name that is not Capstan's: a page (or a problem) saying what the name is.
    void send(
      res,
      domainPage(
        req.headers.accept,
        host,
        r ? (r.status === "failed" ? "failed" : "pending_verification") : "unknown",
        req.url ?? "/",
      ),
    );
    return true;
  }
  if (r.kind === "no_surface") {
    void send(
      res,
      refusal(probe, {
        status: 503,
        title: "Nothing is deployed here yet",
        detail: `This domain serves the ${r.environmentType} environment of its product, which has no active deployment.`,
        reason: "domain_no_active_deployment",
      }),
    );
    return true;
  }
  void decideSurface(probe, r.surfaceId, true, { customDomain: true })
    .then((decision) => {
      if ("refuse" in decision) return send(res, refusal(probe, decision.refuse));
      // The app's own origin: every header and cookie passes both ways.
      pipeNode(
        req,
        res,
        req.url ?? "/",
        { ...decision.target, ownOrigin: true },
        decision.limits,
        (err) => void send(res, proxyFailure(probe, err)),
      );
    })
    .catch((err: unknown) => answerFailure(res, err));
  return true;
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => (headers[k] = v));
  headers["content-length"] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}
