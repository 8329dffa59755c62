import { randomBytes } from "node:crypto";
import pg from "pg";
import { startServer, stopServer, type TServer } from "./support/spawn-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budgetId } from "@/server/domain/usage/budget.service";
import {
  recoverReservations,
  reserveBudget,
  settleReservation,
  sweepExpiredReservations,
} from "@/server/domain/usage/reservations.service";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { db } from "@/server/platform/db/client";
import { utcMonth } from "@/server/platform/time";
import { api, makeUser, type TTestUser } from "./support/api";
import { aiCapability, bootBridgeApp, bridge, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { testDbMode } from "./support/db";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { checkedFetch } from "./support/openapi-responses";

/**
 * Budget reservations under contention (design: "Budgets are reserved before
 * the provider call and settled after it, atomically in Postgres, so
 * concurrent calls can never overspend; stale reservations are released by a
 * sweeper"). The provider answers usage.total_tokens equal to the request's
 * max_tokens, so every completed call uses exactly its reservation and the
 * number of calls that fit is exact. While the calls run, the budget row is
 * sampled on a separate connection: used + reserved never exceeds the limit.
 */

const MAX_TOKENS_PER_CALL = 100;
const ASKED = 40;
const RESERVATION = Math.min(MAX_TOKENS_PER_CALL, ASKED);
const FITS = 50;
const LIMIT = FITS * RESERVATION;

let owner: TTestUser;
let provider: TOpenAiServer;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  // A little latency so that calls overlap while the budget row is sampled.
  provider = await startOpenAiServer(`sk-budget-${randomBytes(12).toString("hex")}`, {
    tokens: "max_tokens",
    delayMs: 30,
  });
});

afterAll(async () => {
  await provider?.close();
});

async function aiWorkspace(): Promise<TBridgeSetup> {
  const s = await setupBridge({
    owner,
    capabilities: [aiCapability({ scope: { models: ["text"], max_tokens_per_call: MAX_TOKENS_PER_CALL } })],
    providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
  });
  const put = await api("PUT", `/v1/workspaces/${s.ws}/budgets/ai_tokens`, {
    token: owner.token,
    body: { limit_units: LIMIT },
  });
  expect(put.status, put.text).toBe(200);
  return s;
}

type TRow = { used_units: number; reserved_units: number; limit_units: number | null };

/** Polls the budget row on its own connection (not the app's pool) until stopped. */
function sampleBudget(id: string): {
  stop: () => Promise<{ samples: number; maxCommitted: number; overLimit: TRow[] }>;
} {
  let running = true;
  let samples = 0;
  let maxCommitted = 0;
  const overLimit: TRow[] = [];
  const url = process.env.DATABASE_URL;
  const done = (async () => {
    const client = url ? new pg.Client({ connectionString: url }) : null;
    await client?.connect();
    const read = async (): Promise<TRow | undefined> =>
      client
        ? (await client.query<TRow>("SELECT used_units, reserved_units, limit_units FROM budgets WHERE id = $1", [id]))
            .rows[0]
        : (
            await db().$queryRaw<TRow[]>`SELECT used_units, reserved_units, limit_units FROM budgets WHERE id = ${id}`
          )[0];
    try {
      while (running) {
        const row = await read();
        if (row) {
          samples++;
          const committed = Number(row.used_units) + Number(row.reserved_units);
          maxCommitted = Math.max(maxCommitted, committed);
          if (row.limit_units !== null && committed > Number(row.limit_units)) overLimit.push(row);
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    } finally {
      await client?.end();
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return { samples, maxCommitted, overLimit };
    },
  };
}

const body = { model_kind: "text", input: { text: "count me" }, max_tokens: ASKED };

async function expectSettled(
  s: TBridgeSetup,
  calls: Array<{ status: number; json: { reason?: string }; retryAfter: string | null }>,
) {
  const ok = calls.filter((c) => c.status === 200);
  const denied = calls.filter((c) => c.status === 429);
  expect(ok).toHaveLength(FITS);
  expect(denied).toHaveLength(calls.length - FITS);
  expect(denied.every((c) => c.json.reason === "usage_denied" && /^\d+$/.test(c.retryAfter ?? ""))).toBe(true);

  const row = await db().budget.findUniqueOrThrow({ where: { id: budgetId(s.ws, "ai_tokens", utcMonth()) } });
  expect(row).toMatchObject({ limitUnits: LIMIT, usedUnits: LIMIT, reservedUnits: 0 });
  expect(await db().budgetReservation.count({ where: { budgetId: row.id } })).toBe(0);
  const byOutcome = await db().capabilityInvocation.groupBy({
    by: ["outcome", "reason"],
    where: { workspaceId: s.ws },
    _count: true,
  });
  expect(byOutcome.map((g) => [g.outcome, g.reason, g._count]).sort()).toEqual(
    [
      ["completed", null, FITS],
      ["denied", "usage_denied", calls.length - FITS],
    ].sort(),
  );
}

describe("ai_tokens budget under 200 simultaneous calls", () => {
  it(`in one process: exactly ${FITS} fit, the rest are usage_denied, and the budget is never overspent`, async () => {
    const s = await aiWorkspace();
    const before = provider.authorizedCalls();
    const sampler = sampleBudget(budgetId(s.ws, "ai_tokens", utcMonth()));
    const calls = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const r = await bridge(s.token, "ai.generate", "generate", body);
        return { status: r.status, json: r.json, retryAfter: r.headers.get("retry-after") };
      }),
    );
    const sampled = await sampler.stop();
    expect(
      calls.filter((c) => c.status !== 200 && c.status !== 429),
      JSON.stringify(calls.find((c) => c.status !== 200 && c.status !== 429)),
    ).toEqual([]);
    await expectSettled(s, calls);
    expect(provider.authorizedCalls() - before).toBe(FITS);
    expect(sampled.samples).toBeGreaterThan(3);
    expect(sampled.overLimit).toEqual([]);
    expect(sampled.maxCommitted).toBeLessThanOrEqual(LIMIT);
  });
});

