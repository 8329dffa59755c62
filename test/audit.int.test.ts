import pg from "pg";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuditRecord } from "@/generated/prisma/client";
import { validateEventData } from "@/server/domain/events/event-schemas";
import { writeAudit, verifyAuditChain, type TAuditInput } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { emitEvent, eventSchemaUrl } from "@/server/platform/outbox";
import { createCallerFactory } from "@/server/trpc/init";
import { createContextInner } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/root";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser, type TTestWorkspace } from "./support/api";
import { testDatabaseUrl } from "./support/db";
import { expectShape, Page, Problem, zSpecId, zTimestamp, zWorkspaceRef } from "./support/spec-schemas";

/**
 * Audit records (list filters, pagination, visibility by role, tenancy,
 * tamper evidence) and correlations (event headers of one correlation).
 * Expected results are computed from the rows in the database with plain
 * JavaScript predicates, so every filter is checked for EXACTLY the rows it
 * must return: no more, no fewer, in order.
 */

// Independent of src/: the AuditRecord wire shape (spec: "not shown"; decided in audit.contract.ts).
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const AuditRecordShape = z.strictObject({
  id: zSpecId("aud"),
  workspace_id: zWorkspaceRef,
  sequence: z.number().int().min(1),
  action: z.string(),
  actor: z.strictObject({ kind: z.enum(["user", "service", "system"]), id: z.string().nullable() }),
  target: z.strictObject({ kind: z.string(), id: z.string() }).nullable(),
  correlation_id: z.string(),
  details: z.record(z.string(), z.unknown()),
  prev_hash: sha256.nullable(),
  hash: sha256,
  created_at: zTimestamp,
});
const AuditRecords = Page(AuditRecordShape);
const EventHeader = z.strictObject({
  id: zSpecId("evt"),
  type: z.string(),
  version: z.string(),
  source: z.string(),
  subject: z.string().nullable(),
  time: zTimestamp,
  workspace_id: zWorkspaceRef,
  correlation_id: z.string(),
  dataschema: z.string().nullable(),
});
const CorrelationEvents = z.strictObject({
  correlation_id: zSpecId("evt"),
  items: z.array(EventHeader),
  next_cursor: z.null(),
});

const RESTRICTED = ["billing.", "credential.", "binding.", "service_identity."];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let owner: TTestUser;
let admin: TTestUser;
let developer: TTestUser;
let viewer: TTestUser;
let outsider: TTestUser;
let ws: TTestWorkspace;
let other: TTestWorkspace;

// Seeded facts.
const U1 = newId("usr");
const U2 = newId("usr");
const SVC = newId("svc");
const DEP = newId("dep");
const CRED = newId("cred");
const C1 = newId("evt");
const C2 = newId("evt");
const C3 = newId("evt");
const C4 = newId("ctx"); // a correlation id with another prefix of spec 2.1
const seeded: Record<string, string> = {};
let t1 = ""; // created_at of the first record of the second time group
let t2 = ""; // created_at of the first record of the third time group

async function seed(name: string, input: Omit<TAuditInput, "workspaceId">): Promise<void> {
  seeded[name] = await db().$transaction((tx) => writeAudit(tx, { workspaceId: ws.id, ...input }));
}

async function rowOf(name: string): Promise<AuditRecord> {
  return db().auditRecord.findUniqueOrThrow({ where: { id: seeded[name]! } });
}

