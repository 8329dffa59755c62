import http from "node:http";
import { chmod, unlink } from "node:fs/promises";
import { Readable } from "node:stream";
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

export async function serveBridgeSocket(key: string, socketPath: string, handle: (req: Request) => Promise<Response>): Promise<void> {
  await closeBridgeSocket(key);
  servers.set(key, await listenHttp(socketPath, handle, key));
}

/** An HTTP server on a Unix socket (0600) that hands each request to `handle` as a fetch Request. */
export async function listenHttp(socketPath: string, handle: (req: Request) => Promise<Response>, key: string): Promise<http.Server> {
  await unlink(socketPath).catch(() => undefined);
  const server = http.createServer((req, res) => {
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
          method, headers,
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
        res.end(JSON.stringify({ title: "Internal error", status: 500 }));
      }
    })();
  });
  server.maxHeadersCount = 100;
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o600).catch(() => undefined);
  server.unref();
  return server;
}

export async function closeBridgeSocket(key: string): Promise<void> {
  const s = servers.get(key);
  if (!s) return;
  servers.delete(key);
  s.closeAllConnections();
  await new Promise<void>((resolve) => s.close(() => resolve()));
}

export function hasBridgeSocket(key: string): boolean {
  return servers.has(key);
}

export function openBridgeSockets(): string[] {
  return [...servers.keys()];
}