describe.skipIf(testDbMode() !== "postgres")("ai_tokens budget across two server processes on one database", () => {
  const servers: TServer[] = [];
  // A small pool per process: the contention under test is on the budget row, not on connections
  // (and the PostgreSQL server's connection slots are shared with every other test file running).
  const start = async () => servers.push(await startServer({ DATABASE_POOL_SIZE: "5" }));

  beforeAll(async () => {
    await Promise.all([start(), start()]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map(stopServer));
  });

  it(`100 calls to each process: exactly ${FITS} fit in total, and the budget is never overspent`, async () => {
    const s = await aiWorkspace();
    // Both processes serve the Bridge with this token.
    for (const srv of servers) {
      const res = await checkedFetch(`http://127.0.0.1:${srv.port}/v1/capabilities/ai.generate/generate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status, srv.output.join("")).toBe(401);
      expect(res.headers.get("capstan-overhead-ms")).toMatch(/^\d+(\.\d+)?$/);
    }
    const before = provider.authorizedCalls();
    const sampler = sampleBudget(budgetId(s.ws, "ai_tokens", utcMonth()));
    const calls = await Promise.all(
      servers.flatMap((srv) =>
        Array.from({ length: 100 }, async () => {
          const res = await checkedFetch(`http://127.0.0.1:${srv.port}/v1/capabilities/ai.generate/generate`, {
            method: "POST",
            headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          });
          const text = await res.text();
          return {
            status: res.status,
            json: JSON.parse(text) as { reason?: string },
            retryAfter: res.headers.get("retry-after"),
            port: srv.port,
          };
        }),
      ),
    );
    const sampled = await sampler.stop();
    const unexpected = calls.filter((c) => c.status !== 200 && c.status !== 429);
    expect(
      unexpected,
      `${JSON.stringify(unexpected.slice(0, 3))}\n${servers.map((x) => x.output.join("")).join("\n")}`,
    ).toEqual([]);
    await expectSettled(s, calls);
    expect(provider.authorizedCalls() - before).toBe(FITS);
    // Both processes took part in the successes or the denials.
    for (const srv of servers) expect(calls.filter((c) => c.port === srv.port)).toHaveLength(100);
    expect(sampled.samples).toBeGreaterThan(3);
    expect(sampled.overLimit).toEqual([]);
    expect(sampled.maxCommitted).toBeLessThanOrEqual(LIMIT);
  });
});