beforeAll(async () => {
  await bootApp();
  [owner, admin, developer, viewer, outsider] = await Promise.all([
    makeUser(),
    makeUser(),
    makeUser(),
    makeUser(),
    makeUser(),
  ]);
  ws = await makeWorkspace(owner.token, "audited");
  other = await makeWorkspace(outsider.token, "elsewhere");
  for (const [u, role] of [
    [admin, "admin"],
    [developer, "developer"],
    [viewer, "viewer"],
  ] as const) {
    const r = await api("PUT", `/v1/workspaces/${ws.id}/members/${u.userId}`, { token: owner.token, body: { role } });
    expect(r.status).toBe(200);
  }

  const user = (id: string) => ({ kind: "user" as const, id });
  await seed("r1", {
    actor: user(U1),
    action: "product.created",
    target: { kind: "product", id: newId("prod") },
    correlationId: C1,
    details: { name: "shop" },
  });
  await seed("r2", {
    actor: user(U1),
    action: "deployment.requested",
    target: { kind: "deployment", id: DEP },
    correlationId: C1,
  });
  await seed("r3", {
    actor: { kind: "system", id: null },
    action: "deployment.ready",
    target: { kind: "deployment", id: DEP },
    correlationId: C2,
  });
  await sleep(5);
  await seed("r4", {
    actor: user(U2),
    action: "credential.created",
    target: { kind: "credential", id: CRED },
    correlationId: C2,
    details: { provider: "openai", secret: "sk-should-be-redacted" },
  });
  await seed("r5", {
    actor: user(U2),
    action: "plan.changed",
    target: { kind: "workspace", id: ws.id },
    correlationId: C3,
    details: { from: "free", to: "team" },
  });
  await sleep(5);
  await seed("r6", {
    actor: { kind: "system", id: null },
    action: "billing.granted",
    correlationId: C3,
    details: { amount: 10 },
  });
  await seed("r7", {
    actor: { kind: "service", id: SVC },
    action: "capability.denied",
    target: { kind: "capability_invocation", id: newId("cap") },
    correlationId: C4,
  });
  await seed("r8", {
    actor: user(U1),
    action: "deployment.stopped",
    target: { kind: "deployment", id: DEP },
    correlationId: C4,
  });
  t1 = (await rowOf("r4")).createdAt.toISOString();
  t2 = (await rowOf("r6")).createdAt.toISOString();
  expect((await rowOf("r3")).createdAt.getTime()).toBeLessThan(Date.parse(t1));
  expect((await rowOf("r5")).createdAt.getTime()).toBeLessThan(Date.parse(t2));
});

type TQuery = {
  action?: string;
  actor_id?: string;
  target_id?: string;
  correlation_id?: string;
  since?: string;
  until?: string;
};

/** What the list must return for `role`, newest first: computed from the table, not from the service. */
async function expected(role: string, q: TQuery, order: "asc" | "desc" = "desc"): Promise<string[]> {
  const rows = await db().auditRecord.findMany({ where: { workspaceId: ws.id } });
  const seesAll = role === "owner" || role === "admin";
  const keep = rows.filter(
    (r) =>
      (seesAll || !RESTRICTED.some((p) => r.action.startsWith(p))) &&
      (q.action === undefined || r.action === q.action) &&
      (q.actor_id === undefined || r.actorId === q.actor_id) &&
      (q.target_id === undefined || r.targetId === q.target_id) &&
      (q.correlation_id === undefined || r.correlationId === q.correlation_id) &&
      (q.since === undefined || r.createdAt.getTime() >= Date.parse(q.since)) &&
      (q.until === undefined || r.createdAt.getTime() < Date.parse(q.until)),
  );
  keep.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = keep.map((r) => r.id);
  return order === "desc" ? ids.reverse() : ids;
}

/** Walks every page of the list; returns the ids in the order served. */
async function listAll(token: string, q: TQuery & { limit?: number; order?: "asc" | "desc" }): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const params = new URLSearchParams(
      Object.entries({ ...q, limit: q.limit ? String(q.limit) : undefined }).filter(([, v]) => v !== undefined) as [
        string,
        string,
      ][],
    );
    if (cursor) params.set("cursor", cursor);
    const r = await api("GET", `/v1/workspaces/${ws.id}/audit-records?${params}`, { token });
    expect(r.status, r.text).toBe(200);
    const body = expectShape(AuditRecords, r.json);
    if (q.limit) expect(body.items.length).toBeLessThanOrEqual(q.limit);
    for (const item of body.items) expect(item.workspace_id).toBe(ws.id);
    ids.push(...body.items.map((i) => i.id));
    cursor = body.next_cursor;
    if (!cursor) return ids;
  }
  throw new Error("more than 100 pages");
}

const tokenOf = (role: string) => ({ owner, admin, developer, viewer })[role as "owner"].token;

