import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureMonthBudgets } from "@/server/domain/usage/budget.service";
import { journalDir, LEASE_IDLE_MS } from "@/server/domain/usage/leases.service";
import { db } from "@/server/platform/db/client";
import { LocalWal } from "@/server/platform/wal";
import { aiCapability, bootBridgeApp, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { checkedFetch } from "./support/openapi-responses";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { startServer, type TServer } from "./support/spawn-server";

/**
 * Nothing acknowledged is lost (issue #15, docs/decisions.md "Durability").
 * A real server process (test/support/app-server.ts, batched records: the
 * production default) serves concurrent Bridge calls (ai.generate against a
 * real OpenAI-compatible HTTP server that reports less usage than reserved,
 * and data.kv set) and is killed with SIGKILL at a random moment, several
 * rounds, then restarted. Every 2xx the client saw has its invocation record
 * (with the usage it answered), its two events and its charge; the calls in
 * flight at the kill are charged their reserved amount exactly once by the
 * restarted process's recovery (a per-call reservation's, or a lease draw's
 * from the dead process's local journal; the rest of its leases released);
 * nothing stays reserved.
 * Then SIGTERM under load: no in-flight request is lost, /readyz is 503 from
 * the signal on, new connections are refused once draining, exit 0 in bound.
 */

const PROVIDER_TOKENS = 3; // what the provider reports; each ai.generate reserves its max_tokens (> 3)
const LOAD_CONCURRENCY = 12;
const ROUNDS = 3;
const GRACE_MS = 4_000;
const DELAY_MS = 600;

let provider: TOpenAiServer;
let s: TBridgeSetup;
const serverEnv = {
  SOURCE_ALLOW_LOCAL: "1",
  CAPSTAN_PROVIDER_ALLOW_PRIVATE: "1",
  CAPSTAN_BRIDGE_RECORDS: "batched",
  CAPSTAN_BRIDGE_RATE_PER_SEC: "100000",
  CAPSTAN_BRIDGE_BURST: "100000",
  CAPSTAN_SHUTDOWN_GRACE_MS: String(GRACE_MS),
  CAPSTAN_SHUTDOWN_DELAY_MS: String(DELAY_MS),
};

type TAck = { id: string; capability: "ai.generate" | "data.kv"; units: number };
type TOrphan = {
  id: string;
  budget_id: string;
  binding_id: string | null;
  units: number;
  invocation_id: string | null;
};

let first: Promise<TServer> | undefined;

beforeAll(async () => {
  // In-process boot first (signing key, ws_platform); the first server process starts while the fixtures are made.
  await bootBridgeApp();
  first = startServer(serverEnv);
  first.catch(() => undefined);
  provider = await startOpenAiServer(`sk-${randomBytes(8).toString("hex")}`, { tokens: PROVIDER_TOKENS, delayMs: 2 });
  s = await setupBridge({
    capabilities: [
      kvCapability({ scope: { max_keys: 1_000 } }),
      aiCapability({ scope: { models: ["text"], max_tokens_per_call: 64 } }),
    ],
    providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
  });
}, 120_000);

afterAll(async () => {
  await provider?.close();
  // A server left running by a failed test.
  for (const srv of [await first?.catch(() => undefined), graceful]) {
    if (srv && srv.child.exitCode === null && srv.child.signalCode === null) srv.child.kill("SIGKILL");
  }
});

let seq = 0;
function nextCall(): { capability: "ai.generate" | "data.kv"; action: string; body: Record<string, unknown> } {
  const n = ++seq;
  if (n % 2)
    return {
      capability: "ai.generate",
      action: "generate",
      body: { model_kind: "text", input: { text: `crash ${n}` }, max_tokens: 8 + (n % 50) },
    };
  return { capability: "data.kv", action: "set", body: { key: `/app/crash/${n % 200}`, value: "x".repeat(n % 300) } };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(port: number, c: ReturnType<typeof nextCall>): Promise<{ status: number; json: any }> {
  const res = await checkedFetch(`http://127.0.0.1:${port}/v1/capabilities/${c.capability}/${c.action}`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
    body: JSON.stringify(c.body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** Concurrent loops of calls until `stop` says so; every 2xx lands in `acked`. Transport errors (the kill) end a loop. */
function load(
  port: number,
  acked: TAck[],
  other: number[],
): { stop: () => void; done: Promise<void>; onAck: (fn: () => void) => void } {
  let stopped = false;
  let hook: (() => void) | null = null;
  const loops = Array.from({ length: LOAD_CONCURRENCY }, async () => {
    while (!stopped) {
      const c = nextCall();
      let r: { status: number; json: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
      try {
        r = await call(port, c);
      } catch {
        return; // the connection died with the process: never acknowledged
      }
      if (r.status === 200) {
        acked.push({ id: r.json.capability_invocation_id, capability: c.capability, units: r.json.usage.units });
        const fn = hook;
        hook = null;
        fn?.();
      } else other.push(r.status);
    }
  });
  return {
    stop: () => void (stopped = true),
    done: Promise.all(loops).then(() => undefined),
    onAck: (fn) => void (hook = fn),
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function exited(server: TServer): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    return Promise.resolve({ code: server.child.exitCode, signal: server.child.signalCode });
  }
  return new Promise((resolve) => server.child.once("exit", (code, signal) => resolve({ code, signal })));
}

async function expectRecorded(acked: TAck[]): Promise<void> {
  const ids = acked.map((a) => a.id);
  const rows = await db().capabilityInvocation.findMany({
    where: { id: { in: ids } },
    select: { id: true, outcome: true, usageUnits: true },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !byId.has(id));
  expect(missing, `${missing.length} of ${ids.length} acknowledged calls have no record`).toEqual([]);
  for (const a of acked) expect(byId.get(a.id), a.id).toMatchObject({ outcome: "completed", usageUnits: a.units });
  const events = await db().outboxEvent.groupBy({
    by: ["subject"],
    where: { subject: { in: ids } },
    _count: { _all: true },
  });
  const counts = new Map(events.map((e) => [e.subject, e._count._all]));
  const short = ids.filter((id) => counts.get(id) !== 2);
  expect(short, "acknowledged calls without both capability.invocation_requested and _resulted").toEqual([]);
}

describe("kill -9 under load", () => {
  it("every acknowledged call keeps its record, events and charge; calls in flight are charged their reservation once", async () => {
    const acked: TAck[] = [];
    const orphans: TOrphan[] = [];
    const statuses: number[] = [];
    const t0 = Date.now();
    let server = await (first ?? startServer(serverEnv));
    first = undefined;
    for (let round = 0; round < ROUNDS; round++) {
      // Recovery ran before the (re)started process listened: nothing of a dead process is still reserved.
      expect(await db().budgetReservation.count(), server.output.join("")).toBe(0);
      const before = acked.length;
      const l = load(server.port, acked, statuses);
      // A random moment once the load is under way (some calls acknowledged), right as the
      // client receives an acknowledgment: the worst moment for a record still being written.
      await until("acknowledged calls", () => acked.length >= before + 6);
      const extraMs = Math.floor(Math.random() * 250);
      await new Promise((r) => setTimeout(r, extraMs));
      await new Promise<void>((resolve) =>
        l.onAck(() => {
          server.child.kill("SIGKILL");
          resolve();
        }),
      );
      expect((await exited(server)).signal).toBe("SIGKILL");
      l.stop();
      await l.done;

      // The dead process's in-flight journal: per-call reservations of calls that never committed, and
      // the draws from its budget leases (rsl_ rows) journaled in its local journal whose record never committed.
      const rows = await db().$queryRaw<
        TOrphan[]
      >`SELECT id, budget_id, binding_id, units, invocation_id FROM budget_reservations`;
      const perCall = rows.filter((o) => !o.id.startsWith("rsl_"));
      const leases = new Map(rows.filter((o) => o.id.startsWith("rsl_")).map((o) => [o.id, o]));
      const draws = LocalWal.names(journalDir())
        .flatMap((name) => LocalWal.read(journalDir(), name))
        .map((d) => ({ lease: String(d.l), invocation: String(d.i), units: Number(d.u) }));
      const recorded = new Set(
        (
          await db().capabilityInvocation.findMany({
            where: { id: { in: draws.map((d) => d.invocation) } },
            select: { id: true },
          })
        ).map((r) => r.id),
      );
      const unrecorded = draws.filter((d) => !recorded.has(d.invocation));
      for (const d of unrecorded)
        expect(leases.has(d.lease), `the lease ${d.lease} of an unrecorded draw is still held`).toBe(true);
      const left: TOrphan[] = [
        ...perCall,
        ...unrecorded.map((d) => ({
          ...leases.get(d.lease)!,
          id: d.lease,
          units: d.units,
          invocation_id: d.invocation,
        })),
      ];
      const committed = await db().capabilityInvocation.count({
        where: { id: { in: perCall.map((o) => o.invocation_id ?? "") } },
      });
      expect(committed, "a reservation outlived the commit of its call's record").toBe(0);
      const ackedIds = new Set(acked.map((a) => a.id));
      expect(
        left.filter((o) => ackedIds.has(o.invocation_id ?? "")),
        "an acknowledged call was still reserved",
      ).toEqual([]);
      orphans.push(...left);
      process.stderr.write(
        `[durability] round ${round}: +${acked.length - before} acked, ${left.length} in flight at the kill (${unrecorded.length} lease draws, ${leases.size} leases) (+${extraMs} ms) t=${Date.now() - t0}\n`,
      );
      await expectRecorded(acked.slice(before));
      server = await startServer(serverEnv);
    }
    expect(
      statuses.filter((st) => st >= 500),
      "5xx answers under load",
    ).toEqual([]);
    await expectRecorded(acked);
    // The last process is alive and idle: its budget leases go back within LEASE_IDLE_MS (+ its 250 ms timer).
    await until(
      "the live process's leases returned",
      async () => (await db().budgetReservation.count()) === 0,
      LEASE_IDLE_MS + 5_000,
    );
    // Its journal holds nothing a successor would charge: every draw of it was recorded.

    // Charged exactly once: each budget's used units are the usage of its recorded calls plus the reserved
    // amount of the calls the kills interrupted (their reservations, recovered); nothing is still reserved.
    const records = await db().capabilityInvocation.findMany({
      where: { workspaceId: s.ws },
      select: { capability: true, usageUnits: true, bindingId: true },
    });
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const budgets = await db().budget.findMany({ where: { workspaceId: s.ws } });
    for (const [category, capability] of [
      ["ai_tokens", "ai.generate"],
      ["storage", "data.kv"],
    ] as const) {
      const b = budgets.find((x) => x.usageCategory === category)!;
      const expected =
        sum(records.filter((r) => r.capability === capability).map((r) => r.usageUnits)) +
        sum(orphans.filter((o) => o.budget_id === b.id).map((o) => o.units));
      expect({ category, used: b.usedUnits, reserved: b.reservedUnits }).toEqual({
        category,
        used: expected,
        reserved: 0,
      });
    }
    const bindingId = s.providers.openai!.bindingId;
    const binding = await db().providerBinding.findUniqueOrThrow({ where: { id: bindingId } });
    const bindingExpected =
      sum(records.filter((r) => r.bindingId === bindingId).map((r) => r.usageUnits)) +
      sum(orphans.filter((o) => o.binding_id === bindingId).map((o) => o.units));
    expect({ used: binding.usedUnits, reserved: binding.reservedUnits }).toEqual({
      used: bindingExpected,
      reserved: 0,
    });
    // The provider reported less than reserved: recorded calls were charged what it reported, not their reservation.
    expect(acked.filter((a) => a.capability === "ai.generate").every((a) => a.units === PROVIDER_TOKENS)).toBe(true);

    // SIGTERM under load (next test) starts from this process.
    graceful = server;
  }, 180_000);
});

let graceful: TServer | undefined;

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, "127.0.0.1");
    sock.once("connect", () => {
      sock.destroy();
      resolve(true);
    });
    sock.once("error", () => resolve(false));
  });
}

describe("SIGTERM under load", () => {
  it("answers every request in flight, turns /readyz 503 at once, stops accepting, and exits 0 within the bound", async () => {
    const server = graceful ?? (await (first ?? startServer(serverEnv)));
    first = undefined;
    expect((await checkedFetch(`http://127.0.0.1:${server.port}/readyz`)).status).toBe(200);
    // Calls in flight: the provider holds each ai.generate for 1.5 s; the data.kv ones run beside them.
    provider.behave({ mode: "ok", tokens: PROVIDER_TOKENS, delayMs: 1_500 });
    const seen = provider.calls.length;
    const calls = Array.from({ length: 16 }, () => nextCall());
    const pending = calls.map((c) =>
      call(server.port, c).then(
        (r) => ({ ...r, c }),
        (err: unknown) => ({ status: 0, json: String(err), c }),
      ),
    );
    const aiCount = calls.filter((c) => c.capability === "ai.generate").length;
    await until("every ai.generate at the provider", () => provider.calls.length >= seen + aiCount);

    const signalledAt = Date.now();
    const exit = exited(server);
    server.child.kill("SIGTERM");
    // /readyz is 503 at once (during the pre-stop delay the server still accepts), then connections are refused.
    await until(
      "/readyz 503",
      async () => (await checkedFetch(`http://127.0.0.1:${server.port}/readyz`).catch(() => null))?.status === 503,
      5_000,
    );
    await until("new connections refused", async () => !(await connects(server.port)), 10_000);

    const answers = await Promise.all(pending);
    expect(
      answers.map((a) => a.status),
      JSON.stringify(answers.filter((a) => a.status !== 200)),
    ).toEqual(calls.map(() => 200));
    const { code, signal } = await exit;
    const tookMs = Date.now() - signalledAt;
    expect({ code, signal }, server.output.join("")).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(DELAY_MS + GRACE_MS + 5_000);
    await expectRecorded(
      answers.map((a) => ({
        id: a.json.capability_invocation_id,
        capability: a.c.capability,
        units: a.json.usage.units,
      })),
    );
    // Everything settled before exit: nothing for a successor to recover (leases returned, journal removed).
    expect(await db().budgetReservation.count()).toBe(0);
    expect(LocalWal.names(journalDir())).toEqual([]);
    provider.behave({ mode: "ok", tokens: PROVIDER_TOKENS, delayMs: 2 });
  }, 60_000);
});

describe("npm run worker", () => {
  it("charges a dead process's reservations at start, and on SIGTERM stops its loops and exits 0 within the bound", async () => {
    // A reservation journaled by a process that is gone (nobody holds its instance lock).
    const budget = (await ensureMonthBudgets(s.ws)).find((b) => b.usageCategory === "storage")!;
    const rsv = `rsv_dead_${randomBytes(6).toString("hex")}`;
    await db().$executeRaw`UPDATE budgets SET reserved_units = reserved_units + 5 WHERE id = ${budget.id}`;
    await db()
      .$executeRaw`INSERT INTO budget_reservations (id, budget_id, units, expires_at, instance_id, invocation_id)
      VALUES (${rsv}, ${budget.id}, 5, now() + interval '5 minutes', ${`ins_gone_${randomBytes(6).toString("hex")}`}, 'cap_gone')`;

    const root = path.resolve(import.meta.dirname, "..");
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "src", "server", "workers", "main.ts")], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: "info", CAPSTAN_SHUTDOWN_GRACE_MS: String(GRACE_MS) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: string[] = [];
    child.stdout.on("data", (c: Buffer) => output.push(c.toString()));
    child.stderr.on("data", (c: Buffer) => output.push(c.toString()));
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    try {
      await until("the worker process started", () => output.join("").includes("worker.process_started"), 60_000);
      expect(await db().budgetReservation.findUnique({ where: { id: rsv } })).toBeNull();
      const after = await db().budget.findUniqueOrThrow({ where: { id: budget.id } });
      expect(after.usedUnits - budget.usedUnits).toBe(5);
      expect(after.reservedUnits).toBe(budget.reservedUnits);

      const signalledAt = Date.now();
      child.kill("SIGTERM");
      expect(await exit, output.join("")).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalledAt).toBeLessThan(GRACE_MS + 5_000);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  }, 90_000);
});
