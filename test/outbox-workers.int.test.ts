import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimAndLoad, deliverDue, sendLeased } from "@/server/domain/webhooks/delivery.service";
import { dispatchOutbox, drainOutbox } from "@/server/domain/webhooks/dispatch.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { purgeExpired } from "@/server/platform/retention";
import { loops, startWorkers, stopWorkers, drainWorkers } from "@/server/workers/run";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * The outbox workers at volume (#16 item 5, docs/decisions.md "Workers that
 * keep up"): ordering per endpoint and key with several requests in flight,
 * the LISTEN/NOTIFY wake-up, concurrent dispatchers and claimers delivering
 * each event once, and the retention purge removing exactly the rows past
 * retention. Real receivers on 127.0.0.1, real PostgreSQL.
 */
const CAP = 4;
process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
process.env.CAPSTAN_WEBHOOK_SCHEDULE = "0,0.2,0.2,0.2";
process.env.CAPSTAN_WEBHOOK_TIMEOUT_MS = "2000";
process.env.CAPSTAN_WEBHOOK_MAX_IN_FLIGHT = String(CAP);
process.env.CAPSTAN_OUTBOX_BATCH = "50";
// The fallback poll is far away: only the NOTIFY wake-up can make the in-process workers move in time.
process.env.CAPSTAN_WORKER_POLL_MS = "60000";
process.env.CAPSTAN_EVENT_RETENTION_HOURS = "24";
process.env.CAPSTAN_DEAD_LETTER_RETENTION_DAYS = "30";
resetEnvCache();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

type TEvent = { id: string; subject: string; data: { i: number } };
type TArrival = { id: string; subject: string; at: number; status: number };
type TReceiver = {
  url: string;
  arrivals: TArrival[];
  accepted: Map<string, number>;
  inFlight: number;
  maxInFlight: number;
  /** Status to answer for the n-th request of an event (from 1). */
  respond: (ev: TEvent, n: number) => number;
  close: () => Promise<void>;
};
const receivers: TReceiver[] = [];

/** Holds every request a few ms (so requests overlap) and records arrival order per subject. */
async function startReceiver(holdMs = 5): Promise<TReceiver> {
  const r: TReceiver = {
    url: "",
    arrivals: [],
    accepted: new Map(),
    inFlight: 0,
    maxInFlight: 0,
    respond: () => 200,
    close: async () => undefined,
  };
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    r.inFlight++;
    r.maxInFlight = Math.max(r.maxInFlight, r.inFlight);
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const ev = JSON.parse(Buffer.concat(chunks).toString("utf8")) as TEvent;
      const n = (seen.get(ev.id) ?? 0) + 1;
      seen.set(ev.id, n);
      const status = r.respond(ev, n);
      r.arrivals.push({ id: ev.id, subject: ev.subject, at: r.arrivals.length, status });
      setTimeout(() => {
        if (status < 300) r.accepted.set(ev.id, (r.accepted.get(ev.id) ?? 0) + 1);
        r.inFlight--;
        res.writeHead(status).end();
      }, holdMs);
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

let owner: TTestUser;

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
});

afterAll(async () => {
  stopWorkers();
  await drainWorkers(5_000);
  await Promise.all(receivers.map((r) => r.close()));
});

async function workspaceWithSubscription(url: string): Promise<string> {
  const ws = (await makeWorkspace(owner.token)).id;
  const r = await api("POST", `/v1/workspaces/${ws}/event-subscriptions`, {
    token: owner.token,
    body: { url, event_types: ["*"] },
  });
  expect(r.status).toBe(201);
  return ws;
}

/** `perSubject` events for each of `subjects`, interleaved, each in its own transaction; returns the ids in write order. */
async function emitMany(
  ws: string,
  subjects: string[],
  perSubject: number,
): Promise<{ id: string; subject: string }[]> {
  const out: { id: string; subject: string }[] = [];
  for (let i = 0; i < perSubject; i++) {
    for (const subject of subjects) {
      const id = await emitEvent(db(), {
        workspaceId: ws,
        type: "plan.changed",
        correlationId: `ctx_${i}`,
        subject,
        data: { i },
      });
      out.push({ id, subject });
    }
  }
  return out;
}