describe("reservation sweeper", () => {
  it("charges the reservation of a call that died at its reserved amount (never free), and only expired ones", async () => {
    const s = await aiWorkspace();
    const id = budgetId(s.ws, "ai_tokens", utcMonth());
    const dead = await reserveBudget(s.ws, "ai_tokens", LIMIT);
    expect(dead).not.toBeNull();
    const live = await reserveBudget(s.ws, "ai_tokens", 0);
    expect(live).not.toBeNull();
    expect(await db().budget.findUniqueOrThrow({ where: { id } })).toMatchObject({
      reservedUnits: LIMIT,
      usedUnits: 0,
    });

    // The whole budget is held by the dead call: a real call is refused.
    const refused = await bridge(s.token, "ai.generate", "generate", body);
    expect(refused.status).toBe(429);
    expect(refused.json.reason).toBe("usage_denied");
    expect(await reserveBudget(s.ws, "ai_tokens", 1)).toBeNull();

    // Not expired yet (and its process, this one, is alive): the sweeper leaves it alone.
    expect(await sweepExpiredReservations()).toBe(0);
    expect((await db().budget.findUniqueOrThrow({ where: { id } })).reservedUnits).toBe(LIMIT);

    // Expired: the call may have reached its provider, so it is charged what it reserved.
    await db()
      .$executeRaw`UPDATE budget_reservations SET expires_at = now() - interval '1 second' WHERE id = ${dead!.id}`;
    expect(await sweepExpiredReservations()).toBe(1);
    expect(await db().budget.findUniqueOrThrow({ where: { id } })).toMatchObject({
      reservedUnits: 0,
      usedUnits: LIMIT,
    });
    expect(await db().budgetReservation.findUnique({ where: { id: dead!.id } })).toBeNull();
    expect(await db().budgetReservation.findUnique({ where: { id: live!.id } })).not.toBeNull();
    // Sweeping again finds nothing; a late settle of the swept reservation changes nothing (no second charge).
    expect(await sweepExpiredReservations()).toBe(0);
    await settleReservation(dead!.id, LIMIT);
    expect(await db().budget.findUniqueOrThrow({ where: { id } })).toMatchObject({
      reservedUnits: 0,
      usedUnits: LIMIT,
    });

    // Charged means spent: the next call is refused until the owner raises the limit.
    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(429);
    const put = await api("PUT", `/v1/workspaces/${s.ws}/budgets/ai_tokens`, {
      token: s.owner.token,
      body: { limit_units: 2 * LIMIT },
    });
    expect(put.status, put.text).toBe(200);
    const ok = await bridge(s.token, "ai.generate", "generate", body);
    expect(ok.status, ok.text).toBe(200);
    await settleReservation(live!.id, 0);
    await returnLeases(); // the call drew from a lease: what it did not use goes back to the budget
    expect(await db().budget.findUniqueOrThrow({ where: { id } })).toMatchObject({
      reservedUnits: 0,
      usedUnits: LIMIT + RESERVATION,
    });
  });

  it("recovery charges at once the reservations of a process whose instance lock is free, and leaves a live one's alone", async () => {
    const s = await aiWorkspace();
    const id = budgetId(s.ws, "ai_tokens", utcMonth());
    const gone = await reserveBudget(s.ws, "ai_tokens", 7, { invocationId: "cap_gone" });
    const alive = await reserveBudget(s.ws, "ai_tokens", 11, { invocationId: "cap_alive" });
    const suffix = randomBytes(6).toString("hex");
    await db().$executeRaw`UPDATE budget_reservations SET instance_id = ${`ins_gone_${suffix}`} WHERE id = ${gone!.id}`;
    await db()
      .$executeRaw`UPDATE budget_reservations SET instance_id = ${`ins_alive_${suffix}`} WHERE id = ${alive!.id}`;
    // Another live process: it holds its instance lock on a connection of its own.
    const other = testDbMode() === "postgres" ? new pg.Client({ connectionString: process.env.DATABASE_URL }) : null;
    await other?.connect();
    try {
      await other?.query("SELECT pg_advisory_lock(hashtext('capstan.instance'), hashtext($1))", [
        `ins_alive_${suffix}`,
      ]);
      expect(await recoverReservations()).toBe(other ? 1 : 2);
      expect(await db().budgetReservation.findUnique({ where: { id: gone!.id } })).toBeNull();
      expect(await db().budget.findUniqueOrThrow({ where: { id } })).toMatchObject({
        usedUnits: other ? 7 : 18,
        reservedUnits: other ? 11 : 0,
      });
      if (other) {
        // Once that process is gone too, its reservation is charged as well; nothing is charged twice.
        await other.end();
        expect(await recoverReservations()).toBe(1);
        expect(await recoverReservations()).toBe(0);
        expect(await db().budget.findUniqueOrThrow({ where: { id } })).toMatchObject({
          usedUnits: 18,
          reservedUnits: 0,
        });
      }
    } finally {
      await other?.end().catch(() => undefined);
    }
  });
});
