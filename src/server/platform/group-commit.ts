/**
 * Group commit for hot statements: `add(item)` runs `flush([item])` at once
 * when nothing is in flight; items that arrive while a flush is in flight
 * wait and go together in the next one (up to `max` per flush). So a lone
 * caller never waits for a timer, and under load a hot row is locked once per
 * batch instead of once per item. `flush` returns one result per item, in
 * order. A failed batch is retried item by item, so one bad item (or a
 * deadlock victim) fails only itself.
 */
export class GroupCommit<I, R> {
  private queue: Array<{ item: I; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  private running = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly flush: (items: I[]) => Promise<R[]>,
    private readonly max = 200,
  ) {}

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.max);
        try {
          const results = await this.flush(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(results[i]!));
        } catch (err) {
          if (batch.length === 1) {
            batch[0]!.reject(err);
            continue;
          }
          for (const b of batch) {
            await this.flush([b.item]).then((r) => b.resolve(r[0]!), b.reject);
          }
        }
      }
    } finally {
      this.running = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Resolves once nothing is queued or in flight (shutdown, tests). */
  idle(): Promise<void> {
    if (!this.running && !this.queue.length) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }
}