/** The accepted arrivals of each subject, in arrival order, must be that subject's events in write order. */
function expectOrderPerSubject(r: TReceiver, written: { id: string; subject: string }[]): void {
  const firstAccepted = new Map<string, number>();
  for (const a of r.arrivals) if (a.status < 300 && !firstAccepted.has(a.id)) firstAccepted.set(a.id, a.at);
  const bySubject = new Map<string, string[]>();
  for (const w of written) bySubject.set(w.subject, [...(bySubject.get(w.subject) ?? []), w.id]);
  for (const [subject, ids] of bySubject) {
    const arrived = [...ids].sort((a, b) => firstAccepted.get(a)! - firstAccepted.get(b)!);
    expect(arrived, `order of ${subject}`).toEqual(ids);
  }
}

describe("dispatch and delivery at volume", () => {
  it("in-process workers woken by NOTIFY deliver 240 events once each, in order per subject, several in flight, at most the cap", async () => {
    const receiver = await startReceiver(5);
    // Event 3 of subject s0 fails twice first: s0's later events must wait for it, other subjects must not.
    const ws = await workspaceWithSubscription(receiver.url);
    const subjects = Array.from({ length: 8 }, (_, i) => `s${i}`);
    receiver.respond = (ev, n) => (ev.subject === "s0" && ev.data.i === 2 && n <= 2 ? 500 : 200);
    startWorkers(loops().filter((l) => l.name === "outbox-dispatch" || l.name === "webhook-delivery"));
    const written = await emitMany(ws, subjects, 30);
    const failing = written.filter((w) => w.subject === "s0")[2]!.id;
    await waitFor("every event accepted", () => receiver.accepted.size === written.length);
    stopWorkers();
    await drainWorkers(5_000);

    for (const w of written) expect(receiver.accepted.get(w.id), w.id).toBe(1);
    expectOrderPerSubject(receiver, written);
    expect(receiver.arrivals.filter((a) => a.id === failing).map((a) => a.status)).toEqual([500, 500, 200]);
    // Several requests at once for one subscription, never more than its cap.
    expect(receiver.maxInFlight).toBeGreaterThan(1);
    expect(receiver.maxInFlight).toBeLessThanOrEqual(CAP);
    const states = await db().webhookDelivery.groupBy({ by: ["status"], where: { workspaceId: ws }, _count: true });
    expect(states).toEqual([{ status: "delivered", _count: written.length }]);
  });

  it("three dispatchers and four claimers racing on 400 events: each delivered exactly once, order per subject kept", async () => {
    const receiver = await startReceiver(2);
    const ws = await workspaceWithSubscription(receiver.url);
    const written = await emitMany(
      ws,
      Array.from({ length: 10 }, (_, i) => `k${i}`),
      40,
    );
    const dispatched = await Promise.all([drainOutbox(100), drainOutbox(100), drainOutbox(100)]);
    expect(dispatched.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(written.length);
    expect(await db().webhookDelivery.count({ where: { workspaceId: ws } })).toBe(written.length);
    // Four independent claim loops (as four processes would: separate connections, shared rows).
    const claimer = async () => {
      while (receiver.accepted.size < written.length) if (!(await deliverDue())) await sleep(5);
    };
    await Promise.all([claimer(), claimer(), claimer(), claimer()]);
    expect(receiver.arrivals.length).toBe(written.length);
    for (const w of written) expect(receiver.accepted.get(w.id), w.id).toBe(1);
    expectOrderPerSubject(receiver, written);
    expect(receiver.maxInFlight).toBeLessThanOrEqual(CAP);
  });

  it("a leased delivery blocks the next of its key, not other keys; a redelivery has no key", async () => {
    const receiver = await startReceiver(0);
    const ws = await workspaceWithSubscription(receiver.url);
    const [a1, b1, a2] = [
      await emitEvent(db(), { workspaceId: ws, type: "plan.changed", correlationId: "ctx_a", subject: "a", data: {} }),
      await emitEvent(db(), { workspaceId: ws, type: "plan.changed", correlationId: "ctx_b", subject: "b", data: {} }),
      await emitEvent(db(), { workspaceId: ws, type: "plan.changed", correlationId: "ctx_a", subject: "a", data: {} }),
    ];
    await drainOutbox();
    const first = await claimAndLoad(10);
    expect(first.map((d) => d.eventId).sort()).toEqual([a1, b1].sort());
    // a2 waits while a1 is leased (in flight) ...
    expect(await claimAndLoad(10)).toEqual([]);
    await Promise.all(first.map(sendLeased));
    // ... and goes once a1 is delivered.
    const second = await claimAndLoad(10);
    expect(second.map((d) => d.eventId)).toEqual([a2]);
    await Promise.all(second.map(sendLeased));
    const d = await db().webhookDelivery.findMany({ where: { workspaceId: ws }, orderBy: { eventSeq: "asc" } });
    expect(d.map((x) => [x.eventId, x.orderingKey, x.status])).toEqual([
      [a1, "a", "delivered"],
      [b1, "b", "delivered"],
      [a2, "a", "delivered"],
    ]);
  });

  it("a workspace with no subscription: events are marked dispatched in batches, no delivery", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    await emitMany(ws, ["x"], 120);
    let n = 0;
    while ((await dispatchOutbox(50)) > 0) n++;
    expect(n).toBeGreaterThanOrEqual(3);
    expect(await db().outboxEvent.count({ where: { workspaceId: ws, dispatchedAt: null } })).toBe(0);
    expect(await db().webhookDelivery.count({ where: { workspaceId: ws } })).toBe(0);
  });
});

