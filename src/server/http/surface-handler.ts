import {
  decideSurface,
  proxyRefusal,
  surfaceIdFromHost,
  type TSurfaceAsk,
  type TSurfaceRefusal,
} from "@/server/domain/deployments/surfaces.service";
import { AppError, problemResponse } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { forward, ProxyError } from "@/server/runtime/surface-proxy";

/*
 * The surface route's HTTP side: the domain decides where a request goes or why not (surfaces.service.ts, as data);
 * this renders a refusal (a small HTML page for a browser, problem+json otherwise) and forwards the rest.
 */

export function refusal(req: Request, { status, title, detail, reason }: TSurfaceRefusal): Response {
  if ((req.headers.get("accept") ?? "").includes("text/html")) {
    const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const html =
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} ${esc(title)}</title>` +
      `<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:15vh auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}p{color:#555}</style></head>` +
      `<body><h1>${esc(title)}</h1><p>${esc(detail)}</p><p><small>Capstan · ${status} · ${esc(reason)}</small></p></body></html>`;
    return new Response(html, {
      status,
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        ...(status === 503 ? { "retry-after": "2" } : {}),
      },
    });
  }
  // 404 and 410 are not_found (gone is a resource that no longer exists), 413 a bad request, the rest unavailable;
  // the AppError carries the real status, so the problem's status and title are the response's.
  const code =
    status === 401
      ? "unauthenticated"
      : status === 403
        ? "forbidden"
        : status === 404 || status === 410
          ? "not_found"
          : status === 413
            ? "bad_request"
            : "unavailable";
  const err = new AppError(code, detail, { reason, status, headers: status === 503 ? { "retry-after": "2" } : {} });
  return problemResponse(err, { instance: new URL(req.url).pathname, correlationId: newId("evt") });
}

export function proxyFailure(req: Request, err: ProxyError): Response {
  return refusal(req, proxyRefusal(err));
}

/**
 * Serves one request to a surface. `viaHost` is true on the host route (the
 * Host header named the surface); on the path route the app is mounted
 * under `/s/<srf>` and its documents are sandboxed.
 */
export async function serveSurface(
  req: Request,
  srfId: string,
  upstreamPath: string,
  viaHost: boolean,
  opts: TSurfaceAsk = {},
): Promise<Response> {
  const decision = await decideSurface(req, srfId, viaHost, opts);
  if ("refuse" in decision) return refusal(req, decision.refuse);
  try {
    return await forward(req, upstreamPath, decision.target, decision.limits, req.headers.get("x-forwarded-for"));
  } catch (err) {
    if (err instanceof ProxyError) return proxyFailure(req, err);
    throw err;
  }
}

/** The Next.js route's entry: works out the surface and the upstream path from the request itself. */
export async function handleSurfaceRequest(
  req: Request,
  srfFromPath: string | null,
  ask: Pick<TSurfaceAsk, "callerOf"> = {},
): Promise<Response> {
  const url = new URL(req.url);
  const hostSrf = surfaceIdFromHost(req.headers.get("host"));
  if (hostSrf) {
    // The host route is rewritten to /s/<srf>/...: strip that prefix again.
    const prefix = `/s/${hostSrf}`;
    const rest = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    return serveSurface(req, hostSrf, (rest || "/") + url.search, true, ask);
  }
  const id = srfFromPath ?? "";
  const rest = url.pathname.slice(`/s/${id}`.length);
  return serveSurface(req, id, (rest || "/") + url.search, false, ask);
}
