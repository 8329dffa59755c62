import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { deliverDue, dispatchOutbox } from "@/server/domain/webhooks/delivery.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { EVENT_TYPES, SCHEMA_EVENT_TYPES, toCloudEvent, type TEventType } from "@/server/platform/outbox";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser, type TTestWorkspace } from "./support/api";
import { CORRELATION_ID_RE, expectShape, idRegex, Page, Problem, zSpecId, zTimestamp } from "./support/spec-schemas";

/**
 * Webhooks end to end: the REST surface of event subscriptions and dead
 * letters, and delivery through the real dispatcher and delivery worker
 * (dispatchOutbox + deliverDue, called here in a polling loop) to real HTTP
 * receivers on 127.0.0.1 that verify the Standard Webhooks signature and
 * parse the CloudEvents envelope like a customer's endpoint would.
 *
 * Environment (set before the app first reads it): private http targets
 * allowed, a shrunk retry schedule (three attempts, 0.3 s apart) and a 1 s
 * request timeout.
 */
process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
process.env.CAPSTAN_WEBHOOK_SCHEDULE = "0,0.3,0.3";
process.env.CAPSTAN_WEBHOOK_TIMEOUT_MS = "1000";
resetEnvCache();
const SCHEDULE_LENGTH = 3;

type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// ---------------------------------------------------------------------------
// A customer's webhook endpoint
// ---------------------------------------------------------------------------

type TReceived = {
  webhookId: string;
  timestamp: string;
  signature: string;
  contentType: string;
  rawBody: string;
  /** What the receiver answered. */
  status: number;
  /** The signature checked out against the receiver's secret. */
  verified: boolean;
  event: TJson | undefined;
};

type TReceiver = {
  url: string;
  /** The whsec_ secret the receiver verifies with (set once the subscription exists). */
  secret: string | undefined;
  /** Status for a correctly signed request; n counts correctly signed requests from 1. */
  respond: (n: number, event: TJson) => number;
  requests: TReceived[];
  /** Events answered with 2xx, by webhook-id, with how often each was accepted. */
  accepted: Map<string, { event: TJson; times: number }>;
  close: () => Promise<void>;
};

const receivers: TReceiver[] = [];

