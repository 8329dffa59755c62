import pg from "pg";
import { run, type TTarget } from "./load";
import type { TRest } from "./setup";

/**
 * Workers keep up (issue #16 item 5; docs/decisions.md "Workers that keep
 * up"), against the server under test (`npm start`, workers in-process):
 *
 * 1. A webhook subscription (every event type) to the loopback receiver, so
 *    the dispatcher creates a delivery per event and the senders send them,
 *    as in a deployment with subscribers.
 * 2. The Bridge at max throughput: ai.generate closed loop at concurrency 10
 *    for `seconds`. Its event rate = outbox events written in that window /
 *    the window (two per call). Dispatch lag = dispatched_at - created_at of
 *    the window's `capability.invocation_resulted` events (their created_at is
 *    the moment of their write; the requested event's is the call's start),
 *    read from the database once the outbox is drained: p50/p99/max.
 * 3. The dispatcher's sustained rate: `events` undispatched events written in
 *    one statement (the trigger wakes the dispatcher), timed from that commit
 *    to the last one's dispatched_at, while the senders deliver what it
 *    creates. Then the time until those deliveries are all delivered.
 * Target: dispatcher >= 2x the Bridge's event rate, dispatch lag p99 < 2 s.
 * The senders' rate against the same event rate is reported alongside (one
 * subscription: at most CAPSTAN_WEBHOOK_MAX_IN_FLIGHT requests in flight).
 */
