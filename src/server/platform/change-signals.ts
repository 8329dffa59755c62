import { randomBytes } from "node:crypto";
import { env } from "./env";
import { logger } from "./logger";

/**
 * Change signals: a service that changes data a hot-path cache derives from
 * calls `signalChange(topic, id)`. The caches of this process react at once
 * (synchronously, before the call returns); every other process sharing the
 * PostgreSQL database hears it through LISTEN/NOTIFY on channel
 * `capstan_changes` and reacts the same way, typically within milliseconds
 * (the replicas test holds it under 1 s).
 *
 * Caches subscribe with `onChange(topic, handler)`: the handler gets the id
 * that changed, or null for "anything may have changed" (sent after the
 * listener reconnects, since notifications sent while it was away are lost).
 * `currentVersion(topic)` counts the changes of a topic, for caches that keep
 * the version they were filled at.
 *
 * Staleness bound: the caches keep their own short TTLs (1-5 s) as a backstop
 * for the time the listener is disconnected; with it connected, a change made
 * on any replica is seen by all within the NOTIFY delivery time. The
 * notification is sent right after the change commits (never before), so a
 * process that re-reads on it sees the new row.
 *
 * With the embedded database (PGlite) there is only one process: no listener,
 * no NOTIFY.
 */
export const CHANNEL = "capstan_changes";
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

type THandler = (id: string | null) => void;
type TListener = { client: import("pg").Client | null; connecting: boolean; backoffMs: number; stopped: boolean };
type TState = {
  origin: string;
  versions: Map<string, number>;
  handlers: Map<string, Set<THandler>>;
  listener?: TListener;
  stats: { sent: number; received: number; reconnects: number; publishFailures: number };
  publish?: (payload: string) => Promise<void>;
};

// Next.js bundles route handlers separately: the state is per process, on globalThis.
const g = globalThis as unknown as { __capstanChanges?: TState };
const state: TState = (g.__capstanChanges ??= {
  origin: randomBytes(8).toString("hex"),
  versions: new Map(),
  handlers: new Map(),
  stats: { sent: 0, received: 0, reconnects: 0, publishFailures: 0 },
});

function apply(topic: string, id: string | null): void {
  state.versions.set(topic, (state.versions.get(topic) ?? 0) + 1);
  for (const h of state.handlers.get(topic) ?? []) {
    try {
      h(id);
    } catch (err) {
      logger.error("changes.handler_failed", { topic, error: String(err) });
    }
  }
}

function applyAll(): void {
  for (const topic of new Set([...state.versions.keys(), ...state.handlers.keys()])) apply(topic, null);
}

/** Registers a cache's reaction to changes of `topic` (this process and every other). */
export function onChange(topic: string, handler: THandler): void {
  let set = state.handlers.get(topic);
  if (!set) state.handlers.set(topic, (set = new Set()));
  set.add(handler);
}

/**
 * Signals that `topic` (optionally one `id` of it) changed: applied here at
 * once, then published to the other processes (fire and forget: a lost
 * notification costs at most the caches' TTL).
 */
export function signalChange(topic: string, id: string | null = null): void {
  apply(topic, id);
  if (!state.publish) return;
  const payload = JSON.stringify({ o: state.origin, t: topic, i: id });
  state.stats.sent++;
  state.publish(payload).catch((err: unknown) => {
    state.stats.publishFailures++;
    logger.warn("changes.publish_failed", { topic, error: (err as Error).message });
  });
}

/** Kept for callers that only count changes. */
export function bumpVersion(topic: string): void {
  signalChange(topic);
}

export function currentVersion(topic: string): number {
  return state.versions.get(topic) ?? 0;
}

export function changeSignalStats(): TState["stats"] & { listening: boolean } {
  return { ...state.stats, listening: Boolean(state.listener?.client) };
}

/**
 * Starts listening on PostgreSQL (idempotent; called when the database opens).
 * `publish` sends one notification (the caller's pool). The listener's socket
 * is unref'd: it never keeps a process (a CLI run) alive.
 */
export function startChangeSignals(publish: (payload: string) => Promise<void>): void {
  state.publish = publish;
  if (state.listener && !state.listener.stopped) return;
  const listener: TListener = { client: null, connecting: false, backoffMs: RECONNECT_MIN_MS, stopped: false };
  state.listener = listener;
  void connect(listener, false);
}

export async function stopChangeSignals(): Promise<void> {
  const l = state.listener;
  state.publish = undefined;
  if (!l) return;
  l.stopped = true;
  const c = l.client;
  l.client = null;
  await c?.end().catch(() => undefined);
}

async function connect(l: TListener, isReconnect: boolean): Promise<void> {
  // LISTEN needs a session of its own: a direct connection (never through a transaction-mode pooler).
  const url = env().DATABASE_URL ? (env().DATABASE_DIRECT_URL ?? env().DATABASE_URL) : undefined;
  if (l.stopped || l.connecting || !url) return;
  l.connecting = true;
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 5_000 });
  const lost = (why: string) => {
    if (l.client !== client) return;
    l.client = null;
    logger.warn("changes.listener_lost", { error: why });
    void client.end().catch(() => undefined);
    schedule(l);
  };
  client.on("error", (err) => lost(err.message));
  client.on("end", () => lost("connection ended"));
  client.on("notification", (msg) => {
    if (msg.channel !== CHANNEL || !msg.payload) return;
    let m: { o?: string; t?: string; i?: string | null };
    try {
      m = JSON.parse(msg.payload) as typeof m;
    } catch {
      return;
    }
    if (m.o === state.origin || typeof m.t !== "string") return;
    state.stats.received++;
    apply(m.t, typeof m.i === "string" ? m.i : null);
  });
  try {
    await client.connect();
    (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    await client.query(`LISTEN ${CHANNEL}`);
    if (l.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    l.client = client;
    l.backoffMs = RECONNECT_MIN_MS;
    if (isReconnect) {
      state.stats.reconnects++;
      // Whatever was signalled while we were away is lost: every cache starts over.
      applyAll();
      logger.info("changes.listener_reconnected", {});
    }
  } catch (err) {
    logger.warn("changes.listener_connect_failed", { error: (err as Error).message });
    await client.end().catch(() => undefined);
    schedule(l);
  } finally {
    l.connecting = false;
  }
}

function schedule(l: TListener): void {
  if (l.stopped) return;
  const wait = l.backoffMs;
  l.backoffMs = Math.min(RECONNECT_MAX_MS, l.backoffMs * 2);
  setTimeout(() => void connect(l, true), wait).unref();
}
