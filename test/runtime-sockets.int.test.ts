import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/server/platform/env";
import { closeBridgeSocket, hasBridgeSocket, serveBridgeSocket } from "@/server/runtime/bridge-socket";
import {
  closeResourceSockets,
  resourceConnectionCount,
  serveResourceSockets,
  type TResourceSocketState,
} from "@/server/runtime/resource-sockets";
import { testDbMode } from "./support/db";

/**
 * Issue #33 item 2: every per-deployment socket (PostgreSQL forwarder, bucket
 * API, Bridge) closes the host side of a connection whose client was refused,
 * went quiet or never finished its handshake, within the bounds
 * (CAPSTAN_SOCKET_HANDSHAKE_SECONDS, CAPSTAN_SOCKET_IDLE_SECONDS, set small
 * here), and closing a deployment's sockets never waits on such a connection.
 * Real sockets; the forwarder talks to the test's real PostgreSQL server.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), "capstan-sockets-"));
const HANDSHAKE_S = 1;
const IDLE_S = 2;
/** Bounds the tests poll against: the setting plus Node's 1 s connection check and a margin on a busy machine. */
const HANDSHAKE_DEADLINE = (HANDSHAKE_S + 10) * 1000;
const IDLE_DEADLINE = (IDLE_S + 10) * 1000;
/** A close that waits on a half-open connection never ends; a clean one is immediate. */
const CLOSE_DEADLINE = 5_000;

async function until(what: string, cond: () => boolean, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function within<T>(what: string, p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

type TClient = { socket: net.Socket; data: Buffer[]; closed: () => boolean };
function connect(socketPath: string, opts: { read?: boolean } = {}): Promise<TClient> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const data: Buffer[] = [];
    let closed = false;
    socket.on("close", () => (closed = true));
    socket.on("error", () => undefined);
    socket.on("data", (b: Buffer) => data.push(b));
    // A client that never reads: the host must not rely on it to finish the close.
    if (opts.read === false) socket.pause();
    socket.once("connect", () => resolve({ socket, data, closed: () => closed }));
    socket.once("error", reject);
  });
}

