/**
 * The work a worker process has in flight (ticks and webhook requests), so a
 * stopping process can wait for it (drainWorkers). Per process, on globalThis
 * (Next.js bundles instrumentation and route handlers separately).
 */
const g = globalThis as unknown as { __capstanTicks?: Set<Promise<unknown>> };

export function trackTick<T>(p: Promise<T>): Promise<T> {
  const ticks = (g.__capstanTicks ??= new Set());
  ticks.add(p);
  void p.then(
    () => ticks.delete(p),
    () => ticks.delete(p),
  );
  return p;
}

export function runningTicks(): Promise<unknown>[] {
  return [...(g.__capstanTicks ?? [])];
}