describe("retention purge", () => {
  it("removes only events past retention whose deliveries are finished and whose dead letters are past theirs; audit and idempotency records by their own rules", async () => {
    const receiver = await startReceiver(0);
    const ws = await workspaceWithSubscription(receiver.url);
    const mk = async (tag: string) =>
      emitEvent(db(), { workspaceId: ws, type: "plan.changed", correlationId: `ctx_${tag}`, subject: tag, data: {} });
    const ids = {
      oldDelivered: await mk("old-delivered"),
      oldFailed: await mk("old-failed"),
      oldPending: await mk("old-pending"),
      oldRecentDeadLetter: await mk("old-recent-dl"),
      oldOldDeadLetter: await mk("old-old-dl"),
      recentDelivered: await mk("recent-delivered"),
      undispatched: await mk("undispatched"),
    };
    // Everything but the last is dispatched (deliveries created), then aged by hand.
    await db().$executeRaw`UPDATE outbox_events SET dispatched_at = now() WHERE id = ${ids.undispatched}`;
    await drainOutbox();
    await db().$executeRaw`UPDATE outbox_events SET dispatched_at = NULL WHERE id = ${ids.undispatched}`;
    await db()
      .$executeRaw`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now() WHERE workspace_id = ${ws}`;
    await db().$executeRaw`UPDATE webhook_deliveries SET status = 'failed' WHERE event_id = ${ids.oldFailed}`;
    await db().$executeRaw`UPDATE webhook_deliveries SET status = 'pending' WHERE event_id = ${ids.oldPending}`;
    await db()
      .$executeRaw`UPDATE webhook_deliveries SET status = 'dead' WHERE event_id IN (${ids.oldRecentDeadLetter}, ${ids.oldOldDeadLetter})`;
    for (const [eventId, age] of [
      [ids.oldRecentDeadLetter, "1 day"],
      [ids.oldOldDeadLetter, "31 days"],
    ] as const) {
      const d = await db().webhookDelivery.findFirstOrThrow({ where: { eventId } });
      await db()
        .$executeRaw`INSERT INTO dead_letters (id, workspace_id, delivery_id, subscription_id, event_id, event_type, attempts, created_at)
        VALUES (${newId("dlq")}, ${ws}, ${d.id}, ${d.subscriptionId}, ${eventId}, 'plan.changed', 8, now() - ${age}::interval)`;
    }
    const old = [ids.oldDelivered, ids.oldFailed, ids.oldPending, ids.oldRecentDeadLetter, ids.oldOldDeadLetter];
    await db()
      .$executeRaw`UPDATE outbox_events SET dispatched_at = now() - interval '25 hours' WHERE id IN (${old[0]}, ${old[1]}, ${old[2]}, ${old[3]}, ${old[4]})`;
    await db()
      .$executeRaw`UPDATE outbox_events SET dispatched_at = now() - interval '23 hours' WHERE id = ${ids.recentDelivered}`;
    // One delivery attempt row each, to see the cascade.
    for (const d of await db().webhookDelivery.findMany({ where: { workspaceId: ws } })) {
      await db().webhookAttempt.create({
        data: { id: newId("wat"), deliveryId: d.id, attempt: 1, statusCode: 200, durationMs: 1 },
      });
    }
    const idem = async (expiresIn: string) => {
      const id = newId("idem");
      await db()
        .$executeRaw`INSERT INTO idempotency_keys (id, principal_id, method, path, key, request_hash, state, locked_until, expires_at)
        VALUES (${id}, ${owner.userId}, 'POST', '/x', ${id}, 'h', 'done', now(), now() + ${expiresIn}::interval)`;
      return id;
    };
    const idemExpired = await idem("-1 minute");
    const idemLive = await idem("1 hour");
    const auditBefore = await db().auditRecord.count({ where: { workspaceId: ws } });
    expect(auditBefore).toBeGreaterThan(0);

    // Two purgers at once (two worker processes): together they remove each row once, without error.
    const [p1, p2] = await Promise.all([purgeExpired(), purgeExpired()]);
    const remaining = new Set(
      (await db().outboxEvent.findMany({ where: { workspaceId: ws }, select: { id: true } })).map((e) => e.id),
    );
    const gone = [ids.oldDelivered, ids.oldFailed, ids.oldOldDeadLetter];
    for (const id of gone) expect(remaining.has(id), id).toBe(false);
    for (const id of [ids.oldPending, ids.oldRecentDeadLetter, ids.recentDelivered, ids.undispatched])
      expect(remaining.has(id), id).toBe(true);
    expect(p1.events + p2.events).toBeGreaterThanOrEqual(gone.length);
    // Deliveries, attempts and the old dead letter went with their events; the others stay.
    expect(await db().webhookDelivery.count({ where: { eventId: { in: gone } } })).toBe(0);
    expect(await db().webhookAttempt.count({ where: { delivery: { workspaceId: ws } } })).toBe(3);
    expect((await db().deadLetter.findMany({ where: { workspaceId: ws } })).map((d) => d.eventId)).toEqual([
      ids.oldRecentDeadLetter,
    ]);
    expect(await db().idempotencyKey.findUnique({ where: { id: idemExpired } })).toBeNull();
    expect(await db().idempotencyKey.findUnique({ where: { id: idemLive } })).not.toBeNull();
    expect(await db().auditRecord.count({ where: { workspaceId: ws } })).toBe(auditBefore);

    // A day later the recent event is past retention too; the pending one never goes while pending.
    const later = await purgeExpired(new Date(Date.now() + 2 * 3_600_000));
    expect(later.events).toBeGreaterThanOrEqual(1);
    expect(await db().outboxEvent.findUnique({ where: { id: ids.recentDelivered } })).toBeNull();
    expect(await db().outboxEvent.findUnique({ where: { id: ids.oldPending } })).not.toBeNull();
    expect(await db().outboxEvent.findUnique({ where: { id: ids.undispatched } })).not.toBeNull();
  });
});
