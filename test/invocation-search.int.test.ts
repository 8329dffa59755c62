import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listCapabilityCalls } from "@/server/domain/capabilities/capability-calls.service";
import { authenticateRequest } from "@/server/domain/identity/authenticate";
import { openApiJson } from "@/server/http/openapi";
import { handleTrpc } from "@/server/http/trpc-handler";
import { db } from "@/server/platform/db/client";
import type { AppRouter } from "@/server/trpc/root";
import { api, makeUser, type TTestUser } from "./support/api";
import {
  bootBridgeApp,
  bridge,
  kvCapability,
  makeServiceIdentity,
  bridgeToken,
  setupBridge,
  type TBridgeSetup,
} from "./support/bridge-fixtures";

/**
 * The console's search of Bridge calls (#21 item 4): reason, service identity
 * and a [since, until) window on top of the REST list's filters, over real
 * Bridge calls; through the console's tRPC transport over real HTTP, where
 * another workspace's member gets nothing, and REST keeps only the spec's
 * parameters.
 */
let server: http.Server;
let base: string;
let a: TBridgeSetup;
let b: TBridgeSetup;
let stranger: TTestUser;
let second: { id: string; token: string };
let ids: { completed: string; outside: string; secondCall: string };

const client = (token: string) =>
  createTRPCClient<AppRouter>({ links: [httpLink({ url: base, headers: { authorization: `Bearer ${token}` } })] });