describe("GET /v1/workspaces/{ws}/audit-records filters", () => {
  const cases: Array<[string, () => TQuery]> = [
    ["no filter", () => ({})],
    ["action product.created", () => ({ action: "product.created" })],
    ["action deployment.requested", () => ({ action: "deployment.requested" })],
    ["action credential.created (restricted)", () => ({ action: "credential.created" })],
    ["action billing.granted (restricted)", () => ({ action: "billing.granted" })],
    ["action member.upserted (from the API calls)", () => ({ action: "member.upserted" })],
    ["action release.created (none)", () => ({ action: "release.created" })],
    ["actor U1", () => ({ actor_id: U1 })],
    ["actor U2", () => ({ actor_id: U2 })],
    ["actor service", () => ({ actor_id: SVC })],
    ["actor owner (API calls)", () => ({ actor_id: owner.userId })],
    ["actor unknown", () => ({ actor_id: newId("usr") })],
    ["target deployment", () => ({ target_id: DEP })],
    ["target credential", () => ({ target_id: CRED })],
    ["target workspace", () => ({ target_id: ws.id })],
    ["correlation C1", () => ({ correlation_id: C1 })],
    ["correlation C2", () => ({ correlation_id: C2 })],
    ["correlation C3", () => ({ correlation_id: C3 })],
    ["correlation C4 (ctx_ prefix)", () => ({ correlation_id: C4 })],
    ["since t1 (inclusive)", () => ({ since: t1 })],
    ["until t1 (exclusive)", () => ({ until: t1 })],
    ["since t1 until t2", () => ({ since: t1, until: t2 })],
    ["since = until (empty window)", () => ({ since: t1, until: t1 })],
    ["since t2", () => ({ since: t2 })],
    ["actor U1 + target deployment", () => ({ actor_id: U1, target_id: DEP })],
    ["actor U1 + target deployment + since t1", () => ({ actor_id: U1, target_id: DEP, since: t1 })],
    ["action + correlation", () => ({ action: "deployment.ready", correlation_id: C2 })],
    ["action + mismatching correlation", () => ({ action: "deployment.ready", correlation_id: C1 })],
    ["correlation C3 + until t2", () => ({ correlation_id: C3, until: t2 })],
    ["actor U2 + since t1 until t2", () => ({ actor_id: U2, since: t1, until: t2 })],
  ];

  for (const role of ["owner", "admin", "developer", "viewer"]) {
    it.each(cases)(`${role}: %s returns exactly the matching visible rows, newest first`, async (_name, query) => {
      const q = query();
      const want = await expected(role, q);
      expect(await listAll(tokenOf(role), q)).toEqual(want);
    });
  }

  it("the seeded filters are not trivial: they select proper, non-empty subsets", async () => {
    const all = await expected("owner", {});
    for (const q of [
      { actor_id: U1 },
      { target_id: DEP },
      { correlation_id: C2 },
      { since: t1 },
      { until: t1 },
      { since: t1, until: t2 },
    ]) {
      const got = await expected("owner", q);
      expect(got.length).toBeGreaterThan(0);
      expect(got.length).toBeLessThan(all.length);
    }
    expect(await expected("owner", { actor_id: U1, target_id: DEP })).toEqual([seeded.r8, seeded.r2].filter(Boolean));
    expect(await expected("owner", { since: t1, until: t2 })).toHaveLength(2);
  });

  it("pages through filtered results in both orders without gaps or duplicates", async () => {
    for (const q of [{}, { target_id: DEP }, { since: t1 }, { actor_id: U1 }] as TQuery[]) {
      for (const order of ["asc", "desc"] as const) {
        const want = await expected("owner", q, order);
        for (const limit of [1, 2, 3]) {
          const got = await listAll(owner.token, { ...q, order, limit });
          expect(got).toEqual(want);
        }
      }
    }
  });

  it("a viewer's pages skip restricted records too", async () => {
    expect(await listAll(viewer.token, { limit: 1, since: t1 })).toEqual(await expected("viewer", { since: t1 }));
    const all = await listAll(viewer.token, { limit: 2 });
    expect(all).not.toContain(seeded.r4);
    expect(all).not.toContain(seeded.r6);
  });

  it("serves records with the documented shape and a consistent hash chain", async () => {
    const r = await api("GET", `/v1/workspaces/${ws.id}/audit-records?limit=200&order=asc`, { token: owner.token });
    expect(r.status).toBe(200);
    const items = expectShape(AuditRecords, r.json).items.sort((a, b) => a.sequence - b.sequence);
    items.forEach((item, i) => {
      expect(item.sequence).toBe(i + 1);
      expect(item.prev_hash).toBe(i === 0 ? null : items[i - 1]!.hash);
    });
    const r4 = items.find((i) => i.id === seeded.r4)!;
    expect(r4).toMatchObject({
      action: "credential.created",
      actor: { kind: "user", id: U2 },
      target: { kind: "credential", id: CRED },
      correlation_id: C2,
    });
    expect(JSON.stringify(r4.details)).not.toContain("sk-should-be-redacted");
    const r6 = items.find((i) => i.id === seeded.r6)!;
    expect(r6.target).toBeNull();
    expect(r6.actor).toEqual({ kind: "system", id: null });
  });
});

