import { env } from "@/server/platform/env";
import { TokenBuckets } from "@/server/platform/token-bucket";

/**
 * Per-identity token buckets, in process: CAPSTAN_BRIDGE_RATE_PER_SEC
 * refills per second up to CAPSTAN_BRIDGE_BURST. With several server
 * processes each enforces its own bucket, so the effective limit is that
 * many times higher (a shared limiter in PostgreSQL or Redis would cost a
 * round trip per call; budgets, which must be exact, are shared).
 */
const buckets = new TokenBuckets();

/** Takes one token; returns 0 when allowed, else the seconds until one is available. */
export function takeToken(key: string, now = Date.now()): number {
  const { CAPSTAN_BRIDGE_RATE_PER_SEC: rate, CAPSTAN_BRIDGE_BURST: burst } = env();
  return buckets.take(key, rate, burst, now);
}

export function resetRateLimits(): void {
  buckets.clear();
}
