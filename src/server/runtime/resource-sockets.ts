import { chmod, chown, mkdir, unlink } from "node:fs/promises";
import type http from "node:http";
import net from "node:net";
import path from "node:path";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { listenHttp, type TSocketOwner } from "./bridge-socket";

/**
 * Managed resources inside a deployment's sandbox, which has no network:
 * each resource is a Unix socket in the deployment's run directory that
 * Capstan serves on the host (like the Bridge socket, the socket is the
 * capability).
 *  - postgres: `run/pg<N>/.s.PGSQL.5432`, a forwarder to the managed
 *    server that reads the startup packet first and lets through only the
 *    resource's database, as one of its current login roles, and only
 *    while `gate` says so (attached, the role current; asked per connection);
 *  - object_bucket: `run/bucket<N>.sock`, an HTTP object API (`serve`),
 *    which the launcher exposes as 127.0.0.1:<port> inside the sandbox.
 * The host-side servers are kept per deployment and re-created by adopt.
 *
 * Failing cleanly (issue #33 item 2): every accepted connection (and its
 * upstream) is tracked per deployment and unref'd; a refused client is
 * destroyed once the ErrorResponse is flushed (never left half-closed and
 * paused, which kept `server.close()` waiting forever); the startup packet
 * must arrive within CAPSTAN_SOCKET_HANDSHAKE_SECONDS and a forwarded
 * connection idle for CAPSTAN_SOCKET_IDLE_SECONDS is closed; closing a
 * deployment's sockets destroys what is still open instead of waiting on it.
 */
/** Null when a connection may go through, else why not; a PostgreSQL login names its user (checked against the resource's current credentials). */
export type TResourceGate = (resourceId: string, login?: { user: string }) => Promise<string | null>;

export type TResourceSpec =
  | {
      kind: "postgres";
      resourceId: string;
      envVar: string;
      user: string;
      database: string;
      password: string;
      upstream: { host: string; port: number };
    }
  | { kind: "object_bucket"; resourceId: string; envVar: string };

/** What the runtime state keeps (no password) to serve the sockets again after a restart. */
export type TResourceSocketState =
  | {
      kind: "postgres";
      resource_id: string;
      socket: string;
      user: string;
      database: string;
      upstream: { host: string; port: number };
    }
  | { kind: "object_bucket"; resource_id: string; socket: string; port: number };

export type TResourceHandlers = {
  gate: TResourceGate;
  bucket: (resourceId: string) => (req: Request) => Promise<Response>;
};

const g = globalThis as unknown as { __capstanResourceSockets?: Map<string, Array<net.Server | http.Server>> };
const servers = (g.__capstanResourceSockets ??= new Map<string, Array<net.Server | http.Server>>());
const gc = globalThis as unknown as { __capstanResourceConns?: Map<string, Set<net.Socket>> };
/** Every open socket (app side and upstream) of each deployment's PostgreSQL forwarders. */
const connections = (gc.__capstanResourceConns ??= new Map<string, Set<net.Socket>>());

function track(deploymentId: string, socket: net.Socket): void {
  let set = connections.get(deploymentId);
  if (!set) connections.set(deploymentId, (set = new Set()));
  set.add(socket);
  // A connection never keeps the process alive: a stop or SIGTERM does not wait for an app's pool.
  socket.unref();
  socket.once("close", () => {
    set.delete(socket);
    if (!set.size && connections.get(deploymentId) === set) connections.delete(deploymentId);
  });
}

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
  deploymentId: string;
  runDir: string;
  insideRun: string;
  resources: TResourceSpec[];
  handlers: TResourceHandlers;
  bucketPort: (index: number) => Promise<number>;
  owner?: TSocketOwner;
}): Promise<{
  env: Record<string, string>;
  forwards: Array<{ port: number; socket: string }>;
  state: TResourceSocketState[];
}> {
  const env: Record<string, string> = {};
  const forwards: Array<{ port: number; socket: string }> = [];
  const state: TResourceSocketState[] = [];
  let pg = 0;
  let bucket = 0;
  for (const r of opts.resources) {
    if (r.kind === "postgres") {
      const dir = `pg${pg++}`;
      await mkdir(path.join(opts.runDir, dir), { recursive: true, mode: 0o700 });
      if (opts.owner) await chown(path.join(opts.runDir, dir), opts.owner.uid, opts.owner.gid);
      state.push({
        kind: "postgres",
        resource_id: r.resourceId,
        socket: path.join(opts.runDir, dir, PG_SOCKET),
        user: r.user,
        database: r.database,
        upstream: r.upstream,
      });
      env[r.envVar] =
        `postgresql://${encodeURIComponent(r.user)}:${encodeURIComponent(r.password)}@/${encodeURIComponent(r.database)}?host=${path.posix.join(opts.insideRun, dir)}`;
    } else {
      const index = bucket++;
      const name = `bucket${index}.sock`;
      const port = await opts.bucketPort(index);
      state.push({ kind: "object_bucket", resource_id: r.resourceId, socket: path.join(opts.runDir, name), port });
      forwards.push({ port, socket: path.posix.join(opts.insideRun, name) });
      env[r.envVar] = `http://127.0.0.1:${port}/`;
    }
  }
  await serveResourceSockets(opts.deploymentId, state, opts.handlers, opts.owner ?? null);
  return { env, forwards, state };
}

