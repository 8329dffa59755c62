import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { handleRest, noteArrival, responseText } from "./rest-handler";

/**
 * The product's hot REST path on Node's own request and response (issue #34
 * item 3): the `npm start` server (scripts/server.mjs) hands
 * `POST /v1/sessions/{ses}/invocations` here before Next.js routing, as it
 * hands Bridge calls to bridge/node.ts. It is the same `handleRest` the
 * Next.js catch-all route calls (same validation, idempotency, problem+json,
 * headers), without the router and its per-request work; timing starts at
 * the server's request event. Anything else returns false (left to Next.js).
 * `CAPSTAN_BRIDGE_NODE=0` sends these through Next.js too, to compare.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "upgrade",
  "expect",
  "te",
  "trailer",
]);
const INVOKE_PATH = /^\/v1\/sessions\/[^/?#]+\/invocations(?:\?.*)?$/;

export function serveRestNode(req: IncomingMessage, res: ServerResponse, arrivedAt = performance.now()): boolean {
  if (req.method !== "POST" || !INVOKE_PATH.test(req.url ?? "")) return false;
  void answer(req, res, arrivedAt).catch((err: unknown) => {
    logger.error("http.node_unhandled", { path: req.url, error: String((err as Error)?.stack ?? err) });
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/problem+json" });
    res.end(JSON.stringify({ type: "about:blank", title: "Internal Server Error", status: 500, instance: req.url }));
  });
  return true;
}

async function answer(req: IncomingMessage, res: ServerResponse, arrivedAt: number): Promise<void> {
  const body = await readCapped(req, env().CAPSTAN_MAX_BODY_BYTES);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  // The body goes beside the Request, not in it: handleRest takes it as read (no web stream to read back).
  const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url}`, { method: "POST", headers });
  noteArrival(request, arrivedAt, body);
  const response = await handleRest(request);
  const text = responseText(response);
  const out = text !== undefined ? Buffer.from(text, "utf8") : Buffer.from(await response.arrayBuffer());
  const h: Record<string, string | string[]> = {};
  response.headers.forEach((v, k) => {
    if (k !== "set-cookie") h[k] = v;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) h["set-cookie"] = cookies;
  h["content-length"] = String(out.length);
  if (res.destroyed) return;
  res.writeHead(response.status, h);
  res.end(out);
}

/**
 * The body, at most `max + 1` bytes: past the limit the rest is drained and
 * handleRest answers the 413 itself (its limit sees more than `max`).
 */
function readCapped(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      if (over) return;
      size += c.length;
      chunks.push(c);
      if (size > max) over = true; // keep reading (and dropping) so the connection stays usable for the 413
    });
    req.on("end", () => resolve(Buffer.concat(chunks).subarray(0, max + 1)));
    req.on("error", reject);
  });
}