export type TOutboxResult = {
  bridge_calls_per_sec: number;
  bridge_events_per_sec: number;
  dispatch_lag_ms_at_max_throughput: { p50: number | null; p99: number | null; max: number | null; events: number };
  drained_after_load_seconds: number | null;
  dispatcher_burst: { events: number; seconds: number | null; events_per_sec: number | null };
  deliveries_burst: { deliveries: number; delivered: number; seconds: number | null; per_sec: number | null };
  dispatcher_to_bridge_ratio: number | null;
  deliveries_to_bridge_ratio: number | null;
  method: string;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function outboxScenario(o: {
  databaseUrl: string;
  rest: TRest;
  ws: string;
  webhookUrl: string;
  seconds: number;
  target: TTarget;
  events?: number;
}): Promise<TOutboxResult> {
  const burst = o.events ?? Number(process.env.BENCH_OUTBOX_EVENTS ?? 20_000);
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  const one = async <T>(sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows[0] as T;
  const undispatched = () =>
    one<{ n: number }>("SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL").then((r) => r.n);
  const waitDrained = async (deadlineMs: number): Promise<number | null> => {
    const started = Date.now();
    while (Date.now() - started < deadlineMs) {
      if ((await undispatched()) === 0) return (Date.now() - started) / 1000;
      await sleep(100);
    }
    return null;
  };
  try {
    const sub = await o.rest<{ id: string }>("POST", `/v1/workspaces/${o.ws}/event-subscriptions`, {
      url: o.webhookUrl,
      event_types: ["*"],
      description: "bench",
    });
    // Warm the path with the subscription in place; start from an empty outbox.
    await run(o.target, 1, Math.min(2, o.seconds));
    await waitDrained(60_000);

    // 2. The Bridge at max throughput, the dispatcher behind it.
    const t0 = await one<{ t: Date }>("SELECT clock_timestamp() AS t").then((r) => r.t);
    const load = await run(o.target, 10, o.seconds);
    const t1 = await one<{ t: Date }>("SELECT clock_timestamp() AS t").then((r) => r.t);
    const drainedAfter = await waitDrained(120_000);
    const windowSec = (t1.getTime() - t0.getTime()) / 1000;
    const written = await one<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbox_events WHERE created_at >= $1 AND created_at < $2",
      [t0, t1],
    ).then((r) => r.n);
    const lag = await one<{ p50: number | null; p99: number | null; max: number | null; n: number }>(
      `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY l) AS p50, percentile_disc(0.99) WITHIN GROUP (ORDER BY l) AS p99, max(l) AS max, count(*)::int AS n
         FROM (SELECT extract(epoch FROM dispatched_at - created_at)::float8 * 1000 AS l FROM outbox_events
                WHERE type = 'capability.invocation_resulted' AND created_at >= $1 AND created_at < $2 AND dispatched_at IS NOT NULL) x`,
      [t0, t1],
    );

    // 3. The dispatcher's sustained rate on a burst written at once.
    const inserted = await one<{ n: number }>(
      `WITH ins AS (
         INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data, created_at)
         SELECT 'evt_b' || lpad(to_hex(g), 25, '0'), $1, 'capability.invocation_resulted', '1.1.0', '/v1/workspaces/' || $1,
                'cap_b' || lpad(to_hex(g), 25, '0'), 'cor_b' || lpad(to_hex(g), 25, '0'),
                jsonb_build_object('capability_invocation_id', 'cap_b' || lpad(to_hex(g), 25, '0'), 'workspace_id', $1::text, 'outcome', 'completed',
                  'reason', null, 'output', jsonb_build_object('kind', 'inline', 'json', jsonb_build_object('sha256', md5(g::text) || md5('o' || g), 'size_bytes', 120)),
                  'provider', 'openai', 'fallback_used', false, 'usage', jsonb_build_object('units', 12, 'unit', 'tokens'), 'finished_at', now()),
                clock_timestamp()
           FROM generate_series(1, $2::int) g RETURNING 1)
       SELECT count(*)::int AS n FROM ins`,
      [o.ws, burst],
    );
    // Committed (autocommit): the dispatcher can see them from here on.
    const committedAt = await one<{ t: Date }>("SELECT clock_timestamp() AS t").then((r) => r.t);
    const burstDrained = await waitDrained(300_000);
    const lastDispatched = await one<{ t: Date | null }>(
      "SELECT max(dispatched_at) AS t FROM outbox_events WHERE id LIKE 'evt_b%'",
    ).then((r) => r.t);
    const burstSec =
      burstDrained !== null && lastDispatched
        ? Math.max(0.001, (lastDispatched.getTime() - committedAt.getTime()) / 1000)
        : null;
    // The senders: until every delivery the burst created is delivered (or 300 s).
    const created = await one<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND event_id LIKE 'evt_b%'",
      [sub.id],
    ).then((r) => r.n);
    const deliveredQuery = () =>
      one<{ n: number; t: Date | null }>(
        "SELECT count(*)::int AS n, max(delivered_at) AS t FROM webhook_deliveries WHERE subscription_id = $1 AND event_id LIKE 'evt_b%' AND status = 'delivered'",
        [sub.id],
      );
    let delivered = await deliveredQuery();
    const until = Date.now() + 300_000;
    while (delivered.n < created && Date.now() < until) {
      await sleep(250);
      delivered = await deliveredQuery();
    }
    const deliveriesSec =
      delivered.n === created && delivered.t
        ? Math.max(0.001, (delivered.t.getTime() - committedAt.getTime()) / 1000)
        : null;

    const eventsPerSec = written / windowSec;
    const dispatcherRate = burstSec ? inserted.n / burstSec : null;
    const r2 = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);
    return {
      bridge_calls_per_sec: Math.round(load.count / load.seconds),
      bridge_events_per_sec: Math.round(eventsPerSec),
      dispatch_lag_ms_at_max_throughput: { p50: r2(lag.p50), p99: r2(lag.p99), max: r2(lag.max), events: lag.n },
      drained_after_load_seconds: r2(drainedAfter),
      dispatcher_burst: {
        events: inserted.n,
        seconds: r2(burstSec),
        events_per_sec: dispatcherRate === null ? null : Math.round(dispatcherRate),
      },
      deliveries_burst: {
        deliveries: created,
        delivered: delivered.n,
        seconds: r2(deliveriesSec),
        per_sec: deliveriesSec ? Math.round(delivered.n / deliveriesSec) : null,
      },
      dispatcher_to_bridge_ratio:
        dispatcherRate !== null && eventsPerSec > 0 ? r2(dispatcherRate / eventsPerSec) : null,
      deliveries_to_bridge_ratio:
        deliveriesSec && eventsPerSec > 0 ? r2(delivered.n / deliveriesSec / eventsPerSec) : null,
      method:
        "one webhook subscription (every type) to a loopback receiver answering 204; bridge_*: ai.generate closed loop at concurrency 10 (outbox events written in the window / the window); dispatch lag: dispatched_at - created_at of that window's invocation_resulted events; dispatcher_burst: events written in one statement, commit -> last dispatched_at, deliveries being sent meanwhile; deliveries_burst: commit -> last delivered_at of the deliveries the burst created",
    };
  } finally {
    await db.end();
  }
}
