import { chmod, mkdir, unlink } from "node:fs/promises";
import type http from "node:http";
import net from "node:net";
import path from "node:path";
import { logger } from "@/server/platform/logger";
import { listenHttp } from "./bridge-socket";

/**
 * Managed resources inside a deployment's sandbox, which has no network:
 * each resource is a Unix socket in the deployment's run directory that
 * Capstan serves on the host (like the Bridge socket, the socket is the
 * capability).
 *  - postgres: `run/pg<N>/.s.PGSQL.5432`, a forwarder to the managed
 *    server that reads the startup packet first and lets through only the
 *    resource's own user and database, and only while `gate` says the
 *    resource is still attached (asked per connection);
 *  - object_bucket: `run/bucket<N>.sock`, an HTTP object API (`serve`),
 *    which the launcher exposes as 127.0.0.1:<port> inside the sandbox.
 * The host-side servers are kept per deployment and re-created by adopt.
 */
export type TResourceGate = (resourceId: string) => Promise<string | null>;

export type TResourceSpec =
  | { kind: "postgres"; resourceId: string; envVar: string; user: string; database: string; password: string; upstream: { host: string; port: number } }
  | { kind: "object_bucket"; resourceId: string; envVar: string };

/** What the runtime state keeps (no password) to serve the sockets again after a restart. */
export type TResourceSocketState =
  | { kind: "postgres"; resource_id: string; socket: string; user: string; database: string; upstream: { host: string; port: number } }
  | { kind: "object_bucket"; resource_id: string; socket: string; port: number };

export type TResourceHandlers = { gate: TResourceGate; bucket: (resourceId: string) => (req: Request) => Promise<Response> };

const g = globalThis as unknown as { __capstanResourceSockets?: Map<string, Array<net.Server | http.Server>> };
const servers = (g.__capstanResourceSockets ??= new Map<string, Array<net.Server | http.Server>>());

const PG_SOCKET = ".s.PGSQL.5432";
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

/**
 * Lays out the sockets of one deployment: host paths under `runDir`, the
 * paths the app sees under `insideRun`, the env vars and the launcher's TCP
 * forwards for buckets.
 */
export async function prepareResources(opts: {
  deploymentId: string; runDir: string; insideRun: string; resources: TResourceSpec[]; handlers: TResourceHandlers;
  bucketPort: (index: number) => Promise<number>;
}): Promise<{ env: Record<string, string>; forwards: Array<{ port: number; socket: string }>; state: TResourceSocketState[] }> {
  const env: Record<string, string> = {};
  const forwards: Array<{ port: number; socket: string }> = [];
  const state: TResourceSocketState[] = [];
  let pg = 0;
  let bucket = 0;
  for (const r of opts.resources) {
    if (r.kind === "postgres") {
      const dir = `pg${pg++}`;
      await mkdir(path.join(opts.runDir, dir), { recursive: true });
      state.push({ kind: "postgres", resource_id: r.resourceId, socket: path.join(opts.runDir, dir, PG_SOCKET), user: r.user, database: r.database, upstream: r.upstream });
      env[r.envVar] = `postgresql://${encodeURIComponent(r.user)}:${encodeURIComponent(r.password)}@/${encodeURIComponent(r.database)}?host=${path.posix.join(opts.insideRun, dir)}`;
    } else {
      const index = bucket++;
      const name = `bucket${index}.sock`;
      const port = await opts.bucketPort(index);
      state.push({ kind: "object_bucket", resource_id: r.resourceId, socket: path.join(opts.runDir, name), port });
      forwards.push({ port, socket: path.posix.join(opts.insideRun, name) });
      env[r.envVar] = `http://127.0.0.1:${port}/`;
    }
  }
  await serveResourceSockets(opts.deploymentId, state, opts.handlers);
  return { env, forwards, state };
}

