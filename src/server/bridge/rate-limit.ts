import { env } from "@/server/platform/env";
import { resetLocalLimits, takeShared } from "@/server/platform/shared-rate-limit";

/**
 * Per-identity Bridge rate limit: CAPSTAN_BRIDGE_RATE_PER_SEC refills per
 * second up to CAPSTAN_BRIDGE_BURST, in process by default (each process its
 * own bucket, so N replicas allow N times the rate); with CAPSTAN_REDIS_URL
 * one limit shared by every replica through Redis, falling back to the
 * process's buckets while Redis does not answer (platform/shared-rate-limit.ts).
 */

/** Takes one token; resolves 0 when allowed, else the seconds until one is available. */
export function takeToken(key: string, now = Date.now()): Promise<number> {
  const { CAPSTAN_BRIDGE_RATE_PER_SEC: rate, CAPSTAN_BRIDGE_BURST: burst } = env();
  return takeShared("bridge", key, { rate, burst }, now);
}

export function resetRateLimits(): void {
  resetLocalLimits();
}
