import http from "node:http";
import type { Socket } from "node:net";
import { chmod, chown, unlink } from "node:fs/promises";
import { Readable } from "node:stream";
import { problemBody } from "@/server/platform/errors";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";

/**
 * The host side of a deployment's Bridge access: an HTTP server on a Unix
 * socket inside the deployment's directory (bound into the sandbox, where
 * the launcher exposes it as 127.0.0.1:<bridge port>). The socket is the
 * credential: whoever can reach it is this deployment, so the app holds no
 * token that could leak or expire. Only the Bridge paths are served.
 */
// On globalThis: Next.js bundles route handlers and instrumentation separately; one registry per process.
const g = globalThis as unknown as { __capstanBridgeSockets?: Map<string, http.Server> };
const servers = (g.__capstanBridgeSockets ??= new Map<string, http.Server>());

/** `owner`: the app's uid/gid (the socket is 0600 and theirs, so only that deployment's processes can connect). */
export type TSocketOwner = { uid: number; gid: number } | null;

export async function serveBridgeSocket(
  key: string,
  socketPath: string,
  handle: (req: Request) => Promise<Response>,
  owner: TSocketOwner = null,
): Promise<void> {
  await closeBridgeSocket(key);
  servers.set(key, await listenHttp(socketPath, handle, key, owner));
}

/** An HTTP server on a Unix socket (0600) that hands each request to `handle` as a fetch Request. */
export async function listenHttp(
  socketPath: string,
  handle: (req: Request) => Promise<Response>,
  key: string,
  owner: TSocketOwner = null,
): Promise<http.Server> {
  await unlink(socketPath).catch(() => undefined);
  const { CAPSTAN_SOCKET_HANDSHAKE_SECONDS: handshake, CAPSTAN_SOCKET_IDLE_SECONDS: idle } = env();
  // Headers must arrive within the handshake deadline (checked every second, not Node's default 30 s).
  const server = http.createServer(
    { connectionsCheckingInterval: 1_000, headersTimeout: handshake * 1000, requestTimeout: 120_000 },
    (req, res) => {
      void (async () => {
        try {
          const method = (req.method ?? "GET").toUpperCase();
          const hasBody = method !== "GET" && method !== "HEAD";
          const headers = new Headers();
          for (const [k, v] of Object.entries(req.headers)) {
            if (v === undefined) continue;
            for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
          }
          const request = new Request(`http://bridge.capstan.internal${req.url ?? "/"}`, {
            method,
            headers,
            body: hasBody ? (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>) : undefined,
            ...(hasBody ? { duplex: "half" } : {}),
          });
          const response = await handle(request);
          const out: Record<string, string> = {};
          response.headers.forEach((v, k) => (out[k] = v));
          const body = Buffer.from(await response.arrayBuffer());
          res.writeHead(response.status, out);
          res.end(body);
        } catch (err) {
          logger.error("runtime.bridge_socket_failed", { deployment_id: key, error: String(err) });
          if (!res.headersSent) res.writeHead(500, { "content-type": "application/problem+json" });
          res.end(problemBody(500, "The Bridge could not answer on this socket; try again"));
        }
      })();
    },
  );
  server.maxHeadersCount = 100;
  // Idle connections (no byte either way) are destroyed; accepted sockets never keep the process alive.
  server.setTimeout(idle * 1000);
  server.on("connection", (socket: Socket) => socket.unref());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o600).catch(() => undefined);
  if (owner) await chown(socketPath, owner.uid, owner.gid);
  server.unref();
  return server;
}

export async function closeBridgeSocket(key: string): Promise<void> {
  const s = servers.get(key);
  if (!s) return;
  servers.delete(key);
  // Stop accepting, then destroy every connection (idle, half-sent or with a handler in flight): close() alone waits for them.
  const closed = new Promise<void>((resolve) => s.close(() => resolve()));
  s.closeAllConnections();
  await closed;
}

export function hasBridgeSocket(key: string): boolean {
  return servers.has(key);
}

export function openBridgeSockets(): string[] {
  return [...servers.keys()];
}