/** Standard Webhooks verification: HMAC-SHA256 over `${id}.${timestamp}.${body}` keyed with the base64 part of the secret. */
function verifyStandardWebhook(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  if (!secret.startsWith("whsec_")) return false;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  // The header may carry several space-separated signatures (during a key rotation).
  return header.split(" ").some((part) => {
    const [version, sig] = part.split(",", 2);
    if (version !== "v1" || !sig) return false;
    const got = Buffer.from(sig, "base64");
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

async function startReceiver(respond: TReceiver["respond"] = () => 200): Promise<TReceiver> {
  const receiver: TReceiver = {
    url: "",
    secret: undefined,
    respond,
    requests: [],
    accepted: new Map(),
    close: async () => undefined,
  };
  let verifiedCount = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const webhookId = String(req.headers["webhook-id"] ?? "");
      const timestamp = String(req.headers["webhook-timestamp"] ?? "");
      const signature = String(req.headers["webhook-signature"] ?? "");
      const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
      const verified =
        req.method === "POST" &&
        !!receiver.secret &&
        fresh &&
        verifyStandardWebhook(receiver.secret, webhookId, timestamp, rawBody, signature);
      let event: TJson | undefined;
      try {
        event = JSON.parse(rawBody) as TJson;
      } catch {
        event = undefined;
      }
      let status = 401;
      if (verified && event) status = receiver.respond(++verifiedCount, event);
      else if (verified) status = 400;
      receiver.requests.push({
        webhookId,
        timestamp,
        signature,
        contentType: String(req.headers["content-type"] ?? ""),
        rawBody,
        status,
        verified,
        event,
      });
      if (status >= 200 && status < 300 && event) {
        const seen = receiver.accepted.get(webhookId);
        receiver.accepted.set(webhookId, { event, times: (seen?.times ?? 0) + 1 });
      }
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(status < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  receivers.push(receiver);
  return receiver;
}

// ---------------------------------------------------------------------------
// Driving the workers
// ---------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs dispatch + delivery ticks until `done` holds (or fails at the deadline). */
async function pumpUntil(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await dispatchOutbox();
    await deliverDue();
    if (await done()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Dispatches every outbox row written so far (fan-out to subscriptions), without delivering. */
async function drainOutbox(): Promise<void> {
  for (let i = 0; i < 100 && (await dispatchOutbox()) > 0; i++);
  expect(await db().outboxEvent.count({ where: { dispatchedAt: null } })).toBe(0);
}

// ---------------------------------------------------------------------------
// Shapes (ours: the spec says "not shown" for subscriptions and deliveries; docs/decisions.md)
// ---------------------------------------------------------------------------

const Subscription = z.strictObject({
  id: zSpecId("wb"),
  workspace_id: zSpecId("ws"),
  name: z.string().min(1),
  url: z.string(),
  description: z.string().nullable(),
  event_types: z.array(z.string()).min(1),
  status: z.enum(["active", "disabled"]),
  disabled_reason: z.string().nullable(),
  secret_rotated_at: zTimestamp.nullable(),
  previous_secret_expires_at: zTimestamp.nullable(),
  last_activity_at: zTimestamp.nullable(),
  created_at: zTimestamp,
  updated_at: zTimestamp,
});
const SubscriptionWithSecret = Subscription.extend({ secret: z.string() });

const Attempt = z.object({
  attempt: z.number().int().min(1),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int().min(0),
  created_at: zTimestamp,
});
const Delivery = z.object({
  id: zSpecId("whk"),
  subscription_id: zSpecId("wb"),
  event_id: zSpecId("evt"),
  event_type: z.string(),
  status: z.enum(["pending", "delivered", "failed", "dead"]),
  attempt_count: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: zTimestamp.nullable(),
  delivered_at: zTimestamp.nullable(),
  created_at: zTimestamp,
  attempts: z.array(Attempt),
});
const DeadLetter = z.object({
  id: zSpecId("dlq"),
  workspace_id: zSpecId("ws"),
  subscription_id: zSpecId("wb"),
  delivery_id: zSpecId("whk"),
  event_id: zSpecId("evt"),
  event_type: z.string(),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  redelivered_at: zTimestamp.nullable(),
  redelivery_id: zSpecId("whk").nullable(),
  created_at: zTimestamp,
});

/** CloudEvents 1.0 structured JSON as our receivers parse it. */
function expectCloudEvent(
  ev: TJson | undefined,
  expected: { type: string; ws: string; webhookId?: string; correlationId?: string },
) {
  expect(ev, "a JSON CloudEvent").toBeTypeOf("object");
  const e = ev!;
  expect(e.specversion).toBe("1.0");
  expect(e.id).toMatch(idRegex("evt"));
  if (expected.webhookId) expect(e.id, "webhook-id is the event id (receivers dedupe on it)").toBe(expected.webhookId);
  expect(e.type).toBe(expected.type);
  expect(typeof e.source === "string" && e.source.length > 0).toBe(true);
  expect(e.source).toContain(expected.ws);
  expect(zTimestamp.safeParse(e.time).success, `time ${e.time}`).toBe(true);
  expect(e.datacontenttype).toBe("application/json");
  // dataschema (optional in CloudEvents) links only the published JSON Schemas, with the type's version.
  if (SCHEMA_EVENT_TYPES.has(e.type)) {
    expect(e.dataschema).toMatch(/^https?:\/\//);
    expect(e.dataschema).toContain(e.type);
    expect(e.dataschema).toContain(`version=${EVENT_TYPES[e.type as TEventType]}`);
  } else {
    expect(e).not.toHaveProperty("dataschema");
  }
  expect(e.workspaceid).toBe(expected.ws);
  expect(e.correlationid).toMatch(CORRELATION_ID_RE);
  if (expected.correlationId) expect(e.correlationid).toBe(expected.correlationId);
  expect(e.data).toBeTypeOf("object");
  expect(e.data).not.toBeNull();
}

function expectProblem(r: { status: number; json: unknown; text: string }, status: number, code: string) {
  expect(r.status, r.text).toBe(status);
  const p = expectShape(Problem, r.json);
  expect(p.code).toBe(code);
  return p;
}

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

let owner: TTestUser;
let admin: TTestUser;
let developer: TTestUser;
let viewer: TTestUser;
let ws: TTestWorkspace;
let otherWs: TTestWorkspace;

const subsPath = (w: string) => `/v1/workspaces/${w}/event-subscriptions`;
const dlqPath = (w: string) => `/v1/workspaces/${w}/outbox/dead-letters`;

async function createSub(w: string, body: TJson, token = owner.token, headers: Record<string, string> = {}) {
  return api("POST", subsPath(w), { token, body, headers });
}

/** A subscription for `receiver`, whose secret the receiver then verifies with. */
async function subscribe(w: string, receiver: TReceiver, eventTypes: string[]): Promise<TJson> {
  const r = await createSub(w, {
    url: receiver.url,
    event_types: eventTypes,
    description: `test ${eventTypes.join(",")}`,
  });
  expect(r.status, r.text).toBe(201);
  receiver.secret = r.json.secret;
  return r.json;
}

async function deliveriesOf(w: string, wb: string): Promise<z.infer<typeof Delivery>[]> {
  const r = await api("GET", `${subsPath(w)}/${wb}/deliveries?order=asc`, { token: owner.token });
  expect(r.status, r.text).toBe(200);
  return expectShape(Page(Delivery), r.json).items;
}

async function setPlan(w: string, plan: string) {
  const r = await api("PUT", `/v1/workspaces/${w}/plan`, { token: owner.token, body: { plan } });
  expect(r.status, r.text).toBe(200);
  return r;
}

async function setBudget(w: string, limit: number | null, category = "ai_tokens") {
  const r = await api("PUT", `/v1/workspaces/${w}/budgets/${category}`, {
    token: owner.token,
    body: { limit_units: limit },
  });
  expect(r.status, r.text).toBe(200);
  return r;
}

async function putMember(w: string, usr: string, role: string, token = owner.token) {
  return api("PUT", `/v1/workspaces/${w}/members/${usr}`, { token, body: { role } });
}

beforeAll(async () => {
  await bootApp();
  [owner, admin, developer, viewer] = await Promise.all([makeUser(), makeUser(), makeUser(), makeUser()]);
  ws = await makeWorkspace(owner.token, "webhooks");
  otherWs = await makeWorkspace(owner.token, "webhooks other");
  for (const [u, role] of [
    [admin, "admin"],
    [developer, "developer"],
    [viewer, "viewer"],
  ] as const) {
    const r = await putMember(ws.id, u.userId, role);
    expect(r.status, r.text).toBe(200);
  }
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

// ---------------------------------------------------------------------------
// REST surface
// ---------------------------------------------------------------------------

describe("event subscriptions: REST", () => {
  it("create returns 201 with a whsec_ secret shown once; get and list never return it", async () => {
    const body = {
      url: "https://hooks.example.com/capstan",
      event_types: ["plan.changed", "budget.changed"],
      description: "billing",
    };
    const r = await createSub(ws.id, body);
    expect(r.status, r.text).toBe(201);
    const sub = expectShape(SubscriptionWithSecret, r.json);
    expect(sub.workspace_id).toBe(ws.id);
    expect(sub.url).toBe("https://hooks.example.com/capstan");
    expect(sub.event_types).toEqual(["plan.changed", "budget.changed"]);
    expect(sub.status).toBe("active");
    expect(sub.disabled_reason).toBeNull();
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(sub.secret.slice("whsec_".length), "base64").length).toBeGreaterThanOrEqual(24);

    const got = await api("GET", `${subsPath(ws.id)}/${sub.id}`, { token: owner.token });
    expect(got.status, got.text).toBe(200);
    expect(expectShape(Subscription, got.json).id).toBe(sub.id);
    expect(got.json).not.toHaveProperty("secret");
    expect(got.text).not.toContain(sub.secret.slice("whsec_".length));

    const list = await api("GET", subsPath(ws.id), { token: owner.token });
    expect(list.status, list.text).toBe(200);
    const page = expectShape(Page(Subscription), list.json);
    expect(page.items.map((s) => s.id)).toContain(sub.id);
    for (const item of list.json.items) expect(item).not.toHaveProperty("secret");
    expect(list.text).not.toContain(sub.secret.slice("whsec_".length));

    // The secret is never stored in the clear either.
    const row = await db().eventSubscription.findUniqueOrThrow({
      where: { id: sub.id },
      omit: { secretSealed: false },
    });
    expect(row.secretSealed).not.toContain(sub.secret.slice("whsec_".length));
  });

  it("a replay of the create (same Idempotency-Key) is 201 without the secret, and the stored response never held it", async () => {
    const key = `wh-replay-${Date.now()}`;
    const body = { url: "https://hooks.example.com/replay", event_types: ["*"], description: "replay" };
    const first = await createSub(ws.id, body, owner.token, { "idempotency-key": key });
    expect(first.status, first.text).toBe(201);
    const secretB64 = (first.json.secret as string).slice("whsec_".length);

    const replay = await createSub(ws.id, body, owner.token, { "idempotency-key": key });
    expect(replay.status, replay.text).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json.id).toBe(first.json.id);
    expect(await db().eventSubscription.count({ where: { workspaceId: ws.id, description: "replay" } })).toBe(1);
    const stored = await db().idempotencyKey.findFirstOrThrow({ where: { principalId: owner.userId, key } });
    expect(stored.responseBody ?? "", "the one-time secret must not be kept in idempotency_keys").not.toContain(
      secretB64,
    );
    expect(replay.json).not.toHaveProperty("secret");
    expect(replay.text).not.toContain(secretB64);
  });

  it("delete is 204, then get, delete and rotate are 404", async () => {
    const created = await createSub(ws.id, { url: "https://hooks.example.com/delete-me", event_types: ["*"] });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as string;
    const del = await api("DELETE", `${subsPath(ws.id)}/${id}`, { token: owner.token });
    expect(del.status, del.text).toBe(204);
    expect(del.text).toBe("");
    expectProblem(await api("GET", `${subsPath(ws.id)}/${id}`, { token: owner.token }), 404, "not_found");
    expectProblem(await api("DELETE", `${subsPath(ws.id)}/${id}`, { token: owner.token }), 404, "not_found");
    expectProblem(
      await api("POST", `${subsPath(ws.id)}/${id}:rotate-secret`, { token: owner.token }),
      404,
      "not_found",
    );
    const list = await api("GET", `${subsPath(ws.id)}?limit=200`, { token: owner.token });
    expect(list.json.items.map((s: TJson) => s.id)).not.toContain(id);
  });

  it("rotate-secret returns a new secret (shown once) and keeps the subscription", async () => {
    const created = await createSub(ws.id, {
      url: "https://hooks.example.com/rotate",
      event_types: ["member.upserted"],
    });
    expect(created.status, created.text).toBe(201);
    const r = await api("POST", `${subsPath(ws.id)}/${created.json.id}:rotate-secret`, { token: admin.token });
    expect(r.status, r.text).toBe(200);
    const rotated = expectShape(SubscriptionWithSecret, r.json);
    expect(rotated.id).toBe(created.json.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.json.secret);
    expect(Buffer.from(rotated.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    const got = await api("GET", `${subsPath(ws.id)}/${created.json.id}`, { token: admin.token });
    expect(got.json).not.toHaveProperty("secret");
    expect(got.json.status).toBe("active");
  });

  it.each([
    ["ftp://x", "not http(s)"],
    ["not a url", "not a URL"],
    ["https://user:pw@hooks.example.com/x", "credentials in the URL"],
  ])("url %s (%s) is 422 with an error at /url", async (url) => {
    const r = await createSub(ws.id, { url, event_types: ["*"] });
    const p = expectProblem(r, 422, "validation_failed");
    expect(p.errors?.map((e) => e.path)).toContain("/url");
    expect(await db().eventSubscription.count({ where: { url } })).toBe(0);
  });

  it("https and a public host are required unless CAPSTAN_WEBHOOK_ALLOW_PRIVATE", async () => {
    const previous = process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE;
    try {
      process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "0";
      resetEnvCache();
      for (const url of [
        "http://hooks.example.com/x",
        "http://127.0.0.1:9/x",
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://10.1.2.3/x",
        "https://[::1]/x",
      ]) {
        const p = expectProblem(await createSub(ws.id, { url, event_types: ["*"] }), 422, "validation_failed");
        expect(
          p.errors?.map((e) => e.path),
          url,
        ).toContain("/url");
      }
      const ok = await createSub(ws.id, { url: "https://hooks.example.com/public", event_types: ["*"] });
      expect(ok.status, ok.text).toBe(201);

      process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
      resetEnvCache();
      for (const url of ["http://127.0.0.1:9/x", "http://localhost:9/x"]) {
        const r = await createSub(ws.id, { url, event_types: ["*"] });
        expect(r.status, `${url}: ${r.text}`).toBe(201);
      }
      // Credentials and non-http schemes stay refused even then.
      expectProblem(await createSub(ws.id, { url: "ftp://127.0.0.1/x", event_types: ["*"] }), 422, "validation_failed");
    } finally {
      process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = previous;
      resetEnvCache();
    }
  });

  it("an unknown event type, an empty list or an unknown field is 422", async () => {
    const unknown = expectProblem(
      await createSub(ws.id, { url: "https://hooks.example.com/x", event_types: ["plan.changed", "no.such_event"] }),
      422,
      "validation_failed",
    );
    expect(unknown.errors?.some((e) => e.path.startsWith("/event_types"))).toBe(true);
    expectProblem(
      await createSub(ws.id, { url: "https://hooks.example.com/x", event_types: [] }),
      422,
      "validation_failed",
    );
    expectProblem(
      await createSub(ws.id, { url: "https://hooks.example.com/x", event_types: ["*"], secret: "whsec_mine" }),
      422,
      "validation_failed",
    );
    expectProblem(await createSub(ws.id, { event_types: ["*"] }), 422, "validation_failed");
  });

  it("developers and viewers get 403 on every webhook operation; admins may manage", async () => {
    const created = await createSub(ws.id, { url: "https://hooks.example.com/roles", event_types: ["*"] });
    expect(created.status, created.text).toBe(201);
    const wb = created.json.id as string;
    for (const u of [developer, viewer]) {
      const calls = [
        api("POST", subsPath(ws.id), {
          token: u.token,
          body: { url: "https://hooks.example.com/dev", event_types: ["*"] },
        }),
        api("GET", subsPath(ws.id), { token: u.token }),
        api("GET", `${subsPath(ws.id)}/${wb}`, { token: u.token }),
        api("DELETE", `${subsPath(ws.id)}/${wb}`, { token: u.token }),
        api("POST", `${subsPath(ws.id)}/${wb}:rotate-secret`, { token: u.token }),
        api("GET", `${subsPath(ws.id)}/${wb}/deliveries`, { token: u.token }),
        api("GET", dlqPath(ws.id), { token: u.token }),
      ];
      for (const r of await Promise.all(calls)) {
        const p = expectProblem(r, 403, "forbidden");
        expect(p.reason).toBe("role_required");
      }
    }
    expect(await db().eventSubscription.count({ where: { url: "https://hooks.example.com/dev" } })).toBe(0);
    expect((await api("GET", `${subsPath(ws.id)}/${wb}`, { token: owner.token })).status).toBe(200);

    const byAdmin = await createSub(
      ws.id,
      { url: "https://hooks.example.com/admin", event_types: ["plan.changed"] },
      admin.token,
    );
    expect(byAdmin.status, byAdmin.text).toBe(201);
    const list = await api("GET", dlqPath(ws.id), { token: admin.token });
    expect(list.status, list.text).toBe(200);
    expectShape(Page(DeadLetter), list.json);
  });

  it("another workspace's subscription or dead letter is 404 through this workspace", async () => {
    const foreign = await createSub(otherWs.id, { url: "https://hooks.example.com/foreign", event_types: ["*"] });
    expect(foreign.status, foreign.text).toBe(201);
    const wb = foreign.json.id as string;
    expectProblem(await api("GET", `${subsPath(ws.id)}/${wb}`, { token: owner.token }), 404, "not_found");
    expectProblem(await api("DELETE", `${subsPath(ws.id)}/${wb}`, { token: owner.token }), 404, "not_found");
    expectProblem(
      await api("POST", `${subsPath(ws.id)}/${wb}:rotate-secret`, { token: owner.token }),
      404,
      "not_found",
    );
    expectProblem(await api("GET", `${subsPath(ws.id)}/${wb}/deliveries`, { token: owner.token }), 404, "not_found");
    const list = await api("GET", `${subsPath(ws.id)}?limit=200`, { token: owner.token });
    expect(list.json.items.map((s: TJson) => s.id)).not.toContain(wb);
    // Still there, untouched, in its own workspace.
    const own = await api("GET", `${subsPath(otherWs.id)}/${wb}`, { token: owner.token });
    expect(own.status).toBe(200);
    expect(own.json.status).toBe("active");
  });
});

// ---------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------

describe("webhook delivery", () => {
  it("A: 500, 500, 200: accepted exactly once, one delivery with 3 attempts; signed and a CloudEvent", async () => {
    const w = await makeWorkspace(owner.token, "scenario A");
    const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
    const sub = await subscribe(w.id, receiver, ["plan.changed"]);

    const change = await setPlan(w.id, "team");
    await pumpUntil("the third attempt", () => receiver.accepted.size > 0);
    // Let any (wrong) extra attempt surface before counting.
    await pumpUntil("the delivery to settle", async () =>
      (await deliveriesOf(w.id, sub.id)).every((d) => d.status !== "pending"),
    );

    expect(receiver.requests.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(
      receiver.requests.every((r) => r.verified),
      "every request carried a valid Standard Webhooks signature",
    ).toBe(true);
    expect(new Set(receiver.requests.map((r) => r.webhookId)).size, "retries keep the webhook-id").toBe(1);
    expect(new Set(receiver.requests.map((r) => r.rawBody)).size, "retries send the same body").toBe(1);
    expect(receiver.accepted.size).toBe(1);
    const [webhookId, accepted] = [...receiver.accepted.entries()][0]!;
    expect(accepted.times).toBe(1);
    for (const r of receiver.requests) {
      expect(r.contentType).toMatch(/^application\/cloudevents\+json/);
      expect(r.timestamp).toMatch(/^\d+$/);
      expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    expectCloudEvent(accepted.event, {
      type: "plan.changed",
      ws: w.id,
      webhookId,
      correlationId: change.headers.get("x-correlation-id")!,
    });
    expect(accepted.event.data).toMatchObject({ workspace_id: w.id, to: "team" });

    const deliveries = await deliveriesOf(w.id, sub.id);
    expect(deliveries).toHaveLength(1);
    const d = deliveries[0]!;
    expect(d.status).toBe("delivered");
    expect(d.event_id).toBe(webhookId);
    expect(d.event_type).toBe("plan.changed");
    expect(d.attempt_count).toBe(3);
    expect(d.last_status_code).toBe(200);
    expect(d.last_error).toBeNull();
    expect(d.delivered_at).not.toBeNull();
    expect(d.next_attempt_at).toBeNull();
    expect(d.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 500, 200]);
    expect(d.attempts[0]!.error).toMatch(/500/);
    expect(d.attempts[2]!.error).toBeNull();
    const dead = await api("GET", dlqPath(w.id), { token: owner.token });
    expect(dead.status, dead.text).toBe(200);
    expect(dead.json.items).toEqual([]);
  });

  it("B: always 500: dead after the schedule, exactly one dead letter; redeliver is 202 and arrives; again is 409", async () => {
    const w = await makeWorkspace(owner.token, "scenario B");
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 200 : 500));
    const sub = await subscribe(w.id, receiver, ["budget.changed"]);

    await setBudget(w.id, 1000);
    await pumpUntil("the delivery to go dead", async () =>
      (await deliveriesOf(w.id, sub.id)).some((d) => d.status === "dead"),
    );

    expect(receiver.requests.map((r) => r.status)).toEqual(Array(SCHEDULE_LENGTH).fill(500));
    expect(receiver.requests.every((r) => r.verified)).toBe(true);
    expect(receiver.accepted.size).toBe(0);
    const eventId = receiver.requests[0]!.webhookId;
    const [dead] = await deliveriesOf(w.id, sub.id);
    expect(dead!.status).toBe("dead");
    expect(dead!.attempt_count).toBe(SCHEDULE_LENGTH);
    expect(dead!.attempts.map((a) => a.status_code)).toEqual(Array(SCHEDULE_LENGTH).fill(500));
    expect(dead!.next_attempt_at).toBeNull();

    const list = await api("GET", dlqPath(w.id), { token: owner.token });
    expect(list.status, list.text).toBe(200);
    const page = expectShape(Page(DeadLetter), list.json);
    expect(page.items).toHaveLength(1);
    const dl = page.items[0]!;
    expect(dl).toMatchObject({
      workspace_id: w.id,
      subscription_id: sub.id,
      delivery_id: dead!.id,
      event_id: eventId,
      event_type: "budget.changed",
      attempts: SCHEDULE_LENGTH,
      last_status_code: 500,
      redelivered_at: null,
      redelivery_id: null,
    });
    expect(dl.last_error).toMatch(/500/);
    // Not visible from another workspace; developers may not redeliver.
    expect(
      (await api("GET", dlqPath(otherWs.id), { token: owner.token })).json.items.map((x: TJson) => x.id),
    ).not.toContain(dl.id);
    expectProblem(
      await api("POST", `${dlqPath(otherWs.id)}/${dl.id}:redeliver`, { token: owner.token }),
      404,
      "not_found",
    );

    healthy = true;
    const redeliver = await api("POST", `${dlqPath(w.id)}/${dl.id}:redeliver`, { token: owner.token });
    expect(redeliver.status, redeliver.text).toBe(202);
    const after = expectShape(DeadLetter, redeliver.json);
    expect(after.id).toBe(dl.id);
    expect(after.redelivery_id).toMatch(idRegex("whk"));
    expect(after.redelivered_at).not.toBeNull();

    await pumpUntil("the redelivered event", () => receiver.accepted.has(eventId));
    await pumpUntil("the redelivery to settle", async () =>
      (await deliveriesOf(w.id, sub.id)).every((d) => d.status !== "pending"),
    );
    expect(receiver.accepted.get(eventId)!.times).toBe(1);
    expectCloudEvent(receiver.accepted.get(eventId)!.event, { type: "budget.changed", ws: w.id, webhookId: eventId });
    expect(receiver.accepted.get(eventId)!.event.data).toMatchObject({
      usage_category: "ai_tokens",
      limit_units: 1000,
    });
    const deliveries = await deliveriesOf(w.id, sub.id);
    expect(deliveries.map((d) => [d.id, d.status])).toEqual([
      [dead!.id, "dead"],
      [after.redelivery_id, "delivered"],
    ]);
    expect(deliveries[1]!.attempts.map((a) => a.status_code)).toEqual([200]);

    const again = expectProblem(
      await api("POST", `${dlqPath(w.id)}/${dl.id}:redeliver`, { token: owner.token }),
      409,
      "conflict",
    );
    expect(again.reason).toBe("already_redelivered");
    const finalList = expectShape(Page(DeadLetter), (await api("GET", dlqPath(w.id), { token: owner.token })).json);
    expect(finalList.items).toHaveLength(1);
    expect(finalList.items[0]!.redelivery_id).toBe(after.redelivery_id);
  });

  it("E: a redirect is not followed, an endpoint that never answers times out, a closed port is a network error", async () => {
    const w = await makeWorkspace(owner.token, "scenario E");
    const target = await startReceiver(); // where the redirect points: it must get nothing
    const hits: string[] = [];
    const odd = http.createServer((req, res) => {
      hits.push(req.url!);
      if (req.url === "/redirect") res.writeHead(302, { location: target.url }).end();
      // "/hang" never answers.
    });
    await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      const base = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
      const urls = { redirect: `${base}/redirect`, hang: `${base}/hang`, refused: `http://127.0.0.1:${closedPort}/x` };
      const subs: Record<string, string> = {};
      for (const [k, url] of Object.entries(urls)) {
        const r = await createSub(w.id, { url, event_types: ["plan.changed"] });
        expect(r.status, r.text).toBe(201);
        subs[k] = r.json.id;
      }
      await setPlan(w.id, "team");
      const first = async (k: string) => (await deliveriesOf(w.id, subs[k]!))[0]?.attempts[0];
      await pumpUntil("a first attempt to each endpoint", async () =>
        (await Promise.all(Object.keys(subs).map(first))).every(Boolean),
      );
      expect(await first("redirect")).toMatchObject({ status_code: 302, error: "HTTP 302" });
      expect(target.requests).toHaveLength(0);
      const hang = await first("hang");
      expect(hang).toMatchObject({ status_code: null, error: "timeout" });
      expect(hang!.duration_ms).toBeGreaterThanOrEqual(999); // CAPSTAN_WEBHOOK_TIMEOUT_MS is 1000 here
      const refused = await first("refused");
      expect(refused).toMatchObject({ status_code: null });
      expect(refused!.error).toMatch(/^network error: .*ECONNREFUSED/);
      expect(hits.filter((u) => u === "/redirect").length).toBeGreaterThanOrEqual(1);
    } finally {
      odd.closeAllConnections();
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });

  it("C: 410 Gone disables the subscription with a reason; later events are not delivered; rotating re-enables", async () => {
    const w = await makeWorkspace(owner.token, "scenario C");
    await drainOutbox();
    let gone = true;
    const receiver = await startReceiver(() => (gone ? 410 : 200));
    const sub = await subscribe(w.id, receiver, ["*"]);

    await setPlan(w.id, "team");
    const getSub = async () => (await api("GET", `${subsPath(w.id)}/${sub.id}`, { token: owner.token })).json as TJson;
    await pumpUntil("the subscription to be disabled", async () => (await getSub()).status === "disabled");
    const disabled = expectShape(Subscription, await getSub());
    expect(disabled.disabled_reason).toMatch(/410/);
    expect(receiver.requests.map((r) => r.status)).toEqual([410]);
    const [d] = await deliveriesOf(w.id, sub.id);
    expect(d!.status).toBe("failed");
    expect(d!.attempt_count).toBe(1);
    expect(d!.attempts.map((a) => a.status_code)).toEqual([410]);

    // Later events: dispatched, but no delivery is created for a disabled subscription.
    const later = await setBudget(w.id, 5);
    await drainOutbox();
    const laterEvent = await db().outboxEvent.findFirstOrThrow({
      where: { workspaceId: w.id, correlationId: later.headers.get("x-correlation-id")! },
    });
    expect(laterEvent.dispatchedAt).not.toBeNull();
    expect(await db().webhookDelivery.count({ where: { subscriptionId: sub.id } })).toBe(1);
    await deliverDue();
    await deliverDue();
    expect(receiver.requests).toHaveLength(1);

    // Rotating the secret re-enables it; the next event is delivered again.
    const rotated = await api("POST", `${subsPath(w.id)}/${sub.id}:rotate-secret`, { token: owner.token });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.json.status).toBe("active");
    expect(rotated.json.disabled_reason).toBeNull();
    receiver.secret = rotated.json.secret;
    gone = false;
    await setPlan(w.id, "enterprise");
    await pumpUntil("delivery after re-enabling", () => receiver.accepted.size === 1);
    const [only] = [...receiver.accepted.values()];
    expect(only!.event.type).toBe("plan.changed");
    expect(only!.event.data).toMatchObject({ to: "enterprise" });
  });

  it("D: event type filters: plan.changed does not get budget.changed; * gets everything of its workspace only", async () => {
    const w = await makeWorkspace(owner.token, "scenario D");
    const elsewhere = await makeWorkspace(owner.token, "scenario D elsewhere");
    await drainOutbox();
    const planOnly = await startReceiver();
    const budgetOnly = await startReceiver();
    const everything = await startReceiver();
    const foreign = await startReceiver();
    await subscribe(w.id, planOnly, ["plan.changed"]);
    await subscribe(w.id, budgetOnly, ["budget.changed", "member.role_changed"]);
    await subscribe(w.id, everything, ["*"]);
    await subscribe(elsewhere.id, foreign, ["*"]);

    const plan = await setPlan(w.id, "team");
    const budget = await setBudget(w.id, 42, "runtime");
    const member = await putMember(w.id, developer.userId, "viewer");
    expect(member.status, member.text).toBe(200);
    const corr = (r: { headers: Headers }) => r.headers.get("x-correlation-id")!;

    await pumpUntil(
      "all fan-out deliveries",
      () => everything.accepted.size === 3 && planOnly.accepted.size === 1 && budgetOnly.accepted.size === 1,
    );
    await drainOutbox();
    await pumpUntil(
      "no pending deliveries",
      async () =>
        (await db().webhookDelivery.count({
          where: { workspaceId: { in: [w.id, elsewhere.id] }, status: "pending" },
        })) === 0,
    );

    const types = (r: TReceiver) => [...r.accepted.values()].map((a) => a.event.type).sort();
    expect(types(planOnly)).toEqual(["plan.changed"]);
    expect(types(budgetOnly)).toEqual(["budget.changed"]);
    expect(types(everything)).toEqual(["budget.changed", "member.upserted", "plan.changed"]);
    expect(foreign.requests).toHaveLength(0);
    for (const r of [planOnly, budgetOnly, everything]) {
      expect(r.requests.every((q) => q.verified && q.status === 200)).toBe(true);
      for (const [id, a] of r.accepted) {
        expect(a.times).toBe(1);
        const expectedCorr = {
          "plan.changed": corr(plan),
          "budget.changed": corr(budget),
          "member.upserted": corr(member),
        }[a.event.type as string];
        expectCloudEvent(a.event, { type: a.event.type, ws: w.id, webhookId: id, correlationId: expectedCorr });
      }
    }
    // One event, one id: the same event reaches two subscriptions with the same webhook-id.
    const planId = [...planOnly.accepted.keys()][0]!;
    expect(everything.accepted.has(planId)).toBe(true);
  });

  it("a subscription gets only events written after it was created, however late dispatch runs", async () => {
    // workspace.created is still undispatched when the subscription is made (nothing pumps in between).
    const w = await makeWorkspace(owner.token, "late dispatch");
    const before = await db().outboxEvent.findFirstOrThrow({ where: { workspaceId: w.id, type: "workspace.created" } });
    expect(before.dispatchedAt).toBeNull();
    const receiver = await startReceiver();
    const sub = await subscribe(w.id, receiver, ["*"]);
    await setPlan(w.id, "team");

    await pumpUntil("plan.changed", () => receiver.accepted.size >= 1);
    await drainOutbox();
    await pumpUntil(
      "nothing pending",
      async () => (await db().webhookDelivery.count({ where: { subscriptionId: sub.id, status: "pending" } })) === 0,
    );
    expect([...receiver.accepted.values()].map((a) => a.event.type)).toEqual(["plan.changed"]);
    expect(await db().webhookDelivery.count({ where: { eventId: before.id } })).toBe(0);
  });

  it("a receiver with the wrong secret rejects (401): after a rotation without overlap only the new secret verifies", async () => {
    const w = await makeWorkspace(owner.token, "signature check");
    const receiver = await startReceiver();
    const sub = await subscribe(w.id, receiver, ["budget.changed"]);
    // Overlap 0: the old secret stops signing at once (test/rotation.int.test.ts covers the default overlap).
    const rotated = await api("POST", `${subsPath(w.id)}/${sub.id}:rotate-secret`, {
      token: owner.token,
      body: { previous_secret_expires_in: 0 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = rotated.json.secret as string;

    await setBudget(w.id, 7);
    await pumpUntil("the first attempt", () => receiver.requests.length >= 1);
    const first = receiver.requests[0]!;
    expect(first.status).toBe(401);
    expect(first.verified).toBe(false);
    expect(verifyStandardWebhook(newSecret, first.webhookId, first.timestamp, first.rawBody, first.signature)).toBe(
      true,
    );
    // A tampered body fails with the right secret too.
    expect(
      verifyStandardWebhook(
        newSecret,
        first.webhookId,
        first.timestamp,
        first.rawBody.replace("7", "8"),
        first.signature,
      ),
    ).toBe(false);

    receiver.secret = newSecret;
    await pumpUntil("the retry", () => receiver.accepted.size === 1);
    const [d] = await deliveriesOf(w.id, sub.id);
    expect(d!.attempts.map((a) => a.status_code)).toEqual([401, 200]);
    expect(d!.status).toBe("delivered");
  });

  it("events are written in the change's transaction: a change that fails writes no outbox row", async () => {
    const w = await makeWorkspace(owner.token, "transactional outbox");
    const count = () => db().outboxEvent.count({ where: { workspaceId: w.id } });
    const before = await count();
    expect(before).toBe(1); // workspace.created

    const budgetPath = `/v1/workspaces/${w.id}/budgets/ai_tokens`;
    expectProblem(
      await api("PUT", budgetPath, { token: owner.token, body: { limit_units: -1 } }),
      422,
      "validation_failed",
    );
    expectProblem(
      await api("PUT", budgetPath, { token: owner.token, body: { limit_units: "lots" } }),
      422,
      "validation_failed",
    );
    expectProblem(
      await api("PUT", budgetPath, { token: owner.token, body: { limit_units: 5, extra: true } }),
      422,
      "validation_failed",
    );
    expectProblem(
      await api("PUT", `/v1/workspaces/${w.id}/plan`, { token: owner.token, body: { plan: "platinum" } }),
      422,
      "validation_failed",
    );
    const lastOwner = expectProblem(await putMember(w.id, owner.userId, "admin"), 409, "conflict");
    expect(lastOwner.reason).toBe("last_owner");
    expectProblem(await api("PUT", budgetPath, { token: developer.token, body: { limit_units: 5 } }), 403, "forbidden");
    expect(await count()).toBe(before);

    // A no-op change emits nothing; a real one exactly one event carrying the request's correlation id.
    await setPlan(w.id, "free");
    expect(await count()).toBe(before);
    const ok = await setBudget(w.id, 10);
    expect(await count()).toBe(before + 1);
    const ev = await db().outboxEvent.findFirstOrThrow({ where: { workspaceId: w.id, type: "budget.changed" } });
    expect(ev.correlationId).toBe(ok.headers.get("x-correlation-id"));
    expect(ev.data).toMatchObject({ limit_units: 10, usage_category: "ai_tokens" });
  });

  it("the envelope of a schema'd event links its JSON Schema with the version, and that URL serves it", async () => {
    const row = await db().outboxEvent.create({
      data: {
        id: newId("evt"),
        workspaceId: ws.id,
        type: "capability.contract_ready",
        version: EVENT_TYPES["capability.contract_ready"],
        source: `/v1/workspaces/${ws.id}`,
        correlationId: newId("evt"),
        data: {},
        dispatchedAt: new Date(),
      },
    });
    const ce = toCloudEvent(row);
    expect(ce.dataschema).toBeDefined();
    const url = new URL(ce.dataschema!);
    expect(url.pathname).toBe("/v1/event-schemas/capability.contract_ready");
    expect(url.searchParams.get("version")).toBe(EVENT_TYPES["capability.contract_ready"]);
    const schema = await api("GET", url.pathname + url.search);
    expect(schema.status, schema.text).toBe(200);
    expect(schema.json.$id).toBe(ce.dataschema);
  });
});
