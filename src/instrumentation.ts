/** Next.js calls this once per server process before serving requests. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // Before anything else, so the first requests are traced (only when OTEL_EXPORTER_OTLP_ENDPOINT is set).
    const { startTracing } = await import("./server/platform/tracing");
    await startTracing();
    const { boot } = await import("./server/boot");
    await boot();
  }
}