export async function serveResourceSockets(
  deploymentId: string,
  state: TResourceSocketState[],
  handlers: TResourceHandlers,
  owner: TSocketOwner = null,
): Promise<void> {
  await closeResourceSockets(deploymentId);
  const list: Array<net.Server | http.Server> = [];
  servers.set(deploymentId, list);
  for (const s of state) {
    await unlink(s.socket).catch(() => undefined);
    if (s.kind === "postgres") {
      const server = net.createServer((client) => {
        track(deploymentId, client);
        pgConnection(client, s, handlers.gate, deploymentId);
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(s.socket, () => resolve());
      });
      // 0600 and the app's own uid: only this deployment's processes can connect.
      await chmod(s.socket, 0o600).catch(() => undefined);
      if (owner) await chown(s.socket, owner.uid, owner.gid);
      server.unref();
      list.push(server);
    } else {
      list.push(await listenHttp(s.socket, handlers.bucket(s.resource_id), deploymentId, owner));
    }
  }
}

export async function closeResourceSockets(deploymentId: string): Promise<void> {
  const list = servers.get(deploymentId);
  servers.delete(deploymentId);
  // Stop accepting first, then end what is open: close() alone waits for every connection.
  const closed = (list ?? []).map(
    (s: net.Server | http.Server) =>
      new Promise<void>((resolve) => {
        s.close(() => resolve());
        (s as http.Server).closeAllConnections?.();
      }),
  );
  for (const socket of connections.get(deploymentId) ?? []) socket.destroy();
  connections.delete(deploymentId);
  await Promise.all(closed);
}

/** Open connections on a deployment's PostgreSQL sockets (app side and upstream), for tests and metrics. */
export function resourceConnectionCount(deploymentId: string): number {
  return connections.get(deploymentId)?.size ?? 0;
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
    Buffer.from("SFATAL\0VFATAL\0C28000\0", "utf8"),
    Buffer.from(`M${message}\0`, "utf8"),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(fields.length + 4, 1);
  // Destroyed once flushed: a client that never reads or closes must not hold the host side open.
  client.end(Buffer.concat([head, fields]), () => client.destroy());
  setTimeout(() => client.destroy(), 1_000).unref();
}

function parseStartup(packet: Buffer): Record<string, string> {
  const params: Record<string, string> = {};
  const parts = packet.subarray(8).toString("utf8").split("\0");
  for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2) params[parts[i]!] = parts[i + 1]!;
  return params;
}

function pgConnection(
  client: net.Socket,
  s: Extract<TResourceSocketState, { kind: "postgres" }>,
  gate: TResourceGate,
  deploymentId: string,
): void {
  let buf = Buffer.alloc(0);
  client.on("error", () => client.destroy());
  // Until the startup packet is read (and the gate answered): the handshake deadline; then the idle bound (forward).
  client.setTimeout(env().CAPSTAN_SOCKET_HANDSHAKE_SECONDS * 1000, () => client.destroy());
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
      if (code === CANCEL_REQUEST) return forward(client, s.upstream, buf, deploymentId);
      if (code !== PROTOCOL_3) return refuse(client, "unsupported protocol version");
      const params = parseStartup(buf.subarray(0, len));
      const user = params.user ?? "";
      const database = params.database || user;
      // The database is fixed; the users are the resource's current login roles (old and new during a
      // rotation's overlap, the read-only one), asked per connection like the attachment.
      // A structural guard before the gate: the resource's roles are its owner (named like the database) and `<owner>_…`.
      if (database !== s.database || !(user === s.user || user === s.database || user.startsWith(`${s.database}_`))) {
        return refuse(
          client,
          `this socket serves only database ${s.database}, as one of its current login roles (${s.user} when this deployment started)`,
        );
      }
      void gate(s.resource_id, { user }).then(
        (why) => (why ? refuse(client, why) : forward(client, s.upstream, buf, deploymentId)),
        (err) => {
          logger.error("runtime.resource_gate_failed", {
            deployment_id: deploymentId,
            resource_id: s.resource_id,
            error: String(err),
          });
          refuse(client, "the managed resource could not be checked; try again");
        },
      );
      return;
    }
  };
  client.on("data", onData);
}

function forward(
  client: net.Socket,
  upstream: { host: string; port: number },
  first: Buffer,
  deploymentId: string,
): void {
  if (client.destroyed) return;
  const up = upstream.host.startsWith("/")
    ? net.connect(path.join(upstream.host, `.s.PGSQL.${upstream.port}`))
    : net.connect(upstream.port, upstream.host);
  track(deploymentId, up);
  let connected = false;
  const end = () => {
    client.destroy();
    up.destroy();
  };
  up.once("connect", () => {
    connected = true;
    // Any byte either way through the client socket counts as activity.
    client.setTimeout(env().CAPSTAN_SOCKET_IDLE_SECONDS * 1000, end);
    up.write(first);
    up.pipe(client);
    client.pipe(up);
    client.resume();
  });
  up.on("error", () => (connected ? end() : refuse(client, "the managed PostgreSQL server is unreachable")));
  client.on("close", end);
  up.on("close", () => connected && end());
}
