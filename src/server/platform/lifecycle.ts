/**
 * Process lifecycle shared by every bundle of the process (Next.js bundles
 * route handlers and instrumentation separately, so the state lives on
 * globalThis): once a graceful stop began, /readyz answers 503 at once.
 */
const g = globalThis as unknown as { __capstanLifecycle?: { draining: boolean } };
const state = (g.__capstanLifecycle ??= { draining: false });

export function beginDrain(): void {
  state.draining = true;
}

export function isDraining(): boolean {
  return state.draining;
}
