import { handleMetrics } from "@/server/http/metrics-handler";

export const dynamic = "force-dynamic";

/** Prometheus scrape on the main port: bearer CAPSTAN_METRICS_TOKEN, else 404 (docs/decisions.md "Production metrics"). */
export function GET(req: Request): Promise<Response> {
  return handleMetrics(req);
}
