import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb, hotSessionOptions } from "@/server/platform/db/client";
import { testDbMode } from "./support/db";

/**
 * capstan_dispatch (migration 20261129030000) plans every call for its batch.
 * A PL/pgSQL function otherwise keeps a generic plan per session, made when
 * the outbox was nearly empty: the bench found its mark of a 1000-event batch
 * scanning the whole outbox (a second a batch, 652 events/s instead of
 * ~12,000). Here one session dispatches eight one-event batches on a nearly
 * empty outbox (after five, PostgreSQL would switch to a cached generic plan),
 * then a batch of 1000 out of 6000 events, with auto_explain sending the plans
 * of the function's statements to this client: the mark's plan must be made
 * for this batch (its 1000 ids in the plan), not the cached generic one (a
 * parameter in their place). Whether PostgreSQL would have switched to the
 * generic plan here depends on its cost estimates, so the function's own
 * setting is checked too. docs/decisions.md "Workers that keep up".
 */
describe.skipIf(testDbMode() !== "postgres")("outbox dispatch plans", () => {
  let client: pg.Client;
  const plans: string[] = [];

  beforeAll(async () => {
    await getDb();
    client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    client.on("notice", (n) => plans.push(String(n.message ?? "")));
    await client.query("INSERT INTO workspaces (id, name) VALUES ('ws_plan', 'plan')");
  });

  afterAll(async () => {
    await client?.end();
  });

  const event = (n: number, from: number) =>
    client.query(
      `INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data)
       SELECT 'evt_plan' || lpad(g::text, 8, '0'), 'ws_plan', 'invocation.changed', '1', '/v1/workspaces/ws_plan',
              'subject-' || (g % 7), 'cor', '{}'::jsonb
         FROM generate_series($1::int, $1::int + $2::int - 1) g`,
      [from, n],
    );
  const dispatch = async () =>
    (await client.query<{ events: number }>("SELECT events FROM capstan_dispatch(1000, 4242, now())")).rows[0]!.events;

  it("plans every call for its batch: the mark of 1000 events after eight one-event batches is planned with its ids", async () => {
    for (let i = 0; i < 8; i++) {
      await event(1, i);
      expect(await dispatch()).toBe(1);
    }
    await event(6000, 100);
    await client.query("LOAD 'auto_explain'");
    await client.query("SET auto_explain.log_min_duration = 0");
    await client.query("SET auto_explain.log_nested_statements = on");
    await client.query("SET client_min_messages = log");
    plans.length = 0;
    expect(await dispatch()).toBe(1000);
    await client.query("SET client_min_messages = notice");
    const mark = plans.find((p) => p.includes("UPDATE outbox_events SET dispatched_at"));
    expect(mark, plans.map((p) => p.slice(0, 300)).join("\n---\n")).toBeDefined();
    const plan = mark!.slice(0, 600);
    expect(plan).toMatch(/Update on outbox_events/);
    // A custom plan carries the batch's ids; the generic plan of the first version read `id = ANY ($10)`.
    expect(plan).toMatch(/ANY \('\{evt_plan/);
    expect(plan).not.toMatch(/ANY \(\$\d+\)/);
    const config = await client.query<{ proconfig: string[] | null }>(
      "SELECT proconfig FROM pg_proc WHERE proname = 'capstan_dispatch'",
    );
    expect(config.rows[0]!.proconfig).toContain("plan_cache_mode=force_custom_plan");
    const undispatched = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL",
    );
    expect(undispatched.rows[0]!.n).toBe(5000);
  });

  // Migration 20261129070000: the claim walks the undispatched index in seq order and stops at its limit. A bitmap
  // scan read every entry of that partial index, the dead entries of events dispatched since the last vacuum
  // included (the 1008 above), then sorted; an index scan needs no sort and marks the dead entries it passes.
  it("claims by an ordered index scan of the undispatched events, in a hot pool session too", async () => {
    const hot = new pg.Client({ connectionString: process.env.DATABASE_URL, options: hotSessionOptions() });
    await hot.connect();
    const notes: string[] = [];
    hot.on("notice", (n) => notes.push(String(n.message ?? "")));
    try {
      await hot.query("LOAD 'auto_explain'");
      await hot.query("SET auto_explain.log_min_duration = 0");
      await hot.query("SET auto_explain.log_nested_statements = on");
      await hot.query("SET client_min_messages = log");
      const r = await hot.query<{ events: number }>("SELECT events FROM capstan_dispatch(10, 4242, now())");
      await hot.query("SET client_min_messages = notice");
      expect(r.rows[0]!.events).toBe(10);
      const claim = notes.find((p) => p.includes("FOR UPDATE SKIP LOCKED"));
      expect(claim, notes.map((p) => p.slice(0, 300)).join("\n---\n")).toBeDefined();
      expect(claim).toMatch(/Index Scan using outbox_events_undispatched_idx on outbox_events/);
      expect(claim).not.toMatch(/Bitmap|Sort/);
      // The ten claimed are the first ten of the outbox in write order (the index's order, no sort needed).
      const next = await hot.query<{ id: string }>(
        "SELECT id FROM outbox_events WHERE dispatched_at IS NULL ORDER BY seq LIMIT 1",
      );
      expect(next.rows[0]!.id).toBe("evt_plan00001110");
    } finally {
      await hot.end();
    }
  });
});
