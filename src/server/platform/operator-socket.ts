import { chmodSync, existsSync, unlinkSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { env } from "./env";
import { logger } from "./logger";

/**
 * A Unix socket in the data directory (mode 0600) through which the operator
 * CLI talks to a running server that owns the embedded PGlite database (one
 * process may open a PGlite directory at a time). Filesystem permissions are
 * the authentication, as with docker.sock. Only used in embedded mode.
 */
export type TOperatorRequest =
  | { cmd: "token"; email: string; ttl_seconds: number; name: string }
  | { cmd: "rotate-signing-key"; emergency: boolean; reason?: string }
  | { cmd: "signing-keys" }
  | { cmd: "billing-close"; month: string; workspace_id?: string };
export type TOperatorResponse =
  { ok: true; token: string } | { ok: true; output: string } | { ok: false; error: string };

export function operatorSocketPath(): string {
  return path.resolve(env().CAPSTAN_DATA_DIR, "capstan.sock");
}

export function startOperatorSocket(handle: (req: TOperatorRequest) => Promise<TOperatorResponse>): net.Server {
  const file = operatorSocketPath();
  if (existsSync(file)) unlinkSync(file);
  const server = net.createServer((sock) => {
    let buf = "";
    sock.setEncoding("utf8");
    sock.on("data", (chunk: string) => {
      buf += chunk;
      if (buf.length > 64 * 1024) return sock.destroy();
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      let req: TOperatorRequest;
      try {
        req = JSON.parse(buf.slice(0, nl)) as TOperatorRequest;
      } catch {
        sock.end(JSON.stringify({ ok: false, error: "malformed request" }) + "\n");
        return;
      }
      void handle(req)
        .catch((err: Error) => ({ ok: false as const, error: err.message }))
        .then((res) => sock.end(JSON.stringify(res) + "\n"));
    });
    sock.on("error", () => undefined);
  });
  server.listen(file, () => chmodSync(file, 0o600));
  // A socket left behind would trip tools that scan the tree (and the next start unlinks it anyway).
  process.once("exit", () => {
    try {
      unlinkSync(file);
    } catch {
      /* already gone */
    }
  });
  server.unref();
  logger.info("operator_socket.listening", { path: file });
  return server;
}

/** Sends one request; resolves null when no server listens (the caller then opens the database itself). */
export function callOperatorSocket(req: TOperatorRequest): Promise<TOperatorResponse | null> {
  const file = operatorSocketPath();
  if (!existsSync(file)) return Promise.resolve(null);
  return new Promise((resolve) => {
    const sock = net.connect(file);
    let buf = "";
    sock.setEncoding("utf8");
    sock.on("connect", () => sock.write(JSON.stringify(req) + "\n"));
    sock.on("data", (c: string) => (buf += c));
    sock.on("end", () => {
      try {
        resolve(JSON.parse(buf) as TOperatorResponse);
      } catch {
        resolve({ ok: false, error: "malformed response from the server" });
      }
    });
    sock.on("error", () => resolve(null));
  });
}