beforeAll(async () => {
  await bootBridgeApp();
  server = http.createServer((req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body:
        req.method !== "GET" && req.method !== "HEAD" ? (Readable.toWeb(req) as unknown as ReadableStream) : undefined,
      duplex: "half",
    } as RequestInit);
    void handleTrpc(request, async () => (await authenticateRequest(headers.get("authorization"))).principal).then(
      async (r) => {
        res.writeHead(r.status, Object.fromEntries(r.headers));
        res.end(Buffer.from(await r.arrayBuffer()));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/trpc`;

  a = await setupBridge({ capabilities: [kvCapability()] });
  b = await setupBridge({ capabilities: [kvCapability()] });
  stranger = await makeUser();
  const svc2 = await makeServiceIdentity(a.owner, a.ws, a.productId);
  second = { id: svc2.id, token: await bridgeToken(svc2.id, svc2.secret) };

  const done = await bridge(a.token, "data.kv", "set", { key: "/app/x", value: 1 });
  expect(done.status, done.text).toBe(200);
  const outside = await bridge(a.token, "data.kv", "get", { key: "/elsewhere" });
  expect(outside.status, outside.text).toBe(403);
  const bySecond = await bridge(second.token, "data.kv", "get", { key: "/app/x" });
  expect(bySecond.status, bySecond.text).toBe(200);
  // Workspace B has a denied call of the same reason: never in A's answers.
  expect((await bridge(b.token, "data.kv", "get", { key: "/elsewhere" })).status).toBe(403);
  const rows = await db().capabilityInvocation.findMany({
    where: { workspaceId: a.ws },
    orderBy: { createdAt: "asc" },
  });
  expect(rows).toHaveLength(3);
  ids = { completed: rows[0]!.id, outside: rows[1]!.id, secondCall: rows[2]!.id };
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const idsOf = (page: { items: { id: string }[] }) => page.items.map((i) => i.id).sort();

describe("invocations.search (the Bridge call log)", () => {
  it("filters by reason, by service identity and combines them with outcome", async () => {
    const t = client(a.owner.token);
    expect(idsOf(await t.invocations.search.query({ ws: a.ws, reason: "outside_contract" }))).toEqual([ids.outside]);
    expect(idsOf(await t.invocations.search.query({ ws: a.ws, reason: "usage_denied" }))).toEqual([]);
    expect(idsOf(await t.invocations.search.query({ ws: a.ws, service_identity_id: second.id }))).toEqual([
      ids.secondCall,
    ]);
    expect(idsOf(await t.invocations.search.query({ ws: a.ws, service_identity_id: a.svc.id }))).toEqual(
      [ids.completed, ids.outside].sort(),
    );
    expect(
      idsOf(await t.invocations.search.query({ ws: a.ws, service_identity_id: a.svc.id, outcome: "completed" })),
    ).toEqual([ids.completed]);
    expect(
      idsOf(
        await t.invocations.search.query({
          ws: a.ws,
          product_id: a.productId,
          reason: "outside_contract",
          capability: "data.kv",
        }),
      ),
    ).toEqual([ids.outside]);
  });

  it("windows by [since, until): since inclusive, until exclusive", async () => {
    const rows = await db().capabilityInvocation.findMany({
      where: { workspaceId: a.ws },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const first = rows[0]!.createdAt.toISOString();
    const last = rows[2]!.createdAt.toISOString();
    const t = client(a.owner.token);
    expect(idsOf(await t.invocations.search.query({ ws: a.ws, since: first }))).toHaveLength(3);
    const untilLast = await t.invocations.search.query({ ws: a.ws, until: last });
    expect(untilLast.items.every((i) => i.created_at < last)).toBe(true);
    expect(untilLast.items.map((i) => i.id)).not.toContain(ids.secondCall);
    expect(idsOf(await t.invocations.search.query({ ws: a.ws, since: last, until: last }))).toEqual([]);
    expect(
      idsOf(
        await t.invocations.search.query({ ws: a.ws, since: "2000-01-01T00:00:00Z", until: "2000-01-02T00:00:00Z" }),
      ),
    ).toEqual([]);
  });

  it("pages through a filtered result with the cursor", async () => {
    const t = client(a.owner.token);
    const p1 = await t.invocations.search.query({ ws: a.ws, outcome: "completed", limit: 1 });
    expect(p1.items).toHaveLength(1);
    expect(p1.next_cursor).not.toBeNull();
    const p2 = await t.invocations.search.query({ ws: a.ws, outcome: "completed", limit: 1, cursor: p1.next_cursor! });
    expect(p2.items).toHaveLength(1);
    expect(p2.next_cursor).toBeNull();
    expect([p1.items[0]!.id, p2.items[0]!.id].sort()).toEqual([ids.completed, ids.secondCall].sort());
  });

  it("refuses a window that ends before it starts, and malformed filters, with 400/422 problems", async () => {
    const t = client(a.owner.token);
    const err = await t.invocations.search
      .query({ ws: a.ws, since: "2026-02-01T00:00:00Z", until: "2026-01-01T00:00:00Z" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<AppRouter>).data?.httpStatus).toBe(400);
    await expect(
      listCapabilityCalls(a.ws, {
        limit: 50,
        order: "desc",
        since: "2026-02-01T00:00:00Z",
        until: "2026-01-01T00:00:00Z",
      }),
    ).rejects.toMatchObject({ code: "bad_request" });
    for (const bad of [{ reason: "nope" }, { service_identity_id: "usr_x" }, { since: "yesterday" }]) {
      const e = await t.invocations.search.query({ ws: a.ws, ...(bad as object) }).catch((x: unknown) => x);
      expect(e, JSON.stringify(bad)).toBeInstanceOf(TRPCClientError);
      expect([400, 422]).toContain((e as TRPCClientError<AppRouter>).data?.httpStatus);
    }
  });

  it("cross-workspace: another workspace's filters find none of A's calls, and a stranger is refused A's search", async () => {
    // B's owner searching B with A's service identity id and A's product id: nothing.
    const tb = client(b.owner.token);
    expect(idsOf(await tb.invocations.search.query({ ws: b.ws, service_identity_id: a.svc.id }))).toEqual([]);
    expect(idsOf(await tb.invocations.search.query({ ws: b.ws, product_id: a.productId }))).toEqual([]);
    const mine = await tb.invocations.search.query({ ws: b.ws, reason: "outside_contract" });
    expect(mine.items).toHaveLength(1);
    expect(mine.items[0]!.workspace_id).toBe(b.ws);
    // B's owner and a user with no workspace cannot search A.
    for (const token of [b.owner.token, stranger.token]) {
      const e = await client(token)
        .invocations.search.query({ ws: a.ws, reason: "outside_contract" })
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(TRPCClientError);
      expect([403, 404]).toContain((e as TRPCClientError<AppRouter>).data?.httpStatus);
    }
    // And A's drill-down read of one of B's calls is a 404.
    const bCall = mine.items[0]!.id;
    const e = await client(a.owner.token)
      .invocations.get.query({ ws: a.ws, cap: bCall })
      .catch((x: unknown) => x);
    expect((e as TRPCClientError<AppRouter>).data?.httpStatus).toBe(404);
  });

  it("REST keeps the spec's parameters: the list answers, and a console-only filter is not a REST parameter", async () => {
    const r = await api("GET", `/v1/workspaces/${a.ws}/capability-invocations?outcome=denied`, {
      token: a.owner.token,
    });
    expect(r.status, r.text).toBe(200);
    expect((r.json as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([ids.outside]);
    const doc = JSON.parse(openApiJson()) as unknown;
    const op = (doc as { paths: Record<string, { get?: { parameters?: { name: string }[] } }> }).paths[
      "/v1/workspaces/{ws}/capability-invocations"
    ]!.get!;
    const names = (op.parameters ?? []).map((p) => p.name);
    for (const p of ["reason", "service_identity_id", "since", "until"]) expect(names).not.toContain(p);
  });
});
