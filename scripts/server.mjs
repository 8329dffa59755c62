// The production server behind `npm start`: Next.js through its programmatic
// API (a custom server, in one process), with one fast path in front of it:
// surface traffic (Host srf-<id>.<surface domain>, a verified custom domain, or /s/<srf>/...) goes to
// the handler the app registers at boot (globalThis.__capstanSurfaceNode,
// src/server/http/surface-node.ts) on Node's own request and response, without
// Next.js routing. Everything else, and every request before boot finished,
// is Next.js as usual (the route app/s/[srf] serves surfaces then). Bridge calls
// (POST /v1/capabilities/{capability}/{action}) likewise go to the framework-free
// Bridge handler the app registers (globalThis.__capstanBridgeNode,
// src/server/bridge/node.ts), the same one the Next.js route calls, and invocations
// (POST /v1/sessions/{ses}/invocations) to the REST handler the catch-all route calls
// (globalThis.__capstanRestNode, src/server/http/rest-node.ts).
import http from "node:http";
import { performance } from "node:perf_hooks";
import next from "next";
import { installGracefulStop } from "./graceful.mjs";
import { answerMalformedPath } from "./malformed-path.mjs";

const port = Number(process.env.PORT ?? "3000");
const hostname = process.env.HOST ?? "0.0.0.0";
const app = next({ dev: false, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

// CAPSTAN_BRIDGE_NODE=0 sends Bridge calls through Next.js's router too (to compare; same handler, slower).
const bridgeNode = process.env.CAPSTAN_BRIDGE_NODE !== "0";
const server = http.createServer((req, res) => {
  const arrivedAt = performance.now();
  // Next.js would answer a path that does not decode with a bare 500: a 400 problem instead.
  if (answerMalformedPath(req, res)) return;
  const fast = globalThis.__capstanSurfaceNode;
  // The fallback lets it look a custom domain's Host up and hand the request back when it is not one.
  if (fast && fast(req, res, () => void handle(req, res))) return;
  // Bridge calls (POST /v1/capabilities/...) go to the Bridge's own handler, timed from here.
  const bridge = bridgeNode ? globalThis.__capstanBridgeNode : undefined;
  if (bridge && bridge(req, res, arrivedAt)) return;
  // Invocations through a session (POST /v1/sessions/{ses}/invocations): the same REST handler, without the router.
  const rest = bridgeNode ? globalThis.__capstanRestNode : undefined;
  if (rest && rest(req, res, arrivedAt)) return;
  void handle(req, res);
});
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, () => {
  // The URL people use (CAPSTAN_PUBLIC_URL follows the port unless set: scripts/public-url.mjs).
  const local = `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`;
  const publicUrl = (process.env.CAPSTAN_PUBLIC_URL ?? local).replace(/\/+$/, "");
  console.log(
    `[server] ready on ${publicUrl} (listening on ${hostname}:${port}, pid ${process.pid}); sign in at ${publicUrl}/signin`,
  );
});

// SIGTERM/SIGINT: /readyz 503, stop accepting, drain in-flight requests within
// CAPSTAN_SHUTDOWN_GRACE_MS, flush, stop workers, exit 0 (see ./graceful.mjs).
installGracefulStop(server);
