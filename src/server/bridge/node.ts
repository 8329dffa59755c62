import type { IncomingMessage, ServerResponse } from "node:http";
import { tooLarge } from "@/server/platform/body";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { bridgeCall, problemAnswer, type TBridgeAnswer } from "./handler";
import { BridgeTiming } from "./timing";

/**
 * The Bridge on Node's own request and response: the `npm start` server
 * (scripts/server.mjs) hands `POST /v1/capabilities/{capability}/{action}`
 * here before Next.js routing, so a Bridge call pays for no web
 * Request/Response conversion, router or per-request AsyncLocalStorage. Same
 * `bridgeCall` as the Next.js route (which still serves `next dev` and `next
 * start`), so the answers are identical. Timing starts when the server's
 * request event fires and the timing headers are computed just before the
 * response (headers and body in one write) goes to the socket.
 *
 * Returns false for anything else (left to Next.js). Capability and action
 * names come from the raw path, as on every other transport.
 */
const BRIDGE_PATH = /^\/v1\/capabilities\/([^/?#]+)\/([^/?#]+)(?:\?.*)?$/;

export function serveBridgeNode(req: IncomingMessage, res: ServerResponse, arrivedAt = performance.now()): boolean {
  if (req.method !== "POST") return false;
  const m = BRIDGE_PATH.exec(req.url ?? "");
  if (!m) return false;
  const timing = new BridgeTiming(arrivedAt);
  const headers = { get: (name: string) => headerValue(req, name) };
  bridgeCall({ headers, readBody: (max) => readNodeBody(req, max) }, m[1]!, m[2]!, timing)
    .catch((err: unknown) => {
      // bridgeCall answers every error itself; this is a last resort, never a crashed process.
      const correlationId = newId("evt");
      logger.error("bridge.unhandled", {
        path: req.url,
        correlation_id: correlationId,
        error: String((err as Error)?.stack ?? err),
      });
      return problemAnswer(err, `/v1/capabilities/${m[1]}/${m[2]}`, correlationId);
    })
    .then(
      (answer) => write(res, answer, timing),
      () => res.destroy(),
    );
  return true;
}

function write(res: ServerResponse, answer: TBridgeAnswer, timing: BridgeTiming): void {
  if (res.headersSent || res.destroyed) return;
  const body = Buffer.from(answer.body, "utf8");
  const headers: Record<string, string> = { ...answer.headers, "content-length": String(body.length) };
  const t = timing.headers();
  headers["capstan-overhead-ms"] = t["capstan-overhead-ms"];
  headers["server-timing"] = t["server-timing"];
  res.writeHead(answer.status, headers);
  res.end(body);
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(", ") : v;
}

/** The body as text, at most `max` bytes (413 past it, by Content-Length at once or while reading). */
function readNodeBody(req: IncomingMessage, max: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? "NaN");
  if (Number.isFinite(declared) && declared > max) {
    req.resume(); // drained, so the connection stays usable for the 413
    return Promise.reject(tooLarge(max));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > max) {
        req.removeAllListeners("data");
        req.resume();
        reject(tooLarge(max));
        return;
      }
      chunks.push(c);
    });
    req.on("end", () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", reject);
  });
}
