/**
 * Where one Bridge call's time went, from its arrival (the server's request
 * event, or the handler's entry when it is handed a web Request) to the
 * moment its response is serialised and handed to the socket:
 *
 * - auth: token verification, identity status, rate limit;
 * - admission: body, schema, idempotency claim, contract, permissions,
 *   scope, binding choice, plan entitlement;
 * - reserve: the budget reservation (the call's durable in-flight journal);
 * - provider: the provider call (an upstream's wait for ai.generate,
 *   email.send and S3 storage; Capstan's own work for data.kv and the
 *   platform store);
 * - record: output check, pricing, the group-committed record, charge and
 *   events, the idempotent result;
 * - commit (inside record, not a phase of its own): the round trip of the
 *   record statement that carried this call, commit included, as the server
 *   saw it (what `npm run bench` sets beside an empty durable commit).
 *
 * `Capstan-Overhead-Ms` is the total minus the upstream provider's time (only
 * when the provider is not Capstan itself), so a provider that sleeps never
 * shows as overhead, and everything Capstan did, including the platform
 * store's queries, does. Phases are measured with `mark`: each adds the time
 * since the previous mark, so they add up to the total but for the
 * serialisation tail.
 */
export type TPhase = "auth" | "admission" | "reserve" | "provider" | "record";
const PHASES: readonly TPhase[] = ["auth", "admission", "reserve", "provider", "record"];

export class BridgeTiming {
  readonly startedAt: number;
  private last: number;
  readonly ms: Record<TPhase, number> = { auth: 0, admission: 0, reserve: 0, provider: 0, record: 0 };
  /** True when the provider step waited on an upstream (not the platform's own store). */
  upstream = false;
  /** The record statement's round trip (part of `record`); null when the call was written another way. */
  commitMs: number | null = null;

  constructor(startedAt = performance.now()) {
    this.startedAt = startedAt;
    this.last = startedAt;
  }

  /** Adds the time since the previous mark (or the arrival) to `phase`. */
  mark(phase: TPhase): void {
    const now = performance.now();
    this.ms[phase] += now - this.last;
    this.last = now;
  }

  /** The upstream provider's time (0 when the provider is Capstan itself). */
  upstreamMs(): number {
    return this.upstream ? this.ms.provider : 0;
  }

  overheadMs(now = performance.now()): number {
    return Math.max(0, now - this.startedAt - this.upstreamMs());
  }

  /** The two response headers, computed at `now` (just before the response is written). */
  headers(now = performance.now()): { "capstan-overhead-ms": string; "server-timing": string } {
    const total = now - this.startedAt;
    const parts = PHASES.map((p) => `${p};dur=${fixed(this.ms[p])}`);
    if (this.commitMs !== null) parts.push(`commit;dur=${fixed(this.commitMs)}`);
    parts.push(`overhead;dur=${fixed(this.overheadMs(now))}`, `total;dur=${fixed(total)}`);
    return { "capstan-overhead-ms": fixed(this.overheadMs(now)), "server-timing": parts.join(", ") };
  }
}

const fixed = (v: number) => String(Math.round(v * 100) / 100);