describe("bad audit list queries are 400 problems", () => {
  const bad: Array<[string, string]> = [
    ["unknown action", "action=not.an.action"],
    ["empty action", "action="],
    ["since on 2023-02-29", "since=2023-02-29T00:00:00Z"],
    ["since without Z", "since=2024-01-01T00:00:00"],
    ["until with an offset", "until=2024-01-01T00:00:00%2B01:00"],
    ["correlation id with an unknown prefix", `correlation_id=zzz_${newId("evt").slice(4)}`],
    ["correlation id that is not an id", "correlation_id=hello"],
    ["since after until", "since=2024-01-02T00:00:00Z&until=2024-01-01T00:00:00Z"],
    ["limit 0", "limit=0"],
    ["limit 201", "limit=201"],
    ["order sideways", "order=sideways"],
    ["cursor over 512 chars", `cursor=${"a".repeat(513)}`],
    ["garbage cursor", "cursor=not-a-cursor"],
  ];
  it.each(bad)("%s", async (_name, query) => {
    const r = await api("GET", `/v1/workspaces/${ws.id}/audit-records?${query}`, { token: owner.token });
    expect(r.status, r.text).toBe(400);
    expect(r.headers.get("content-type")).toContain("application/problem+json");
    expectShape(Problem, r.json);
  });

  it("a cursor issued for one order is refused for the other", async () => {
    const first = await api("GET", `/v1/workspaces/${ws.id}/audit-records?limit=1&order=asc`, { token: owner.token });
    const cursor = first.json.next_cursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(
      (
        await api("GET", `/v1/workspaces/${ws.id}/audit-records?limit=1&order=desc&cursor=${cursor}`, {
          token: owner.token,
        })
      ).status,
    ).toBe(400);
  });
});

describe("GET /v1/workspaces/{ws}/audit-records/{aud} and visibility", () => {
  it("a viewer and a developer do not see a credential.created record; owner and admin do", async () => {
    for (const u of [viewer, developer]) {
      const list = await listAll(u.token, { action: "credential.created" });
      expect(list).toEqual([]);
      const r = await api("GET", `/v1/workspaces/${ws.id}/audit-records/${seeded.r4}`, { token: u.token });
      expect(r.status).toBe(404);
      expectShape(Problem, r.json);
      expect((await api("GET", `/v1/workspaces/${ws.id}/audit-records/${seeded.r6}`, { token: u.token })).status).toBe(
        404,
      );
    }
    for (const u of [owner, admin]) {
      expect(await listAll(u.token, { action: "credential.created" })).toEqual([seeded.r4]);
      const r = await api("GET", `/v1/workspaces/${ws.id}/audit-records/${seeded.r4}`, { token: u.token });
      expect(r.status).toBe(200);
      expect(expectShape(AuditRecordShape, r.json)).toMatchObject({ id: seeded.r4, action: "credential.created" });
    }
  });

  it("any member reads an unrestricted record, identical to its list item", async () => {
    const list = await api("GET", `/v1/workspaces/${ws.id}/audit-records?correlation_id=${C1}`, {
      token: viewer.token,
    });
    for (const u of [viewer, developer, admin, owner]) {
      const r = await api("GET", `/v1/workspaces/${ws.id}/audit-records/${seeded.r1}`, { token: u.token });
      expect(r.status).toBe(200);
      expect(r.json).toEqual(list.json.items.find((i: { id: string }) => i.id === seeded.r1));
    }
  });

  it("another workspace's record is a 404, an unknown one too, a malformed id a 400", async () => {
    const foreign = await db().auditRecord.findFirstOrThrow({ where: { workspaceId: other.id } });
    const r = await api("GET", `/v1/workspaces/${ws.id}/audit-records/${foreign.id}`, { token: owner.token });
    expect(r.status).toBe(404);
    expectShape(Problem, r.json);
    expect(
      (await api("GET", `/v1/workspaces/${ws.id}/audit-records/${newId("aud")}`, { token: owner.token })).status,
    ).toBe(404);
    expect(
      (await api("GET", `/v1/workspaces/${ws.id}/audit-records/${newId("evt")}`, { token: owner.token })).status,
    ).toBe(400);
    expect((await api("GET", `/v1/workspaces/${ws.id}/audit-records/aud_nope`, { token: owner.token })).status).toBe(
      400,
    );
  });

  it("a non-member gets 403 on the list and on a record; no token gets 401", async () => {
    for (const path of [
      `/v1/workspaces/${ws.id}/audit-records`,
      `/v1/workspaces/${ws.id}/audit-records/${seeded.r1}`,
    ]) {
      const r = await api("GET", path, { token: outsider.token });
      expect(r.status).toBe(403);
      expectShape(Problem, r.json);
      const anon = await api("GET", path);
      expect(anon.status).toBe(401);
      expect(anon.headers.get("www-authenticate")).toMatch(/^Bearer realm="capstan", error="invalid_token"/);
    }
  });
});

