import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budgetId } from "@/server/domain/usage/budget.service";
import {
  journalDir,
  LEASE_CALLS,
  LEASE_IDLE_MS,
  LEASE_ORPHAN_MS,
  recoverLeases,
  returnLeases,
} from "@/server/domain/usage/leases.service";
import { reserveUsage } from "@/server/domain/usage/reservations.service";
import { db } from "@/server/platform/db/client";
import { LocalWal } from "@/server/platform/wal";
import { utcMonth } from "@/server/platform/time";
import { api, makeUser, type TTestUser } from "./support/api";
import { aiCapability, bootBridgeApp, bridge, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * Budget leases (docs/decisions.md "One commit per priced call"): calls draw
 * their reservation from a lease held by the process and journaled locally,
 * so no per-call reservation row (and commit) exists; leases go back when
 * idle; near a limit the per-call reservation keeps admission exact; a dead
 * process's journaled draws are charged once and the rest of its leases
 * released. The limit itself under 200 concurrent calls (one and two
 * processes) and kill -9 are in bridge-budget and durability.
 */
const ASKED = 20;
let owner: TTestUser;
let provider: TOpenAiServer;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  provider = await startOpenAiServer(`sk-lease-${randomBytes(12).toString("hex")}`, {
    tokens: "max_tokens",
    delayMs: 150,
  });
});

afterAll(async () => {
  await returnLeases();
  await provider?.close();
});

async function aiWorkspace(limit: number | null): Promise<TBridgeSetup> {
  const s = await setupBridge({
    owner,
    capabilities: [aiCapability({ scope: { models: ["text"], max_tokens_per_call: 100 } })],
    providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
  });
  const put = await api("PUT", `/v1/workspaces/${s.ws}/budgets/ai_tokens`, {
    token: owner.token,
    body: { limit_units: limit },
  });
  expect(put.status, put.text).toBe(200);
  return s;
}

const body = { model_kind: "text", input: { text: "lease me" }, max_tokens: ASKED };
type TRow = { id: string; units: number };
const rows = (ws: string) => db().$queryRaw<TRow[]>`
  SELECT r.id, r.units FROM budget_reservations r JOIN budgets b ON b.id = r.budget_id WHERE b.workspace_id = ${ws}`;

