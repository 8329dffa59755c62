import type { Redis } from "ioredis";
import type { RateLimiterRedis } from "rate-limiter-flexible";
import { env } from "./env";
import { logger } from "./logger";
import { TokenBuckets } from "./token-bucket";

/**
 * Rate limits that hold across replicas (issue #23 part 3). Without
 * CAPSTAN_REDIS_URL every process keeps its own token buckets (rate per
 * second up to burst), exactly as on one machine. With it, the limit is one
 * counter in Redis shared by every process (rate-limiter-flexible's
 * RateLimiterRedis on ioredis, one atomic round trip per check):
 *
 * - Window: `rate` calls per 1-second fixed window (for a rate below 1/s, one
 *   call per ceil(1/rate) seconds). A window boundary lets a client make up to
 *   2 x rate calls within one second, the role the burst plays in process; the
 *   burst setting itself is not used in shared mode.
 * - Never in the way: ioredis with the offline queue disabled, a short connect
 *   timeout and a per-command timeout (CAPSTAN_REDIS_TIMEOUT_MS, 100 ms), no
 *   retries per request, reconnecting in the background. While Redis is not
 *   connected, or a command fails or times out, the check falls back to this
 *   process's token buckets (so N replicas allow up to N x the rate), counts it
 *   (`rateLimitStats().fallbacks`) and logs `rate_limit.redis_unavailable`
 *   (at most every 10 s, with the count).
 */
export type TLimit = { rate: number; burst: number };

type TShared = {
  url: string;
  redis: Redis;
  limiters: Map<string, RateLimiterRedis>;
};

const g = globalThis as unknown as {
  __capstanRateLimit?: {
    shared?: TShared;
    loading?: Promise<TShared | null>;
    local: TokenBuckets;
    stats: { fallbacks: number; shared: number; lastWarnAt: number };
  };
};
const state = (g.__capstanRateLimit ??= {
  local: new TokenBuckets(),
  stats: { fallbacks: 0, shared: 0, lastWarnAt: 0 },
});

const WARN_EVERY_MS = 10_000;

export function rateLimitStats(): {
  mode: "redis" | "process";
  redisReady: boolean;
  shared: number;
  fallbacks: number;
} {
  return {
    mode: env().CAPSTAN_REDIS_URL ? "redis" : "process",
    redisReady: state.shared?.redis.status === "ready",
    shared: state.stats.shared,
    fallbacks: state.stats.fallbacks,
  };
}

async function connectShared(url: string): Promise<TShared | null> {
  const { Redis } = await import("ioredis");
  const timeout = env().CAPSTAN_REDIS_TIMEOUT_MS;
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: timeout,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
  });
  redis.on("error", (err: Error) => warn(`redis: ${err.message}`));
  return { url, redis, limiters: new Map() };
}

function shared(): TShared | null {
  const url = env().CAPSTAN_REDIS_URL;
  if (!url) return null;
  if (state.shared?.url === url) return state.shared;
  if (!state.loading) {
    state.loading = connectShared(url).then(
      (s) => {
        const old = state.shared;
        state.shared = s ?? undefined;
        state.loading = undefined;
        old?.redis.disconnect();
        return s;
      },
      (err: unknown) => {
        state.loading = undefined;
        warn(`redis client: ${(err as Error).message}`);
        return null;
      },
    );
  }
  return null; // this call falls back; the next finds the client
}

function warn(why: string): void {
  const now = Date.now();
  if (now - state.stats.lastWarnAt < WARN_EVERY_MS) return;
  state.stats.lastWarnAt = now;
  logger.warn("rate_limit.redis_unavailable", {
    error: why,
    fallbacks: state.stats.fallbacks,
    note: "limits are per process until Redis answers again",
  });
}

async function limiterFor(s: TShared, name: string, limit: TLimit): Promise<RateLimiterRedis> {
  const id = `${name}:${limit.rate}`;
  let l = s.limiters.get(id);
  if (!l) {
    const { RateLimiterRedis } = await import("rate-limiter-flexible");
    const duration = limit.rate >= 1 ? 1 : Math.ceil(1 / limit.rate);
    const points = Math.max(1, Math.floor(limit.rate * duration));
    l = new RateLimiterRedis({
      storeClient: s.redis,
      keyPrefix: `${env().CAPSTAN_REDIS_KEY_PREFIX}rl:${name}`,
      points,
      duration,
    });
    s.limiters.set(id, l);
  }
  return l;
}

/**
 * Takes one call from `key`'s allowance under `name` (e.g. "bridge").
 * Returns 0 when allowed, else the whole seconds until the next call is.
 */
export async function takeShared(name: string, key: string, limit: TLimit, now = Date.now()): Promise<number> {
  const s = shared();
  if (s && s.redis.status === "ready") {
    try {
      const l = await limiterFor(s, name, limit);
      await l.consume(key, 1);
      state.stats.shared++;
      return 0;
    } catch (err) {
      const res = err as { msBeforeNext?: number; remainingPoints?: number };
      if (typeof res.msBeforeNext === "number" && typeof res.remainingPoints === "number") {
        state.stats.shared++;
        return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      }
      state.stats.fallbacks++;
      warn((err as Error).message ?? String(err));
    }
  } else if (env().CAPSTAN_REDIS_URL) {
    state.stats.fallbacks++;
    warn(`redis is ${s ? s.redis.status : "connecting"}`);
  }
  return state.local.take(`${name}:${key}`, limit.rate, limit.burst, now);
}

/** Tests: forget in-process buckets (shared windows expire by themselves). */
export function resetLocalLimits(): void {
  state.local.clear();
}

/** Closes the Redis connection (process stop, tests). */
export async function closeSharedLimits(): Promise<void> {
  const s = state.shared;
  state.shared = undefined;
  if (s) await s.redis.quit().catch(() => s.redis.disconnect());
}