export async function serveResourceSockets(deploymentId: string, state: TResourceSocketState[], handlers: TResourceHandlers): Promise<void> {
  await closeResourceSockets(deploymentId);
  const list: Array<net.Server | http.Server> = [];
  servers.set(deploymentId, list);
  for (const s of state) {
    await unlink(s.socket).catch(() => undefined);
    if (s.kind === "postgres") {
      const server = net.createServer((client) => pgConnection(client, s, handlers.gate, deploymentId));
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(s.socket, () => resolve());
      });
      // The sandboxed app runs as the same user (user namespace): 0600 is enough and keeps others out.
      await chmod(s.socket, 0o600).catch(() => undefined);
      server.unref();
      list.push(server);
    } else {
      list.push(await listenHttp(s.socket, handlers.bucket(s.resource_id), deploymentId));
    }
  }
}

export async function closeResourceSockets(deploymentId: string): Promise<void> {
  const list = servers.get(deploymentId);
  if (!list) return;
  servers.delete(deploymentId);
  await Promise.all(list.map((s: net.Server | http.Server) => new Promise<void>((resolve) => {
    (s as http.Server).closeAllConnections?.();
    s.close(() => resolve());
  })));
}

export function hasResourceSockets(deploymentId: string): boolean {
  return servers.has(deploymentId);
}

export function openResourceSockets(): string[] {
  return [...servers.keys()];
}

/** A PostgreSQL ErrorResponse (FATAL, SQLSTATE 28000) then close: what a client shows as the reason. */
function refuse(client: net.Socket, message: string): void {
  const fields = Buffer.concat([
    Buffer.from("SFATAL\0VFATAL\0C28000\0", "utf8"), Buffer.from(`M${message}\0`, "utf8"), Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(fields.length + 4, 1);
  client.end(Buffer.concat([head, fields]));
}

function parseStartup(packet: Buffer): Record<string, string> {
  const params: Record<string, string> = {};
  const parts = packet.subarray(8).toString("utf8").split("\0");
  for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2) params[parts[i]!] = parts[i + 1]!;
  return params;
}

function pgConnection(client: net.Socket, s: Extract<TResourceSocketState, { kind: "postgres" }>, gate: TResourceGate, deploymentId: string): void {
  let buf = Buffer.alloc(0);
  client.on("error", () => client.destroy());
  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 8) return;
      const len = buf.readInt32BE(0);
      if (len < 8 || len > 10_000) return refuse(client, "invalid startup packet");
      if (buf.length < len) return;
      const code = buf.readInt32BE(4);
      if (code === SSL_REQUEST || code === GSS_REQUEST) {
        // The socket never leaves the host: no TLS or GSS on it.
        client.write("N");
        buf = buf.subarray(len);
        continue;
      }
      client.off("data", onData);
      client.pause();
      if (code === CANCEL_REQUEST) return forward(client, s.upstream, buf);
      if (code !== PROTOCOL_3) return refuse(client, "unsupported protocol version");
      const params = parseStartup(buf.subarray(0, len));
      const user = params.user ?? "";
      const database = params.database || user;
      if (user !== s.user || database !== s.database) {
        return refuse(client, `this socket serves only user ${s.user} and database ${s.database}`);
      }
      void gate(s.resource_id).then(
        (why) => (why ? refuse(client, why) : forward(client, s.upstream, buf)),
        (err) => {
          logger.error("runtime.resource_gate_failed", { deployment_id: deploymentId, resource_id: s.resource_id, error: String(err) });
          refuse(client, "the managed resource could not be checked; try again");
        },
      );
      return;
    }
  };
  client.on("data", onData);
}

function forward(client: net.Socket, upstream: { host: string; port: number }, first: Buffer): void {
  const up = upstream.host.startsWith("/")
    ? net.connect(path.join(upstream.host, `.s.PGSQL.${upstream.port}`))
    : net.connect(upstream.port, upstream.host);
  let connected = false;
  const end = () => {
    client.destroy();
    up.destroy();
  };
  up.once("connect", () => {
    connected = true;
    up.write(first);
    up.pipe(client);
    client.pipe(up);
    client.resume();
  });
  up.on("error", () => (connected ? end() : refuse(client, "the managed PostgreSQL server is unreachable")));
  client.on("close", end);
  up.on("close", () => connected && end());
}
