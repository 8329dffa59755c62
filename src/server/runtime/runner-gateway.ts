import http from "node:http";
import { keyedHashHex, safeEqual } from "@/server/platform/crypto";
import { problemBody } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import { serveHealth } from "@/server/http/health-node";
import { runner } from "./index";
import type { TRuntimeState } from "./runner";
import { GATEWAY_DEPLOYMENT_HEADER, GATEWAY_KEY_HEADER } from "./surface-proxy";

/**
 * The runner gateway: how every other replica reaches the apps this host runs
 * (docs/decisions.md "Roles and runner hosts"). One HTTP listener per runner
 * host (CAPSTAN_RUNNER_LISTEN, advertised as CAPSTAN_RUNNER_ENDPOINT in
 * `runner_hosts.endpoint`):
 *  - a request carrying `x-capstan-deployment` is piped unchanged (minus the
 *    gateway's two headers) to that deployment's ingress socket: the surface
 *    proxy of any replica already shaped it (headers, limits) for the app;
 *  - `POST /runner/v1/deployments/{dep}/{op}` runs one runner operation here
 *    (stop, is-running, run-log, build-log, log-size, log-since, read-log, usage) for a
 *    replica that does not host the deployment.
 * Every request must carry the gateway key, derived from the master key (equal
 * on every replica), compared in constant time; anything else is a 401.
 */
const DEP_ID = /^dep_[0-9a-hjkmnp-tv-z]{26}$/;
const OP_PATH = /^\/runner\/v1\/deployments\/(dep_[0-9a-hjkmnp-tv-z]{26})\/([a-z-]+)$/;
const MAX_RPC_BODY = 64 * 1024;

/** The key every replica sends to a runner gateway (same master key, same key). */
export function gatewayKey(): string {
  return keyedHashHex("runner-gateway", "v1");
}

function problem(res: http.ServerResponse, status: number, reason: string, detail: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { "content-type": "application/problem+json" });
  res.end(problemBody(status, detail, { reason }));
}

function pipeToApp(req: http.IncomingMessage, res: http.ServerResponse, deploymentId: string): void {
  const headers = { ...req.headers };
  delete headers[GATEWAY_KEY_HEADER];
  delete headers[GATEWAY_DEPLOYMENT_HEADER];
  const up = http.request(
    { socketPath: runner().ingressSocketOf(deploymentId), method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
      answer.on("error", () => res.destroy());
    },
  );
  up.on("error", (err) =>
    problem(res, 502, "upstream_unreachable", `The app could not be reached on its runner host (${err.message})`),
  );
  res.on("close", () => up.destroy());
  req.pipe(up);
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_RPC_BODY) throw new Error("body too large");
    chunks.push(c);
  }
  return chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {};
}

const int = (v: unknown, fallback: number) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : fallback);

async function operate(id: string, op: string, body: Record<string, unknown>): Promise<unknown> {
  const r = runner();
  const state = (body.state ?? null) as TRuntimeState | null;
  // A state names a process: only one this runner started (its host id) is acted on.
  if (state && state.host !== r.hostId)
    throw Object.assign(new Error("the state is not this runner host's"), { status: 409 });
  const max = Math.min(int(body.max_bytes, 64 * 1024), 1024 * 1024);
  switch (op) {
    case "stop":
      await r.stop(id, state);
      return { stopped: true };
    case "is-running":
      return { running: state ? await r.isRunning(state) : false };
    case "run-log":
      return { text: await r.runLog(id, max) };
    case "build-log":
      return { text: await r.buildLog(id, max) };
    case "log-size":
      return { size: await r.logSize(id) };
    case "log-since":
      return { text: await r.logSince(id, int(body.offset, 0), max) };
    case "read-log": {
      const c = body.cursor as { ino?: unknown; offset?: unknown } | null | undefined;
      const cursor = c && typeof c === "object" ? { ino: int(c.ino, 0), offset: int(c.offset, 0) } : null;
      return r.readLog(id, cursor, max, body.final === true);
    }
    case "usage":
      return { usage: state ? await r.usage(state, { memory: body.memory !== false }) : null };
    default:
      throw Object.assign(new Error(`unknown operation ${op}`), { status: 404 });
  }
}

export function gatewayHandler(key = gatewayKey()) {
  return (req: http.IncomingMessage, res: http.ServerResponse): void => {
    // /healthz and /readyz need no key (probes); they reveal nothing but up/ready.
    if (req.headers[GATEWAY_DEPLOYMENT_HEADER] === undefined && serveHealth(req, res)) return;
    const given = req.headers[GATEWAY_KEY_HEADER];
    if (typeof given !== "string" || !safeEqual(given, key))
      return problem(res, 401, "unauthenticated", "The runner gateway key is missing or wrong");
    const dep = req.headers[GATEWAY_DEPLOYMENT_HEADER];
    if (dep !== undefined) {
      if (typeof dep !== "string" || !DEP_ID.test(dep))
        return problem(res, 400, "bad_request", "x-capstan-deployment is not a deployment id");
      return pipeToApp(req, res, dep);
    }
    const m = OP_PATH.exec(req.url ?? "");
    if (!m || req.method !== "POST") return problem(res, 404, "not_found", "No such runner operation");
    void readJson(req)
      .then((body) => operate(m[1]!, m[2]!, body))
      .then((out) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(out));
      })
      .catch((err: Error & { status?: number }) => {
        if (!err.status) logger.error("runner.gateway_failed", { op: m[2], deployment_id: m[1], error: String(err) });
        problem(
          res,
          err.status ?? 500,
          err.status === 404 ? "not_found" : err.status === 409 ? "conflict" : "internal",
          err.message,
        );
      });
  };
}

/** Starts the gateway on `listen` (host:port; port 0 picks one); resolves with the bound address. */
export async function startGateway(listen: string): Promise<{ server: http.Server; host: string; port: number }> {
  const i = listen.lastIndexOf(":");
  const host = listen.slice(0, i);
  const server = http.createServer(gatewayHandler());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(listen.slice(i + 1)), host, () => resolve());
  });
  const addr = server.address();
  return { server, host, port: typeof addr === "object" && addr ? addr.port : 0 };
}
