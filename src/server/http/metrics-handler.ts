import http from "node:http";
import { timingSafeEqual } from "node:crypto";
import { readOutboxGauges } from "@/server/domain/webhooks/dispatch.service";
import { resolveCorrelation } from "@/server/platform/correlation";
import { env } from "@/server/platform/env";
import { AppError, problemResponse } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import { metricsContentType, renderMetrics, setScrapeCollector } from "@/server/platform/metrics";
import { serveHealth } from "./health-node";

/**
 * GET /metrics (Prometheus text format). Two ways in, both documented in
 * docs/operations.md ("Metrics, tracing, workers at volume"): on the main port with `Authorization: Bearer $CAPSTAN_METRICS_TOKEN`
 * (unset: 404, as if the route did not exist; wrong or missing: 401), or on
 * a listener of its own at CAPSTAN_METRICS_LISTEN without a token, for a
 * scraper on a private network.
 */
export async function handleMetrics(req: Request, opts: { trusted?: boolean } = {}): Promise<Response> {
  const { correlationId } = resolveCorrelation(req.headers);
  const instance = new URL(req.url).pathname;
  if (!opts.trusted) {
    const token = env().CAPSTAN_METRICS_TOKEN;
    if (!token)
      return problemResponse(new AppError("not_found", "No route for GET /metrics"), { instance, correlationId });
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.get("authorization") ?? "")?.[1]?.trim() ?? "";
    if (!sameSecret(given, token)) {
      return problemResponse(
        new AppError(
          "unauthenticated",
          given ? "The metrics token is not valid" : "A bearer metrics token is required",
          {
            headers: { "www-authenticate": `Bearer realm="metrics"${given ? ', error="invalid_token"' : ""}` },
          },
        ),
        { instance, correlationId },
      );
    }
  }
  setScrapeCollector(readOutboxGauges);
  return new Response(await renderMetrics(), {
    status: 200,
    headers: { "content-type": metricsContentType(), "cache-control": "no-store" },
  });
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const g = globalThis as unknown as { __capstanMetricsListener?: http.Server };

/** Starts the CAPSTAN_METRICS_LISTEN listener (idempotent); resolves with its address, or null when unset. */
export async function startMetricsListener(): Promise<string | null> {
  const at = env().CAPSTAN_METRICS_LISTEN;
  if (!at) return null;
  if (!g.__capstanMetricsListener) {
    const cut = at.lastIndexOf(":");
    const host = at.slice(0, cut) || "127.0.0.1";
    const port = Number(at.slice(cut + 1));
    const server = http.createServer((req, res) => {
      // Liveness and readiness of this process (the only HTTP a worker or runner process serves besides its gateway).
      if (serveHealth(req, res)) return;
      const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "metrics"}`);
      if (req.method !== "GET" || url.pathname !== "/metrics") {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
        return;
      }
      void handleMetrics(new Request(url, { headers: req.headers as Record<string, string> }), { trusted: true }).then(
        async (r) => res.writeHead(r.status, Object.fromEntries(r.headers)).end(await r.text()),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
    });
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, () => resolve()));
    server.unref();
    g.__capstanMetricsListener = server;
    logger.info("metrics.listening", { address: at });
  }
  const a = g.__capstanMetricsListener.address();
  return a && typeof a === "object" ? `${a.address}:${a.port}` : at;
}
