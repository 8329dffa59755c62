/**
 * A tiny HTTP server around the app's framework-free handlers, for tests that
 * need several server processes on one database (idempotency, budget
 * reservations across processes).
 * Routes as the Next.js app does: POST /v1/capabilities/{capability}/{action}
 * to handleBridge, POST /v1/oauth/token to handleOAuthToken, GET /readyz, the three
 * /.well-known documents to their handlers, everything else under /v1 to the
 * REST boundary; surface traffic goes through the custom server's fast path. Run with
 * `node --conditions=react-server --import tsx test/support/app-server.ts` (the HTTP handlers import `server-only`); configuration comes
 * from the environment exactly as for the app (DATABASE_URL,
 * CAPSTAN_MASTER_KEY, CAPSTAN_DATA_DIR, CAPSTAN_PUBLIC_URL, ...); PORT picks
 * the port (0 = any free port). Prints "listening <port>" on stdout once it
 * accepts requests.
 */
import http from "node:http";
import { Readable } from "node:stream";
import { handleBridge } from "@/server/bridge/handler";
import { handleOAuthToken } from "@/server/http/oauth-token-handler";
import { handleRest } from "@/server/http/rest-handler";
import { handleJwks, handleOAuthAuthorizationServer, handleOpenIdConfiguration } from "@/server/http/well-known";
import { readiness } from "@/server/http/readiness";
import { serveSurfaceNode } from "@/server/http/surface-node";
import { recoverInFlight } from "@/server/domain/usage/leases.service";
import { beginStop, finishStop } from "@/server/shutdown";
import { installGracefulStop } from "../../scripts/graceful.mjs";
import { roles } from "@/server/platform/roles";
import { startRoles } from "@/server/workers/roles";
import { bootApp } from "./api";

const BRIDGE_PATH = /^\/v1\/capabilities\/([^/?#]+)\/([^/?#]+)$/;

function toRequest(req: http.IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  const method = (req.method ?? "GET").toUpperCase();
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(origin + (req.url ?? "/"), {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>) : undefined,
    // Node's fetch needs this for a streamed request body.
    ...(hasBody ? { duplex: "half" } : {}),
  });
}

async function send(res: http.ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key === "set-cookie") return;
    headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, headers);
  res.end(body);
}

function route(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const bridge = BRIDGE_PATH.exec(pathname);
  if (bridge && request.method === "POST") {
    return handleBridge(request, decodeURIComponent(bridge[1]!), decodeURIComponent(bridge[2]!));
  }
  if (pathname === "/v1/oauth/token" && request.method === "POST") return handleOAuthToken(request);
  if (pathname === "/readyz") return readiness();
  if (pathname === "/.well-known/jwks.json") return handleJwks();
  if (pathname === "/.well-known/openid-configuration") return Promise.resolve(handleOpenIdConfiguration());
  if (pathname === "/.well-known/oauth-authorization-server") return Promise.resolve(handleOAuthAuthorizationServer());
  return handleRest(request);
}

async function main(): Promise<void> {
  await bootApp();
  // APP_SERVER_ROLES=1: this process also runs its worker and runner roles (CAPSTAN_ROLES), as `npm start`
  // does, so it builds and runs hosted apps itself (test/hostile-isolation.int.test.ts).
  if (process.env.APP_SERVER_ROLES === "1") await startRoles(roles("server"));
  // As src/server/boot.ts does: in-flight journals of dead processes are charged before serving.
  await recoverInFlight();
  const origin = process.env.CAPSTAN_PUBLIC_URL ?? "http://localhost:3000";
  const server = http.createServer((req, res) => {
    // Surface traffic (srf-* hosts, /s/<srf>/...) takes the production server's fast path (scripts/server.mjs).
    if (serveSurfaceNode(req, res, () => void serve(req, res))) return;
    void serve(req, res);
  });
  const serve = (req: http.IncomingMessage, res: http.ServerResponse) => {
    void (async () => {
      try {
        await send(res, await route(toRequest(req, origin)));
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end(String((err as Error)?.stack ?? err));
      }
    })();
  };
  server.keepAliveTimeout = 1_000;
  const port = Number(process.env.PORT ?? "0");
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  process.stdout.write(`listening ${actual}\n`);

  // The same graceful stop as `npm start` (scripts/server.mjs): drain, flush, exit 0.
  installGracefulStop(server, {
    app: { begin: beginStop, finish: finishStop },
    log: (msg) => process.stderr.write(`[app-server] ${msg}\n`),
  });
}

main().catch((err) => {
  process.stderr.write(`app-server failed to start: ${String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
});
