/**
 * Where one invocation's time went (`POST /v1/sessions/{ses}/invocations`),
 * from its arrival at the REST boundary to the moment its answer is built:
 *
 * - auth: transport, body, bearer token, the procedure's input schema;
 * - context: the session, membership, access, surface, deployment and
 *   release (one statement, invocation-context.ts) and the evidence checks;
 * - admission: the five checks, the runtime lease draw and its journal;
 * - insert: the invocation row, its sequence and event (one statement);
 * - app: the request to the app and its answer (the upstream: not Capstan's);
 * - execution: Capstan's work around the app (runner token, usage from
 *   /proc, the app's log, evidence blobs);
 * - record: the execution, its charge, evidence grants and event (one
 *   statement, one commit).
 *
 * `Capstan-Overhead-Ms` is the total minus `app`, as the Bridge's is the
 * total minus its upstream provider (bridge/timing.ts).
 */
export type TInvocationPhase = "auth" | "context" | "admission" | "insert" | "app" | "execution" | "record";
const PHASES: readonly TInvocationPhase[] = ["auth", "context", "admission", "insert", "app", "execution", "record"];

export class InvocationTiming {
  readonly startedAt: number;
  private last: number;
  readonly ms: Record<TInvocationPhase, number> = {
    auth: 0,
    context: 0,
    admission: 0,
    insert: 0,
    app: 0,
    execution: 0,
    record: 0,
  };

  constructor(startedAt = performance.now()) {
    this.startedAt = startedAt;
    this.last = startedAt;
  }

  /** Adds the time since the previous mark (or the arrival) to `phase`. */
  mark(phase: TInvocationPhase): void {
    const now = performance.now();
    this.ms[phase] += now - this.last;
    this.last = now;
  }

  headers(now = performance.now()): { "capstan-overhead-ms": string; "server-timing": string } {
    const total = now - this.startedAt;
    const overhead = Math.max(0, total - this.ms.app);
    const parts = PHASES.map((p) => `${p};dur=${fixed(this.ms[p])}`);
    parts.push(`overhead;dur=${fixed(overhead)}`, `total;dur=${fixed(total)}`);
    return { "capstan-overhead-ms": fixed(overhead), "server-timing": parts.join(", ") };
  }
}

const fixed = (ms: number) => (Math.round(ms * 100) / 100).toFixed(2);