function startupPacket(user: string, database: string): Buffer {
  const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`, "utf8");
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

const pgUrl = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
const pgState = (dep: string, resourceId: string): Extract<TResourceSocketState, { kind: "postgres" }> => ({
  kind: "postgres",
  resource_id: resourceId,
  socket: path.join(dir, `${dep}-${resourceId}.s.PGSQL.5432`),
  user: decodeURIComponent(pgUrl.username),
  database: pgUrl.pathname.slice(1),
  upstream: { host: pgUrl.hostname, port: Number(pgUrl.port || 5432) },
});
const handlers = {
  gate: async (resourceId: string) =>
    resourceId === "mres_detached" ? "this resource was detached from the product" : null,
  bucket: () => async (req: Request) =>
    new URL(req.url).pathname === "/never"
      ? new Promise<Response>(() => undefined)
      : new Response("no such object", { status: 404 }),
};

beforeAll(() => {
  process.env.CAPSTAN_SOCKET_HANDSHAKE_SECONDS = String(HANDSHAKE_S);
  process.env.CAPSTAN_SOCKET_IDLE_SECONDS = String(IDLE_S);
  resetEnvCache();
});

afterAll(() => {
  delete process.env.CAPSTAN_SOCKET_HANDSHAKE_SECONDS;
  delete process.env.CAPSTAN_SOCKET_IDLE_SECONDS;
  resetEnvCache();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(testDbMode() !== "postgres")("the PostgreSQL socket", () => {
  it("closes the host side of refused, abandoned, half-sent and idle forwarded connections by itself", async () => {
    const dep = "dep_sockets_bounds";
    const ok = pgState(dep, "mres_ok");
    const detached = pgState(dep, "mres_detached");
    await serveResourceSockets(dep, [ok, detached], handlers);
    try {
      // Refused for the wrong user, by a client that never reads: the ErrorResponse is flushed, then the host closes.
      const wrongUser = await connect(ok.socket, { read: false });
      wrongUser.socket.write(startupPacket("someone_else", ok.database));
      // Refused by the gate (detached), reading: it sees the reason, then the close.
      const refused = await connect(detached.socket);
      refused.socket.write(startupPacket(detached.user, detached.database));
      // Abandoned before a byte, and half a startup packet.
      const silent = await connect(ok.socket);
      const half = await connect(ok.socket);
      half.socket.write(startupPacket(ok.user, ok.database).subarray(0, 10));
      await until(
        "the refused client sees the server's reason and the close",
        () => refused.closed(),
        HANDSHAKE_DEADLINE,
      );
      expect(Buffer.concat(refused.data).toString("utf8")).toContain("detached from the product");
      await until(
        "the abandoned and half-sent connections are closed",
        () => silent.closed() && half.closed(),
        HANDSHAKE_DEADLINE,
      );
      // The never-reading client is gone on the host side too (only ours are tracked, so the count says it).
      await until("no host-side connection is left", () => resourceConnectionCount(dep) === 0, HANDSHAKE_DEADLINE);

      // A forwarded connection reaches the real server, then goes quiet: closed after the idle bound.
      const forwarded = await connect(ok.socket);
      forwarded.socket.write(startupPacket(ok.user, ok.database));
      await until("the server answers the startup", () => forwarded.data.length > 0, HANDSHAKE_DEADLINE);
      expect(resourceConnectionCount(dep)).toBe(2); // the app's side and the upstream
      await until(
        "the idle forwarded connection is closed",
        () => forwarded.closed() && resourceConnectionCount(dep) === 0,
        IDLE_DEADLINE,
      );
      wrongUser.socket.destroy();
    } finally {
      await closeResourceSockets(dep);
    }
  });

  it("a deployment's sockets close at once with refused, abandoned and forwarded connections still open", async () => {
    const dep = "dep_sockets_close";
    const ok = pgState(dep, "mres_ok");
    await serveResourceSockets(dep, [ok], handlers);
    const wrongUser = await connect(ok.socket, { read: false });
    wrongUser.socket.write(startupPacket("someone_else", ok.database));
    const silent = await connect(ok.socket, { read: false });
    const forwarded = await connect(ok.socket);
    forwarded.socket.write(startupPacket(ok.user, ok.database));
    await until("the server answers the startup", () => forwarded.data.length > 0, HANDSHAKE_DEADLINE);
    expect(resourceConnectionCount(dep)).toBeGreaterThanOrEqual(3);
    await within("closing the PostgreSQL socket", closeResourceSockets(dep), CLOSE_DEADLINE);
    expect(resourceConnectionCount(dep)).toBe(0);
    await until("the forwarded client sees the close", () => forwarded.closed(), CLOSE_DEADLINE);
    // A new connection is refused by the operating system: nothing listens any more.
    await expect(connect(ok.socket)).rejects.toThrow();
    wrongUser.socket.destroy();
    silent.socket.destroy();
  });
});

describe("the HTTP sockets (bucket API and Bridge)", () => {
  const kinds = [
    {
      name: "bucket",
      serve: async (dep: string, socketPath: string) =>
        serveResourceSockets(
          dep,
          [{ kind: "object_bucket", resource_id: "mres_bucket", socket: socketPath, port: 1 }],
          handlers,
        ),
      close: closeResourceSockets,
    },
    {
      name: "Bridge",
      serve: async (dep: string, socketPath: string) => serveBridgeSocket(dep, socketPath, handlers.bucket()),
      close: closeBridgeSocket,
    },
  ];

  for (const kind of kinds) {
    it(`${kind.name}: abandoned and half-sent connections are closed after the handshake bound, idle ones after the idle bound`, async () => {
      const dep = `dep_http_bounds_${kind.name}`;
      const socketPath = path.join(dir, `${kind.name}-bounds.sock`);
      await kind.serve(dep, socketPath);
      try {
        const silent = await connect(socketPath);
        const half = await connect(socketPath);
        half.socket.write("GET /key HTTP/1.1\r\nHost: x\r\n");
        await until("abandoned and half-sent closed", () => silent.closed() && half.closed(), HANDSHAKE_DEADLINE);
        // Refused (404) on a kept-alive connection, then nothing: closed once idle.
        const refused = await connect(socketPath);
        refused.socket.write("GET /key HTTP/1.1\r\nHost: x\r\n\r\n");
        await until(
          "the 404 arrives",
          () => Buffer.concat(refused.data).toString().startsWith("HTTP/1.1 404"),
          HANDSHAKE_DEADLINE,
        );
        await until("the idle kept-alive connection is closed", () => refused.closed(), IDLE_DEADLINE);
      } finally {
        await kind.close(dep);
      }
    });

    it(`${kind.name}: closing never waits on a client that does not read, one that sent half a request, or a request still being answered`, async () => {
      const dep = `dep_http_close_${kind.name}`;
      const socketPath = path.join(dir, `${kind.name}-close.sock`);
      await kind.serve(dep, socketPath);
      const deaf = await connect(socketPath, { read: false });
      deaf.socket.write("GET /key HTTP/1.1\r\nHost: x\r\n\r\n");
      const half = await connect(socketPath);
      half.socket.write("PUT /key HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
      const pending = await connect(socketPath);
      pending.socket.write("GET /never HTTP/1.1\r\nHost: x\r\n\r\n");
      const silent = await connect(socketPath);
      await within(`closing the ${kind.name} socket`, kind.close(dep), CLOSE_DEADLINE);
      await until(
        "the clients see the close",
        () => half.closed() && pending.closed() && silent.closed(),
        CLOSE_DEADLINE,
      );
      expect(hasBridgeSocket(dep)).toBe(false);
      await expect(connect(socketPath)).rejects.toThrow();
      deaf.socket.destroy();
    });
  }
});
