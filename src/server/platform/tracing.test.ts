import http from "node:http";
import type { AddressInfo } from "node:net";
import { trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "./env";
import { startTracing, stopTracing } from "./tracing";

/** OpenTelemetry is off without OTEL_EXPORTER_OTLP_ENDPOINT; with it, spans reach an OTLP/HTTP collector (a real one on loopback). */
afterEach(async () => {
  await stopTracing();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  resetEnvCache();
});

describe("tracing", () => {
  it("is off by default: nothing starts, spans go nowhere", async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    resetEnvCache();
    expect(await startTracing()).toBe(false);
    expect(trace.getTracer("t").startSpan("x").isRecording()).toBe(false);
  });

  it("with OTEL_EXPORTER_OTLP_ENDPOINT: a span is exported to <endpoint>/v1/traces on shutdown", async () => {
    const received: { path: string; type: string; bytes: number }[] = [];
    const collector = http.createServer((req, res) => {
      let bytes = 0;
      req.on("data", (c: Buffer) => (bytes += c.length));
      req.on("end", () => {
        received.push({ path: req.url ?? "", type: String(req.headers["content-type"]), bytes });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    try {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      resetEnvCache();
      expect(await startTracing()).toBe(true);
      const span = trace.getTracer("capstan-test").startSpan("unit-span");
      expect(span.isRecording()).toBe(true);
      span.end();
      await stopTracing();
      expect(received.some((r) => r.path === "/v1/traces" && r.bytes > 0)).toBe(true);
    } finally {
      collector.close();
    }
  });
});