describe("hash chain verification", () => {
  async function caller(user: TTestUser) {
    const ctx = createContextInner({
      correlationId: newId("evt"),
      transport: "trpc",
      request: { method: "GET", path: "/api/trpc/audit.verify" },
      principal: { kind: "user", userId: user.userId, via: { kind: "session" } },
    });
    return createCallerFactory(appRouter)(ctx);
  }

  /** Changes a record behind the application's back, as a database superuser would. */
  async function tamper(id: string, details: object): Promise<void> {
    const sql = [
      "ALTER TABLE audit_records DISABLE TRIGGER audit_records_no_update_delete",
      `UPDATE audit_records SET details = '${JSON.stringify(details).replace(/'/g, "''")}'::jsonb WHERE id = '${id}'`,
      "ALTER TABLE audit_records ENABLE TRIGGER audit_records_no_update_delete",
    ];
    const url = testDatabaseUrl();
    if (url) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query("BEGIN");
        for (const s of sql) await client.query(s);
        await client.query("COMMIT");
      } finally {
        await client.end();
      }
    } else {
      await db().$transaction(async (tx) => {
        for (const s of sql) await tx.$executeRawUnsafe(s);
      });
    }
  }

  it("the application cannot change or delete a record", async () => {
    await expect(db().auditRecord.update({ where: { id: seeded.r1! }, data: { details: {} } })).rejects.toThrow(
      /append-only/,
    );
    await expect(db().auditRecord.delete({ where: { id: seeded.r1! } })).rejects.toThrow(/append-only/);
  });

  it("an untampered chain verifies; a changed record is reported as the break", async () => {
    const w = await makeWorkspace(owner.token, "chain");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        await db().$transaction((tx) =>
          writeAudit(tx, {
            workspaceId: w.id,
            actor: { kind: "user", id: owner.userId },
            action: "budget.changed",
            correlationId: newId("evt"),
            details: { i },
          }),
        ),
      );
    }
    expect(await verifyAuditChain(w.id)).toEqual({ ok: true, brokenAt: null, count: 6 });
    expect(await (await caller(owner)).audit.verify({ ws: w.id })).toEqual({ ok: true, broken_at: null, count: 6 });

    await tamper(ids[2]!, { i: 99 });
    expect((await db().auditRecord.findUniqueOrThrow({ where: { id: ids[2]! } })).details).toEqual({ i: 99 });
    expect(await verifyAuditChain(w.id)).toEqual({ ok: false, brokenAt: ids[2], count: 6 });
    expect(await (await caller(owner)).audit.verify({ ws: w.id })).toEqual({ ok: false, broken_at: ids[2], count: 6 });
    // The trigger is back: the application still cannot change records.
    await expect(db().auditRecord.update({ where: { id: ids[3]! }, data: { details: {} } })).rejects.toThrow(
      /append-only/,
    );
  });

  it("audit.verify needs owner or admin", async () => {
    expect((await (await caller(admin)).audit.verify({ ws: ws.id })).ok).toBe(true);
    for (const u of [developer, viewer, outsider]) {
      await expect((await caller(u)).audit.verify({ ws: ws.id })).rejects.toThrow(/role|member/);
    }
  });
});

