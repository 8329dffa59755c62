import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkers, stopWorkers } from "@/server/workers/run";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Webhook delivery with real worker processes (`npm run worker` =
 * `tsx src/server/workers/main.ts`) sharing this file's database, master key
 * and data directory:
 *  (a) two worker processes, 30 events: each delivered exactly once;
 *  (b) a worker SIGKILLed while its request is in flight: after the lease
 *      expires another process delivers the event (nothing lost);
 *  (c) the in-process mode (startWorkers in this process) delivers too;
 *  (d) a worker stopped with SIGTERM finishes the request in flight first.
 * Needs PostgreSQL (embedded PGlite is single-process).
 */
const POLL_MS = 50;
const TIMEOUT_MS = 1000;
const LEASE_MS = TIMEOUT_MS * 2 + 1000;
process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
process.env.CAPSTAN_WEBHOOK_SCHEDULE = "0,0.3,0.3";
process.env.CAPSTAN_WEBHOOK_TIMEOUT_MS = String(TIMEOUT_MS);
process.env.CAPSTAN_WORKER_POLL_MS = String(POLL_MS);
resetEnvCache();

const ROOT = path.resolve(__dirname, "..");
const START_TIMEOUT_MS = 60_000;
const postgres = !!process.env.DATABASE_URL;