/** The workspace's reservations once there are at least `n` (or whatever there is after 10 s). */
async function rowsOnce(ws: string, n: number): Promise<TRow[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const seen = await rows(ws);
    if (seen.length >= n || Date.now() >= deadline) return seen;
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("budget leases", () => {
  it("concurrent calls draw from one lease: no per-call reservation row while they run, and the lease settles to exactly what they used", async () => {
    const s = await aiWorkspace(100_000);
    const calls = Promise.all(Array.from({ length: 8 }, () => bridge(s.token, "ai.generate", "generate", body)));
    // While the provider holds them (150 ms), the only reservation is the lease: one row for all.
    const seen = await rowsOnce(s.ws, 1);
    expect(seen.map((r) => r.id.slice(0, 4))).toEqual(["rsl_"]);
    expect(seen[0]!.units).toBe(ASKED * LEASE_CALLS);
    const results = await calls;
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    // One snapshot (the budget and its reservations read together): the lease goes back LEASE_IDLE_MS after the
    // last call finished, so it must not fall between two reads on a loaded host.
    const [after] = await db().$queryRaw<{ used: number; reserved: number; leases: TRow[] | null }[]>`
      SELECT b.used_units AS used, b.reserved_units AS reserved,
             (SELECT json_agg(json_build_object('id', r.id, 'units', r.units)) FROM budget_reservations r
               WHERE r.budget_id = b.id) AS leases
        FROM budgets b WHERE b.id = ${budgetId(s.ws, "ai_tokens", utcMonth())}`;
    // Used what the calls used; still reserved: only the lease's undrawn part.
    expect(after).toEqual({
      used: 8 * ASKED,
      reserved: (LEASE_CALLS - 8) * ASKED,
      leases: [{ id: seen[0]!.id, units: (LEASE_CALLS - 8) * ASKED }],
    });
  });

  it("takes the next lease (a spare) once the active one is half drawn, and keeps drawing the active one", async () => {
    const s = await aiWorkspace(100_000);
    // The 10th draw finds fewer than half of the lease's calls left and asks for the spare (once).
    const results = await Promise.all(
      Array.from({ length: 12 }, () => bridge(s.token, "ai.generate", "generate", body)),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const seen = await rowsOnce(s.ws, 2);
    // Two leases: the active one with what the 12 calls left, the untouched spare; no per-call reservation.
    expect(seen.map((r) => [r.id.slice(0, 4), r.units]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      ["rsl_", (LEASE_CALLS - 12) * ASKED],
      ["rsl_", LEASE_CALLS * ASKED],
    ]);
    const budget = await db().budget.findUniqueOrThrow({ where: { id: budgetId(s.ws, "ai_tokens", utcMonth()) } });
    expect({ used: budget.usedUnits, reserved: budget.reservedUnits }).toEqual({
      used: 12 * ASKED,
      reserved: (2 * LEASE_CALLS - 12) * ASKED,
    });
    // Both go back at a graceful stop (and when idle): nothing stays reserved.
    await returnLeases();
    expect(await rows(s.ws)).toEqual([]);
    const after = await db().budget.findUniqueOrThrow({ where: { id: budgetId(s.ws, "ai_tokens", utcMonth()) } });
    expect({ used: after.usedUnits, reserved: after.reservedUnits }).toEqual({ used: 12 * ASKED, reserved: 0 });
  });

  it("an idle lease goes back to its budget within LEASE_IDLE_MS", async () => {
    const s = await aiWorkspace(100_000);
    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(200);
    const id = budgetId(s.ws, "ai_tokens", utcMonth());
    const done = Date.now();
    let reserved = -1;
    while (Date.now() - done < LEASE_IDLE_MS + 3_000) {
      reserved = (await db().budget.findUniqueOrThrow({ where: { id } })).reservedUnits;
      if (reserved === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(reserved).toBe(0);
    expect(await rows(s.ws)).toEqual([]);
    expect((await db().budget.findUniqueOrThrow({ where: { id } })).usedUnits).toBe(ASKED);
  });

  it("a call slower than LEASE_IDLE_MS keeps its lease: the next call draws from the same one", async () => {
    const s = await aiWorkspace(100_000);
    provider.behave({ mode: "ok", tokens: "max_tokens", delayMs: LEASE_IDLE_MS + 700 });
    let seen: TRow[] = [];
    try {
      const slow = bridge(s.token, "ai.generate", "generate", body);
      seen = await rowsOnce(s.ws, 1);
      expect(seen).toHaveLength(1);
      expect((await slow).status).toBe(200);
    } finally {
      provider.behave({ mode: "ok", tokens: "max_tokens", delayMs: 150 });
    }
    // The same lease, drawn twice. (When the idle clock counted from the draw, the lease was retired under the slow
    // call, went back as it finished, and this call took a new one of LEASE_CALLS - 1 calls.)
    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(200);
    const leases = await rows(s.ws);
    expect(leases).toEqual([{ id: seen[0]!.id, units: (LEASE_CALLS - 2) * ASKED }]);
  });

  it("near the limit (headroom under a lease) calls fall back to exact per-call reservations", async () => {
    // Room for 3 calls: a lease of LEASE_CALLS calls never fits.
    const s = await aiWorkspace(3 * ASKED);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await bridge(s.token, "ai.generate", "generate", body)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const budget = await db().budget.findUniqueOrThrow({ where: { id: budgetId(s.ws, "ai_tokens", utcMonth()) } });
    expect({ used: budget.usedUnits, reserved: budget.reservedUnits }).toEqual({ used: 3 * ASKED, reserved: 0 });
  });

  it("recovery charges a dead process's journaled draws once, releases the rest of its leases, and removes its journal", async () => {
    const s = await aiWorkspace(100_000);
    const id = budgetId(s.ws, "ai_tokens", utcMonth());
    const lease = await reserveUsage(s.ws, "ai_tokens", 10 * ASKED, { lease: true });
    if (!lease.ok) throw new Error("lease refused");
    const dead = `ins_dead_${randomBytes(6).toString("hex")}`;
    await db().$executeRaw`UPDATE budget_reservations SET instance_id = ${dead} WHERE id = ${lease.reservation.id}`;
    // Its journal: two draws whose records never committed (a torn last line is ignored).
    mkdirSync(journalDir(), { recursive: true });
    const draw = (i: string) => JSON.stringify({ l: lease.reservation.id, i, u: ASKED, h: "0" });
    writeFileSync(path.join(journalDir(), `${dead}.0.jsonl`), `${draw("cap_x1")}\n${draw("cap_x2")}\n{"l":"rsl_torn`);
    expect(await recoverLeases()).toBe(2);
    const budget = await db().budget.findUniqueOrThrow({ where: { id } });
    expect({ used: budget.usedUnits, reserved: budget.reservedUnits }).toEqual({ used: 2 * ASKED, reserved: 0 });
    expect(await rows(s.ws)).toEqual([]);
    expect(LocalWal.names(journalDir())).not.toContain(dead);
    // Nothing charged twice.
    expect(await recoverLeases()).toBe(0);
    expect((await db().budget.findUniqueOrThrow({ where: { id } })).usedUnits).toBe(2 * ASKED);
  });

  it("a dead process's leases with no journal here are released (never charged) after LEASE_ORPHAN_MS, younger ones kept", async () => {
    const s = await aiWorkspace(100_000);
    const id = budgetId(s.ws, "ai_tokens", utcMonth());
    const old = await reserveUsage(s.ws, "ai_tokens", 5 * ASKED, { lease: true });
    const young = await reserveUsage(s.ws, "ai_tokens", 3 * ASKED, { lease: true });
    if (!old.ok || !young.ok) throw new Error("lease refused");
    const elsewhere = `ins_elsewhere_${randomBytes(6).toString("hex")}`;
    await db()
      .$executeRaw`UPDATE budget_reservations SET instance_id = ${elsewhere} WHERE id IN (${old.reservation.id}, ${young.reservation.id})`;
    await db()
      .$executeRaw`UPDATE budget_reservations SET created_at = now() - make_interval(secs => ${LEASE_ORPHAN_MS / 1000 + 60}) WHERE id = ${old.reservation.id}`;
    expect(await recoverLeases()).toBe(0);
    expect((await rows(s.ws)).map((r) => r.id)).toEqual([young.reservation.id]);
    const budget = await db().budget.findUniqueOrThrow({ where: { id } });
    expect({ used: budget.usedUnits, reserved: budget.reservedUnits }).toEqual({ used: 0, reserved: 3 * ASKED });
  });
});