describe("GET /v1/workspaces/{ws}/correlations/{evt}/events", () => {
  const C = newId("evt");
  const OTHER = newId("evt");
  let emitted: string[] = [];

  beforeAll(async () => {
    const contract = {
      product_id: newId("prod"),
      revision_id: newId("rev"),
      workspace_id: ws.id,
      capabilities: [],
      contract_hash: "0".repeat(64),
      confirmed_at: new Date().toISOString(),
    };
    const first = await db().$transaction(async (tx) => [
      await emitEvent(tx, {
        workspaceId: ws.id,
        type: "product.created",
        correlationId: C,
        subject: "prod_x",
        data: { secret_marker: "data-1" },
      }),
      await emitEvent(tx, {
        workspaceId: ws.id,
        type: "capability.contract_ready",
        correlationId: C,
        subject: contract.revision_id,
        data: contract,
      }),
    ]);
    await sleep(5);
    const second = await db().$transaction(async (tx) => {
      const id = await emitEvent(tx, {
        workspaceId: ws.id,
        type: "plan.changed",
        correlationId: C,
        data: { secret_marker: "data-3" },
      });
      await emitEvent(tx, { workspaceId: ws.id, type: "plan.changed", correlationId: OTHER, data: {} });
      await emitEvent(tx, { workspaceId: other.id, type: "plan.changed", correlationId: C, data: {} });
      return id;
    });
    // Within one millisecond the order is (created_at, id); across transactions it is chronological.
    emitted = [...first.sort(), second];
  });

  it("returns exactly the workspace's events of that correlation, in order, headers only", async () => {
    for (const u of [viewer, owner]) {
      const r = await api("GET", `/v1/workspaces/${ws.id}/correlations/${C}/events`, { token: u.token });
      expect(r.status, r.text).toBe(200);
      const body = expectShape(CorrelationEvents, r.json);
      expect(body.correlation_id).toBe(C);
      const rows = await db().outboxEvent.findMany({
        where: { workspaceId: ws.id, correlationId: C },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      expect(body.items.map((i) => i.id)).toEqual(rows.map((x) => x.id));
      expect(new Set(body.items.map((i) => i.id))).toEqual(new Set(emitted));
      expect(body.items.map((i) => i.id).at(-1)).toBe(emitted.at(-1));
      expect(r.text).not.toContain("secret_marker");
      for (const item of body.items) {
        expect(item).not.toHaveProperty("data");
        expect(item.workspace_id).toBe(ws.id);
        expect(item.correlation_id).toBe(C);
      }
      const ready = body.items.find((i) => i.type === "capability.contract_ready")!;
      expect(ready).toMatchObject({
        version: "1.2.0",
        dataschema: eventSchemaUrl("capability.contract_ready", "1.2.0"),
      });
      expect(body.items.find((i) => i.type === "product.created")).toMatchObject({
        subject: "prod_x",
        dataschema: null,
      });
    }
  });

  it("the capability events emitted here carry valid data", async () => {
    const rows = await db().outboxEvent.findMany({ where: { workspaceId: ws.id } });
    for (const row of rows) expect(validateEventData(row.type, row.data, row.version)).toEqual([]);
  });

  it("an unknown correlation is an empty list; a non-evt id is a 400; a non-member a 403", async () => {
    const unknown = newId("evt");
    const r = await api("GET", `/v1/workspaces/${ws.id}/correlations/${unknown}/events`, { token: viewer.token });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ correlation_id: unknown, items: [], next_cursor: null });
    for (const bad of [newId("aud"), "evt_nope", "hello"]) {
      const b = await api("GET", `/v1/workspaces/${ws.id}/correlations/${bad}/events`, { token: viewer.token });
      expect(b.status).toBe(400);
      expectShape(Problem, b.json);
    }
    expect(
      (await api("GET", `/v1/workspaces/${ws.id}/correlations/${C}/events`, { token: outsider.token })).status,
    ).toBe(403);
    // The other workspace sees only its own event of the same correlation.
    const o = await api("GET", `/v1/workspaces/${other.id}/correlations/${C}/events`, { token: outsider.token });
    expect(o.json.items).toHaveLength(1);
  });
});

describe("GET /v1/event-schemas/{type}", () => {
  it("serves the JSON Schema without authentication", async () => {
    for (const [type, version] of [
      ["capability.contract_ready", "1.2.0"],
      ["capability.invocation_requested", "1.4.0"],
      ["capability.invocation_resulted", "1.1.0"],
    ]) {
      for (const q of ["", `?version=${version}`]) {
        const r = await api("GET", `/v1/event-schemas/${type}${q}`);
        expect(r.status, r.text).toBe(200);
        expect(r.json).toMatchObject({
          $schema: "https://json-schema.org/draft/2020-12/schema",
          $id: eventSchemaUrl(type!, version!),
          type: "object",
        });
      }
    }
  });

  it("404s an unknown type or another version, 400s a malformed version", async () => {
    for (const path of [
      "/v1/event-schemas/capability.nope",
      "/v1/event-schemas/workspace.created",
      "/v1/event-schemas/capability.contract_ready?version=1.1.0",
    ]) {
      const r = await api("GET", path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expectShape(Problem, r.json);
    }
    expect((await api("GET", "/v1/event-schemas/capability.contract_ready?version=latest")).status).toBe(400);
  });
});
