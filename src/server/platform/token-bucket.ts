/**
 * In-process token buckets: `rate` tokens per second up to `burst`. Several
 * server processes each keep their own buckets (documented where used).
 */
type TBucket = { tokens: number; at: number };
const MAX_BUCKETS = 100_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, TBucket>();

  /** Takes one token; returns 0 when allowed, else the seconds until one is available. */
  take(key: string, rate: number, burst: number, now = Date.now()): number {
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
      b = { tokens: burst, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  }

  clear(): void {
    this.buckets.clear();
  }
}
