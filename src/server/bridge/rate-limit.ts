import { env } from "@/server/platform/env";

/**
 * Per-identity token buckets, in process: CAPSTAN_BRIDGE_RATE_PER_SEC
 * refills per second up to CAPSTAN_BRIDGE_BURST. With several server
 * processes each enforces its own bucket, so the effective limit is that
 * many times higher (a shared limiter in PostgreSQL or Redis would cost a
 * round trip per call; budgets, which must be exact, are shared).
 */
type TBucket = { tokens: number; at: number };
const buckets = new Map<string, TBucket>();
const MAX_BUCKETS = 100_000;

/** Takes one token; returns 0 when allowed, else the seconds until one is available. */
export function takeToken(key: string, now = Date.now()): number {
  const { CAPSTAN_BRIDGE_RATE_PER_SEC: rate, CAPSTAN_BRIDGE_BURST: burst } = env();
  let b = buckets.get(key);
  if (!b) {
    if (buckets.size >= MAX_BUCKETS) buckets.clear();
    b = { tokens: burst, at: now };
    buckets.set(key, b);
  }
  b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
  b.at = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return 0;
  }
  return Math.max(1, Math.ceil((1 - b.tokens) / rate));
}

export function resetRateLimits(): void {
  buckets.clear();
}
