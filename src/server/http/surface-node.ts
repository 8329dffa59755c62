import type { IncomingMessage, ServerResponse } from "node:http";
import { decideSurface, proxyFailure, refusal, surfaceIdFromHost } from "@/server/domain/deployments/surfaces.service";
import { cachedHostRoute, hostOf, resolveHostRoute, type THostRoute } from "@/server/domain/domains/domain-routes";
import { env } from "@/server/platform/env";
import { pipeNode } from "@/server/runtime/surface-proxy";

/**
 * Surface traffic on the custom server's fast path (scripts/server.mjs):
 * a request whose Host names a surface, or whose path starts with /s/<srf>,
 * is decided and piped here on Node's own objects; everything else returns
 * false and goes to Next.js. Same decisions, headers and limits as the
 * route handler (app/s/[srf]), which remains the path under `next dev` and
 * `next start`.
 *
 * A Host that is a verified custom domain goes to its product's active
 * surface in the domain's environment (docs/decisions.md "Custom domains").
 * An unknown Host needs a (cached) lookup first: with `fallback` (the custom
 * server passes Next.js's handler) it is looked up and then served or handed
 * to Next.js; without one only what the cache already knows is served.
 */
const PATH_ROUTE = /^\/s\/([^/?#]+)(\/[^?#]*)?(\?.*)?$/;

export function serveSurfaceNode(req: IncomingMessage, res: ServerResponse, fallback?: () => void): boolean {
  try {
    return route(req, res, fallback);
  } catch {
    // A request listener must never throw (it would take the process down): hostile input is a 400.
    if (!res.headersSent) res.writeHead(400, { "content-type": "application/problem+json" });
    res.end(JSON.stringify({ type: "https://capstan.dev/problems/bad_request", title: "Bad request", status: 400, code: "bad_request", detail: "The request line or Host header is malformed" }));
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
      if (known) return serveCustom(req, res, known);
      if (known === undefined && fallback) {
        void resolveHostRoute(custom)
          .then((r) => (r ? serveCustom(req, res, r) : fallback()))
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
  void decideSurface(probe, srf, Boolean(hostSrf))
    .then(async (decision) => {
      if ("refuse" in decision) return send(res, decision.refuse);
      pipeNode(req, res, upstream, decision.target, decision.limits, (err) => void send(res, proxyFailure(probe, err)));
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/problem+json" });
      res.end(JSON.stringify({ type: "https://capstan.dev/problems/internal", title: "Internal error", status: 500, code: "internal" }));
    });
  return true;
}

let publicHost: string | undefined;

/** The Host as a possible custom domain: not Capstan's own host, not an IP, not a single label. */
function customHost(header: string | undefined): string | null {
  const host = hostOf(header);
  if (!host) return null;
  publicHost ??= new URL(env().CAPSTAN_PUBLIC_URL).hostname.toLowerCase();
  return host === publicHost ? null : host;
}

function serveCustom(req: IncomingMessage, res: ServerResponse, r: NonNullable<THostRoute>): true {
  const headers = new Headers();
  if (req.headers.accept) headers.set("accept", String(req.headers.accept));
  const probe = new Request(`http://domain.capstan.internal${(req.url ?? "/").startsWith("/") ? "" : "/"}`, { headers });
  if (r.kind === "no_surface") {
    void send(res, refusal(probe, 503, "Nothing is deployed here yet", `This domain serves the ${r.environmentType} environment of its product, which has no active deployment.`, "domain_no_active_deployment"));
    return true;
  }
  void decideSurface(probe, r.surfaceId, true)
    .then((decision) => {
      if ("refuse" in decision) return send(res, decision.refuse);
      pipeNode(req, res, req.url ?? "/", decision.target, decision.limits, (err) => void send(res, proxyFailure(probe, err)));
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/problem+json" });
      res.end(JSON.stringify({ type: "https://capstan.dev/problems/internal", title: "Internal error", status: 500, code: "internal" }));
    });
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
