import type http from "node:http";
import { readiness } from "./readiness";

/**
 * `/healthz` and `/readyz` on a process's own listeners (the metrics listener
 * of any process, the runner gateway), for the processes without the web
 * role: the same answers as the web server's routes (liveness: 200 while the
 * process runs; readiness: 503 from the moment a graceful stop began or while
 * the database does not answer). True when the request was one of them.
 */
export function serveHealth(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const pathname = (req.url ?? "/").split("?", 1)[0];
  if (pathname === "/healthz") {
    res
      .writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
      .end(JSON.stringify({ status: "ok" }));
    return true;
  }
  if (pathname !== "/readyz") return false;
  void readiness().then(
    async (r) =>
      res.writeHead(r.status, { ...Object.fromEntries(r.headers), "cache-control": "no-store" }).end(await r.text()),
    () => res.writeHead(503, { "content-type": "application/problem+json", "retry-after": "1" }).end(),
  );
  return true;
}