type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(
  what: string,
  done: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------------------
// Receiver: verifies Standard Webhooks signatures, counts by webhook-id
// ---------------------------------------------------------------------------

type TAnswer = number | "hold";
type TReceived = { webhookId: string; at: number; status: TAnswer; verified: boolean };
type TReceiver = {
  url: string;
  secret: string | undefined;
  respond: (n: number) => TAnswer;
  requests: TReceived[];
  accepted: Map<string, number>;
  held: http.ServerResponse[];
  /** Awaited before answering a correctly signed request (a slow endpoint). */
  beforeAnswer: () => Promise<void>;
  close: () => Promise<void>;
};
const receivers: TReceiver[] = [];

function verify(secret: string, id: string, ts: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest();
  return header.split(" ").some((part) => {
    const [v, sig] = part.split(",", 2);
    const got = Buffer.from(sig ?? "", "base64");
    return v === "v1" && got.length === expected.length && timingSafeEqual(got, expected);
  });
}

async function startReceiver(respond: (n: number) => TAnswer = () => 200): Promise<TReceiver> {
  const r: TReceiver = {
    url: "",
    secret: undefined,
    respond,
    requests: [],
    accepted: new Map(),
    held: [],
    beforeAnswer: async () => undefined,
    close: async () => undefined,
  };
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const id = String(req.headers["webhook-id"] ?? "");
      const ts = String(req.headers["webhook-timestamp"] ?? "");
      const verified = !!r.secret && verify(r.secret, id, ts, body, String(req.headers["webhook-signature"] ?? ""));
      let event: TJson | undefined;
      try {
        event = JSON.parse(body) as TJson;
      } catch {
        event = undefined;
      }
      const ok = verified && event?.specversion === "1.0" && event.id === id;
      const status: TAnswer = ok ? r.respond(++n) : 401;
      r.requests.push({ webhookId: id, at: Date.now(), status, verified });
      if (status === "hold") {
        r.held.push(res);
        return;
      }
      void (ok ? r.beforeAnswer() : Promise.resolve()).then(() => {
        if (status >= 200 && status < 300) r.accepted.set(id, (r.accepted.get(id) ?? 0) + 1);
        res.writeHead(status).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  receivers.push(r);
  return r;
}

// ---------------------------------------------------------------------------
// Worker processes
// ---------------------------------------------------------------------------

type TWorker = { name: string; child: ChildProcess; output: string[]; exited: Promise<void> };
const workers: TWorker[] = [];
let seq = 0;

/**
 * `npx tsx src/server/workers/main.ts` in its own process group (npx and tsx
 * each run a child process; killing the group reaches the real worker). The
 * worker's database connections carry application_name = its name, so
 * readiness and death are visible in pg_stat_activity.
 */
function spawnWorker(extraEnv: Record<string, string> = {}): TWorker {
  const name = `capstan-wh-worker-${process.pid}-${++seq}`;
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.set("application_name", name);
  const child = spawn("npx", ["tsx", "src/server/workers/main.ts"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      CAPSTAN_MASTER_KEY: process.env.CAPSTAN_MASTER_KEY,
      CAPSTAN_DATA_DIR: process.env.CAPSTAN_DATA_DIR,
      CAPSTAN_WORKER_POLL_MS: String(POLL_MS),
      CAPSTAN_WEBHOOK_SCHEDULE: process.env.CAPSTAN_WEBHOOK_SCHEDULE,
      CAPSTAN_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      CAPSTAN_WEBHOOK_ALLOW_PRIVATE: "1",
      LOG_LEVEL: "warn",
      ...extraEnv,
    },
  });
  const w: TWorker = { name, child, output: [], exited: new Promise((resolve) => child.once("exit", () => resolve())) };
  child.stdout.on("data", (c: Buffer) => w.output.push(c.toString()));
  child.stderr.on("data", (c: Buffer) => w.output.push(c.toString()));
  workers.push(w);
  return w;
}

const alive = (w: TWorker) => w.child.exitCode === null && w.child.signalCode === null;

async function connectionsOf(w: TWorker, workingOnly = false): Promise<number> {
  const rows = workingOnly
    ? await db().$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE application_name = ${w.name} AND query ~ '(outbox_events|webhook_deliveries)'`
    : await db().$queryRaw<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${w.name}`;
  return rows[0]!.n;
}

/** Ready = its loops are polling the outbox or the deliveries. */
async function startWorker(extraEnv: Record<string, string> = {}): Promise<TWorker> {
  const w = spawnWorker(extraEnv);
  await waitFor(
    `worker ${w.name} to poll`,
    async () => {
      if (!alive(w))
        throw new Error(`worker exited (${w.child.exitCode ?? w.child.signalCode}):\n${w.output.join("")}`);
      return (await connectionsOf(w, true)) > 0;
    },
    START_TIMEOUT_MS,
    100,
  );
  return w;
}

async function killWorker(w: TWorker, signal: NodeJS.Signals): Promise<void> {
  if (!alive(w)) return;
  try {
    process.kill(-w.child.pid!, signal);
  } catch {
    return;
  }
  const timeout = sleep(10_000).then(() => "timeout" as const);
  if ((await Promise.race([w.exited, timeout])) === "timeout") {
    try {
      process.kill(-w.child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
    await w.exited;
  }
}

// ---------------------------------------------------------------------------

let owner: TTestUser;

async function subscribe(ws: string, receiver: TReceiver, eventTypes: string[]): Promise<string> {
  const r = await api("POST", `/v1/workspaces/${ws}/event-subscriptions`, {
    token: owner.token,
    body: { url: receiver.url, event_types: eventTypes },
  });
  expect(r.status, r.text).toBe(201);
  receiver.secret = r.json.secret;
  return r.json.id;
}

async function setBudget(ws: string, limit: number): Promise<string> {
  const r = await api("PUT", `/v1/workspaces/${ws}/budgets/ai_tokens`, {
    token: owner.token,
    body: { limit_units: limit },
  });
  expect(r.status, r.text).toBe(200);
  return r.headers.get("x-correlation-id")!;
}

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
});

afterAll(async () => {
  stopWorkers();
  await Promise.all(workers.map((w) => killWorker(w, "SIGTERM")));
  for (const r of receivers) for (const res of r.held) res.destroy();
  await Promise.all(receivers.map((r) => r.close()));
});

describe.skipIf(!postgres)("webhook delivery across worker processes", () => {
  it("(a) two worker processes, 30 events: each delivered exactly once, by both processes at once", async () => {
    // 20 requests at most in flight per process, 30 per subscription (docs/decisions.md "Workers that keep up").
    const DELIVER_BATCH = 20;
    const perProcess = { CAPSTAN_WEBHOOK_CONCURRENCY: String(DELIVER_BATCH), CAPSTAN_WEBHOOK_MAX_IN_FLIGHT: "30" };
    const [w1, w2] = await Promise.all([startWorker(perProcess), startWorker(perProcess)]);
    const ws = await makeWorkspace(owner.token, "multiprocess a");
    const receiver = await startReceiver(() => 200);
    const wb = await subscribe(ws.id, receiver, ["budget.changed"]);

    // The endpoint answers nothing until more than DELIVER_BATCH requests are open at
    // once. One process never has more than DELIVER_BATCH in flight
    // (CAPSTAN_WEBHOOK_CONCURRENCY), so reaching 21 proves both processes were
    // delivering concurrently. A fallback answers after 700 ms, below the 1 s request
    // timeout, so a slow start fails the concurrency assertion instead of causing retries.
    // Each event has its own subject: events of one subject go one after the other.
    let inFlight = 0;
    let maxInFlight = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver.beforeAnswer = async () => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      if (inFlight > DELIVER_BATCH) release();
      await Promise.race([released, sleep(700)]);
      inFlight--;
    };

    // 30 events committed at once (one transaction), as a busy workspace would produce them.
    const EVENTS = 30;
    const eventIds = await db().$transaction(async (tx) => {
      const ids: string[] = [];
      for (let i = 1; i <= EVENTS; i++) {
        ids.push(
          await emitEvent(tx, {
            workspaceId: ws.id,
            type: "budget.changed",
            correlationId: newId("evt"),
            subject: `${ws.id}/budget/${i}`,
            data: { workspace_id: ws.id, usage_category: "ai_tokens", limit_units: i },
          }),
        );
      }
      return ids;
    });

    await waitFor("all 30 events at the receiver", () => receiver.accepted.size === EVENTS, 20_000);
    await waitFor(
      "every delivery settled",
      async () =>
        (await db().webhookDelivery.count({ where: { subscriptionId: wb, status: { not: "delivered" } } })) === 0,
    );
    // A grace period of several poll cycles for a duplicate to show up (there must be none).
    await sleep(POLL_MS * 6);

    expect([...receiver.accepted.keys()].sort()).toEqual([...eventIds].sort());
    const dupes = [...receiver.accepted.entries()].filter(([, times]) => times !== 1);
    expect(dupes, "no event delivered twice").toEqual([]);
    expect(receiver.requests).toHaveLength(EVENTS);
    expect(receiver.requests.every((r) => r.verified && r.status === 200)).toBe(true);
    expect(maxInFlight, "requests open at once (> one batch = both processes delivering)").toBeGreaterThan(
      DELIVER_BATCH,
    );
    const deliveries = await db().webhookDelivery.findMany({
      where: { subscriptionId: wb },
      include: { attempts: true },
    });
    expect(deliveries).toHaveLength(EVENTS);
    expect(new Set(deliveries.map((d) => d.eventId)).size, "one delivery per event and subscription").toBe(EVENTS);
    for (const d of deliveries) {
      expect(d.status).toBe("delivered");
      expect(d.attemptCount).toBe(1);
      expect(d.attempts.map((a) => a.statusCode)).toEqual([200]);
    }

    expect(alive(w1) && alive(w2), w1.output.join("") + w2.output.join("")).toBe(true);
    await Promise.all([killWorker(w1, "SIGTERM"), killWorker(w2, "SIGTERM")]);
    for (const w of [w1, w2]) {
      // npx exits by the signal, or 0 once the worker shut down; either way its connections are closed.
      expect(
        w.child.exitCode === 0 || w.child.signalCode === "SIGTERM",
        `${w.child.exitCode} ${w.child.signalCode}\n${w.output.join("")}`,
      ).toBe(true);
      await waitFor(`${w.name} to close its connections`, async () => (await connectionsOf(w)) === 0, 10_000);
    }
  }, 60_000);

  it("(b) a worker killed mid-request loses nothing: after the lease expires another process delivers", async () => {
    const ws = await makeWorkspace(owner.token, "multiprocess b");
    const receiver = await startReceiver((n) => (n === 1 ? "hold" : 200));
    const wb = await subscribe(ws.id, receiver, ["budget.changed"]);

    const first = await startWorker();
    await setBudget(ws.id, 99);
    await waitFor("the first request to reach the receiver", () => receiver.requests.length === 1, 20_000, 5);
    const eventId = receiver.requests[0]!.webhookId;
    // Kill while the request is in flight (the worker would time out after TIMEOUT_MS).
    process.kill(-first.child.pid!, "SIGKILL");
    await first.exited;
    expect(first.child.signalCode).toBe("SIGKILL");
    await waitFor("the killed worker's connections to go", async () => (await connectionsOf(first)) === 0, 10_000);

    const leased = await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: wb } });
    expect(leased.status).toBe("pending");
    expect(leased.eventId).toBe(eventId);
    expect(leased.attemptCount).toBe(1);
    expect(leased.lockedUntil).not.toBeNull();
    const leaseEnd = leased.lockedUntil!.getTime();
    expect(leaseEnd - receiver.requests[0]!.at).toBeGreaterThan(LEASE_MS - 1000);
    expect(
      await db().webhookAttempt.count({ where: { deliveryId: leased.id } }),
      "the killed attempt recorded nothing",
    ).toBe(0);

    const second = await startWorker();
    await waitFor(
      "the event to be delivered by the new worker",
      () => receiver.accepted.has(eventId),
      LEASE_MS + 15_000,
    );
    await waitFor(
      "the delivery to be recorded",
      async () => (await db().webhookDelivery.findUniqueOrThrow({ where: { id: leased.id } })).status === "delivered",
    );

    expect(receiver.requests.map((r) => r.webhookId)).toEqual([eventId, eventId]);
    expect(receiver.requests[1]!.at, "not retried before the lease expired").toBeGreaterThanOrEqual(leaseEnd - 50);
    expect(receiver.accepted.get(eventId)).toBe(1);
    const done = await db().webhookDelivery.findUniqueOrThrow({
      where: { id: leased.id },
      include: { attempts: true },
    });
    expect(done.attemptCount).toBe(2);
    expect(done.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([[2, 200]]);
    expect(await db().webhookDelivery.count({ where: { eventId } })).toBe(1);
    expect(await db().deadLetter.count({ where: { eventId } })).toBe(0);
    await killWorker(second, "SIGTERM");
  }, 60_000);

  it("(d) SIGTERM lets the request in flight finish: its outcome is recorded, nothing is repeated", async () => {
    const ws = await makeWorkspace(owner.token, "multiprocess d");
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const receiver = await startReceiver(() => 200);
    receiver.beforeAnswer = () => answered;
    const wb = await subscribe(ws.id, receiver, ["budget.changed"]);

    // An 8 s request timeout here, so the answer below comes well within it.
    const w = await startWorker({ CAPSTAN_WEBHOOK_TIMEOUT_MS: "8000" });
    await setBudget(ws.id, 7);
    await waitFor("the request to reach the receiver", () => receiver.requests.length === 1, 20_000, 5);
    const signalled = Date.now();
    process.kill(-w.child.pid!, "SIGTERM");
    // The stopping worker must wait for this answer instead of exiting under it
    // (without draining, it is gone in about 1.5 s).
    await sleep(3000);
    answer();
    await waitFor("the worker to finish and close its connections", async () => (await connectionsOf(w)) === 0, 15_000);
    await w.exited;
    expect(Date.now() - signalled, "the worker waited for the answer").toBeGreaterThanOrEqual(3000);

    const d = await db().webhookDelivery.findFirstOrThrow({
      where: { subscriptionId: wb },
      include: { attempts: true },
    });
    expect(d.status, w.output.join("")).toBe("delivered");
    expect(d.lockedUntil).toBeNull();
    expect(d.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 200]]);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.accepted.get(d.eventId)).toBe(1);
    expect(w.output.join(""), "no errors from a pool closed under a running tick").not.toMatch(/"level":"error"/);
  }, 60_000);
});

describe("in-process workers", () => {
  it("(c) startWorkers in this process delivers too", async () => {
    expect(workers.filter(alive), "no worker process is running").toEqual([]);
    const ws = await makeWorkspace(owner.token, "in-process");
    const receiver = await startReceiver(() => 200);
    await subscribe(ws.id, receiver, ["budget.changed"]);
    const correlationId = await setBudget(ws.id, 5);
    const event = await db().outboxEvent.findFirstOrThrow({ where: { workspaceId: ws.id, correlationId } });
    try {
      startWorkers();
      await waitFor("the in-process delivery", () => receiver.accepted.has(event.id), 15_000);
    } finally {
      stopWorkers();
    }
    expect(receiver.accepted.get(event.id)).toBe(1);
    expect(receiver.requests.every((r) => r.verified)).toBe(true);
  });
});
