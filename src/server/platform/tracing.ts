import { env } from "./env";
import { logger } from "./logger";

/**
 * OpenTelemetry tracing, off by default: with the standard
 * OTEL_EXPORTER_OTLP_ENDPOINT set, the Node SDK starts with an OTLP/HTTP
 * trace exporter (spans to `<endpoint>/v1/traces`; the other standard OTEL_*
 * variables — headers, sampler, resource attributes — are read by the SDK
 * itself). Next.js emits its own spans (request handling, route rendering)
 * through @opentelemetry/api once a provider is registered. The SDK is
 * imported only when enabled, so a process without it pays nothing.
 */
type TSdk = { shutdown: () => Promise<void> };
const g = globalThis as unknown as { __capstanTracing?: TSdk };

export async function startTracing(): Promise<boolean> {
  const cfg = env();
  if (!cfg.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  if (g.__capstanTracing) return true;
  const [{ NodeSDK }, { OTLPTraceExporter }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
  ]);
  const sdk = new NodeSDK({ serviceName: cfg.OTEL_SERVICE_NAME, traceExporter: new OTLPTraceExporter() });
  sdk.start();
  g.__capstanTracing = sdk;
  logger.info("tracing.started", { endpoint: cfg.OTEL_EXPORTER_OTLP_ENDPOINT, service: cfg.OTEL_SERVICE_NAME });
  return true;
}

/** Flushes the spans still buffered and stops the SDK (shutdown, tests). */
export async function stopTracing(): Promise<void> {
  const sdk = g.__capstanTracing;
  g.__capstanTracing = undefined;
  await sdk?.shutdown();
}
