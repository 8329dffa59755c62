import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { authenticateBridgeToken } from "@/server/domain/service-identities/bridge-token.service";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { handleOAuthToken } from "./support/handlers";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser, type TTestWorkspace } from "./support/api";
import {
  CORRELATION_ID_RE,
  expectShape,
  Page,
  Problem,
  zSpecId,
  zTimestamp,
  zWorkspaceRef,
} from "./support/spec-schemas";

/**
 * Service identities through the real /v1 REST boundary: workspace and
 * platform routes, validation, Idempotency-Key replays (no secret), roles,
 * cross-workspace 404s, secret rotation and revocation, and their effect on
 * the token endpoint and on authenticateBridgeToken (the Bridge's check).
 */
process.env.OIDC_ALLOW_INSECURE_ISSUER = "1";

// The shapes as docs/decisions.md defines them (spec: "not shown"), written here, not imported from src.
const Identity = z.strictObject({
  id: zSpecId("svc"),
  workspace_id: zWorkspaceRef,
  kind: z.enum(["workspace", "platform"]),
  name: z.string(),
  product_id: zSpecId("prod").nullable(),
  environment_type: z.enum(["preview", "staging", "production"]).nullable(),
  federation: z.strictObject({ issuer: z.string(), subject: z.string(), audience: z.string() }).nullable(),
  permissions: z.array(z.string().regex(/^(ai\.generate|storage\.object|data\.kv|email\.send):[a-z*]+$/)).nullable(),
  client_id: zSpecId("svc"),
  status: z.enum(["active", "revoked"]),
  secret_rotated_at: zTimestamp.nullable(),
  previous_secret_expires_at: zTimestamp.nullable(),
  revoked_at: zTimestamp.nullable(),
  last_token_at: zTimestamp.nullable(),
  created_at: zTimestamp,
  updated_at: zTimestamp,
});
const Created = Identity.extend({ client_secret: z.string().regex(/^cssec_[A-Za-z0-9_-]{43}$/) });

let owner: TTestUser;
let ws: TTestWorkspace;
let prod: string;
let platformToken: string;
let platformProd: string;

async function makeProduct(workspaceId: string, userId: string): Promise<string> {
  const id = newId("prod");
  await db().product.create({
    data: {
      id,
      name: id,
      workspaceId,
      inputRevisionId: newId("rev"),
      repoUrl: "https://example.com/shop.git",
      ref: "main",
      createdBy: userId,
    },
  });
  return id;
}

async function member(wsId: string, ownerToken: string, role: string): Promise<TTestUser> {
  const u = await makeUser();
  const r = await api("PUT", `/v1/workspaces/${wsId}/members/${u.userId}`, { token: ownerToken, body: { role } });
  expect(r.status, r.text).toBe(200);
  return u;
}

async function createWs(
  body: Record<string, unknown>,
  token = owner.token,
  wsId = ws.id,
  headers: Record<string, string> = {},
) {
  return api("POST", `/v1/workspaces/${wsId}/service-identities`, { token, body, headers });
}

async function tokenFor(clientId: string, secret: string) {
  const res = await handleOAuthToken(
    new Request("http://localhost:3000/v1/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: secret,
      }).toString(),
    }),
  );
  return { status: res.status, json: (await res.json()) as Record<string, string> };
}

const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const count = () => db().serviceIdentity.count();

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  ws = await makeWorkspace(owner.token);
  prod = await makeProduct(ws.id, owner.userId);
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  platformProd = await makeProduct("ws_platform", owner.userId);
});

describe("workspace service identities", () => {
  it("creates one (201): the secret once, its sha256 stored, audit and event stamped with the correlation id", async () => {
    const corr = newId("evt");
    const r = await createWs(
      {
        name: "ci deploy",
        product_id: prod,
        environment_type: "staging",
        federation: {
          issuer: "https://token.actions.githubusercontent.com",
          subject: "repo:acme/shop:ref:refs/heads/main",
          audience: "capstan",
        },
      },
      owner.token,
      ws.id,
      { "x-correlation-id": corr },
    );
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get("x-correlation-id")).toBe(corr);
    const si = expectShape(Created, r.json);
    expect(si).toMatchObject({
      workspace_id: ws.id,
      kind: "workspace",
      name: "ci deploy",
      product_id: prod,
      environment_type: "staging",
      status: "active",
      client_id: si.id,
      last_token_at: null,
      revoked_at: null,
    });
    expect(si.federation?.subject).toBe("repo:acme/shop:ref:refs/heads/main");
    const row = await db().serviceIdentity.findUnique({ where: { id: si.id }, omit: { secretHash: false } });
    expect(row?.secretHash).toBe(sha256(si.client_secret));
    const audit = await db().auditRecord.findMany({
      where: { workspaceId: ws.id, action: "service_identity.created", targetId: si.id },
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.correlationId).toBe(corr);
    expect(json(audit)).not.toContain(si.client_secret);
    const events = await db().outboxEvent.findMany({ where: { type: "service_identity.changed", subject: si.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ workspaceId: ws.id, correlationId: corr });
    expect(events[0]!.data).toMatchObject({ change: "created", service_identity_id: si.id, status: "active" });
  });

  it("lists (paginated) and gets metadata only", async () => {
    const a = expectShape(Created, (await createWs({ name: "a", product_id: prod })).json);
    const b = expectShape(Created, (await createWs({ name: "b", product_id: prod })).json);
    const p1 = await api("GET", `/v1/workspaces/${ws.id}/service-identities?limit=1`, { token: owner.token });
    expect(p1.status, p1.text).toBe(200);
    const page1 = expectShape(Page(Identity), p1.json);
    expect(page1.items.map((i) => i.id)).toEqual([b.id]);
    const p2 = await api("GET", `/v1/workspaces/${ws.id}/service-identities?limit=1&cursor=${page1.next_cursor}`, {
      token: owner.token,
    });
    expect(expectShape(Page(Identity), p2.json).items.map((i) => i.id)).toEqual([a.id]);
    const one = await api("GET", `/v1/workspaces/${ws.id}/service-identities/${a.id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(expectShape(Identity, one.json)).toMatchObject({
      id: a.id,
      name: "a",
      environment_type: null,
      federation: null,
    });
    expect(one.text).not.toContain("secret_hash");
    expect(one.text).not.toContain(a.client_secret);
  });

  const long = "x".repeat(101);
  const bad: Array<[string, () => Record<string, unknown>, string]> = [
    ["an unknown field", () => ({ name: "x", product_id: prod, colour: "red" }), "/colour"],
    ["an empty name", () => ({ name: "", product_id: prod }), "/name"],
    ["a 101-char name", () => ({ name: long, product_id: prod }), "/name"],
    ["a blank name", () => ({ name: "   ", product_id: prod }), "/name"],
    ["no product_id", () => ({ name: "x" }), "/product_id"],
    ["a malformed product_id", () => ({ name: "x", product_id: "prod_nope" }), "/product_id"],
    ["an unknown product", () => ({ name: "x", product_id: newId("prod") }), "/product_id"],
    ["a bad environment", () => ({ name: "x", product_id: prod, environment_type: "qa" }), "/environment_type"],
    [
      "an issuer that is not a URL",
      () => ({ name: "x", product_id: prod, federation: { issuer: "not a url", subject: "s", audience: "a" } }),
      "/federation/issuer",
    ],
    [
      "an ftp issuer",
      () => ({
        name: "x",
        product_id: prod,
        federation: { issuer: "ftp://idp.example.com", subject: "s", audience: "a" },
      }),
      "/federation/issuer",
    ],
    [
      "a plain-http public issuer",
      () => ({
        name: "x",
        product_id: prod,
        federation: { issuer: "http://idp.example.com", subject: "s", audience: "a" },
      }),
      "/federation/issuer",
    ],
    [
      "an issuer with a query",
      () => ({
        name: "x",
        product_id: prod,
        federation: { issuer: "https://idp.example.com/?x=1", subject: "s", audience: "a" },
      }),
      "/federation/issuer",
    ],
    [
      "an issuer with credentials",
      () => ({
        name: "x",
        product_id: prod,
        federation: { issuer: "https://u:p@idp.example.com", subject: "s", audience: "a" },
      }),
      "/federation/issuer",
    ],
    [
      "an empty subject",
      () => ({
        name: "x",
        product_id: prod,
        federation: { issuer: "https://idp.example.com", subject: "", audience: "a" },
      }),
      "/federation/subject",
    ],
    [
      "a 256-char audience",
      () => ({
        name: "x",
        product_id: prod,
        federation: { issuer: "https://idp.example.com", subject: "s", audience: "a".repeat(256) },
      }),
      "/federation/audience",
    ],
    [
      "an unknown federation field",
      () => ({
        name: "x",
        product_id: prod,
        federation: { issuer: "https://idp.example.com", subject: "s", audience: "a", x: 1 },
      }),
      "/federation/x",
    ],
  ];
  it.each(bad)("refuses %s with 422 and creates nothing", async (_what, body, path) => {
    const before = await count();
    const r = await createWs(body());
    expect(r.status, r.text).toBe(422);
    const p = expectShape(Problem, r.json);
    expect(p.code).toBe("validation_failed");
    expect(p.errors?.map((e) => e.path)).toContain(path);
    expect(await count()).toBe(before);
  });

  it("refuses a product of another workspace (422 /product_id)", async () => {
    const other = await makeWorkspace(owner.token);
    const foreign = await makeProduct(other.id, owner.userId);
    const before = await count();
    const r = await createWs({ name: "x", product_id: foreign });
    expect(r.status).toBe(422);
    expect(expectShape(Problem, r.json).errors).toEqual([
      { path: "/product_id", message: expect.stringContaining(ws.id) },
    ]);
    expect(await count()).toBe(before);
  });

  it("allows a plain-http loopback issuer only with OIDC_ALLOW_INSECURE_ISSUER=1", async () => {
    const body = {
      name: "local",
      product_id: prod,
      federation: { issuer: "http://127.0.0.1:9999", subject: "s", audience: "a" },
    };
    delete process.env.OIDC_ALLOW_INSECURE_ISSUER;
    try {
      const r = await createWs(body);
      expect(r.status).toBe(422);
      const https = await createWs({ ...body, federation: { ...body.federation, issuer: "https://10.1.2.3" } });
      expect(https.status).toBe(422);
    } finally {
      process.env.OIDC_ALLOW_INSECURE_ISSUER = "1";
    }
    expect((await createWs(body)).status).toBe(201);
  });

  it("a replayed create (same Idempotency-Key) is 201 with the same id and no secret; another body with that key is 422", async () => {
    const key = `k-${newId("evt")}`;
    const body = { name: "replayed", product_id: prod };
    const first = await createWs(body, owner.token, ws.id, { "idempotency-key": key });
    expect(first.status).toBe(201);
    const created = expectShape(Created, first.json);
    const again = await createWs({ product_id: prod, name: "replayed" }, owner.token, ws.id, {
      "idempotency-key": key,
    });
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(expectShape(Identity, again.json).id).toBe(created.id);
    expect(again.json).not.toHaveProperty("client_secret");
    expect(again.text).not.toContain(created.client_secret);
    expect(await db().serviceIdentity.count({ where: { name: "replayed" } })).toBe(1);
    const other = await createWs({ name: "different", product_id: prod }, owner.token, ws.id, {
      "idempotency-key": key,
    });
    expect(other.status).toBe(422);
    expect(expectShape(Problem, other.json).reason).toBe("idempotency_key_reused");
    expect(await db().serviceIdentity.count({ where: { name: "different" } })).toBe(0);
  });

  it("needs owner or admin: developer and viewer 403, non-member 403, admin allowed, no token 401", async () => {
    const created = expectShape(Created, (await createWs({ name: "roles", product_id: prod })).json);
    const base = `/v1/workspaces/${ws.id}/service-identities`;
    const calls: Array<[string, string, unknown?]> = [
      ["GET", base],
      ["POST", base, { name: "r", product_id: prod }],
      ["GET", `${base}/${created.id}`],
      ["DELETE", `${base}/${created.id}`],
      ["POST", `${base}/${created.id}:rotate-secret`],
    ];
    const dev = await member(ws.id, owner.token, "developer");
    const viewer = await member(ws.id, owner.token, "viewer");
    const stranger = await makeUser();
    for (const u of [dev, viewer, stranger]) {
      for (const [method, path, body] of calls) {
        const r = await api(method, path, { token: u.token, body });
        expect(r.status, `${method} ${path}: ${r.text}`).toBe(403);
      }
    }
    expect((await api("GET", base)).status).toBe(401);
    const admin = await member(ws.id, owner.token, "admin");
    expect((await createWs({ name: "by admin", product_id: prod }, admin.token)).status).toBe(201);
    expect((await api("GET", `${base}/${created.id}`, { token: admin.token })).status).toBe(200);
    expect((await db().serviceIdentity.findUnique({ where: { id: created.id } }))?.status).toBe("active");
  });

  it("another workspace's id is a 404; platform and workspace identities do not see each other", async () => {
    const mine = expectShape(Created, (await createWs({ name: "mine", product_id: prod })).json);
    const otherOwner = await makeUser();
    const other = await makeWorkspace(otherOwner.token);
    const base = `/v1/workspaces/${other.id}/service-identities`;
    for (const [method, path] of [
      ["GET", `${base}/${mine.id}`],
      ["DELETE", `${base}/${mine.id}`],
      ["POST", `${base}/${mine.id}:rotate-secret`],
    ] as const) {
      const r = await api(method, path, { token: otherOwner.token });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    const list = await api("GET", base, { token: otherOwner.token });
    expect(list.json.items).toEqual([]);

    const plat = expectShape(
      Created,
      (await api("POST", "/v1/platform/service-identities", { token: platformToken, body: { name: "plat" } })).json,
    );
    expect(
      (await api("GET", `/v1/workspaces/ws_platform/service-identities/${plat.id}`, { token: platformToken })).status,
    ).toBe(404);
    expect(
      (await api("DELETE", `/v1/workspaces/ws_platform/service-identities/${plat.id}`, { token: platformToken }))
        .status,
    ).toBe(404);
    const wsList = await api("GET", "/v1/workspaces/ws_platform/service-identities", { token: platformToken });
    expect(wsList.json.items.map((i: { id: string }) => i.id)).not.toContain(plat.id);
    expect((await api("GET", `/v1/platform/service-identities/${mine.id}`, { token: platformToken })).status).toBe(404);
    expect(
      (await api("POST", `/v1/platform/service-identities/${mine.id}:revoke`, { token: platformToken })).status,
    ).toBe(404);
    expect((await db().serviceIdentity.findUnique({ where: { id: mine.id } }))?.status).toBe("active");
  });

  it("rotate-secret: a new secret once, the old one stops at once, tokens from it end; audited; revoked is 409", async () => {
    const si = expectShape(Created, (await createWs({ name: "rotating", product_id: prod })).json);
    const old = await tokenFor(si.id, si.client_secret);
    expect(old.status).toBe(200);
    await authenticateBridgeToken(old.json.access_token!);
    const corr = newId("evt");
    const r = await api("POST", `/v1/workspaces/${ws.id}/service-identities/${si.id}:rotate-secret`, {
      token: owner.token,
      headers: { "x-correlation-id": corr },
    });
    expect(r.status, r.text).toBe(200);
    const rotated = expectShape(Created, r.json);
    expect(rotated.client_secret).not.toBe(si.client_secret);
    expect(rotated.secret_rotated_at).not.toBeNull();
    expect(await tokenFor(si.id, si.client_secret)).toEqual({
      status: 401,
      json: { error: "invalid_client", error_description: "client authentication failed: secret mismatch" },
    });
    const fresh = await tokenFor(si.id, rotated.client_secret);
    expect(fresh.status).toBe(200);
    await expect(authenticateBridgeToken(old.json.access_token!)).rejects.toThrow(
      /revocation check failed: the client secret was rotated/,
    );
    expect((await authenticateBridgeToken(fresh.json.access_token!)).serviceIdentityId).toBe(si.id);
    const audit = await db().auditRecord.findMany({
      where: { workspaceId: ws.id, action: "service_identity.secret_rotated", targetId: si.id },
    });
    expect(audit.map((a) => a.correlationId)).toEqual([corr]);
    expect(json(audit)).not.toContain(rotated.client_secret);
    expect(await db().outboxEvent.count({ where: { subject: si.id, type: "service_identity.changed" } })).toBe(2);

    expect(
      (await api("DELETE", `/v1/workspaces/${ws.id}/service-identities/${si.id}`, { token: owner.token })).status,
    ).toBe(200);
    const again = await api("POST", `/v1/workspaces/${ws.id}/service-identities/${si.id}:rotate-secret`, {
      token: owner.token,
    });
    expect(again.status).toBe(409);
    expect(expectShape(Problem, again.json).reason).toBe("service_identity_revoked");
  });

  it("DELETE revokes permanently and idempotently; no new token; an existing bridge token fails at once", async () => {
    const si = expectShape(Created, (await createWs({ name: "to revoke", product_id: prod })).json);
    const t = await tokenFor(si.id, si.client_secret);
    expect(t.status).toBe(200);
    await authenticateBridgeToken(t.json.access_token!);
    const r = await api("DELETE", `/v1/workspaces/${ws.id}/service-identities/${si.id}`, { token: owner.token });
    expect(r.status, r.text).toBe(200);
    const revoked = expectShape(Identity, r.json);
    expect(revoked).toMatchObject({ status: "revoked", id: si.id });
    expect(revoked.revoked_at).not.toBeNull();
    const twice = await api("DELETE", `/v1/workspaces/${ws.id}/service-identities/${si.id}`, { token: owner.token });
    expect(twice.status).toBe(200);
    expect(twice.json.revoked_at).toBe(revoked.revoked_at);
    expect(await db().auditRecord.count({ where: { action: "service_identity.revoked", targetId: si.id } })).toBe(1);
    expect(await tokenFor(si.id, si.client_secret)).toEqual({
      status: 401,
      json: { error: "invalid_client", error_description: "client is revoked" },
    });
    await expect(authenticateBridgeToken(t.json.access_token!)).rejects.toThrow(/revocation check failed/);
  });

  it("a revocation made by another process reaches authenticateBridgeToken within 5 s", async () => {
    const si = expectShape(Created, (await createWs({ name: "elsewhere", product_id: prod })).json);
    const t = await tokenFor(si.id, si.client_secret);
    const caller = await authenticateBridgeToken(t.json.access_token!);
    const cachedAt = Date.now();
    expect(caller).toMatchObject({
      serviceIdentityId: si.id,
      workspaceId: ws.id,
      productId: prod,
      environmentType: null,
      kind: "workspace",
    });
    // As another server process would: straight in the database, so this process's cache is not told.
    await db().serviceIdentity.update({ where: { id: si.id }, data: { status: "revoked", revokedAt: new Date() } });
    let rejectedAt = 0;
    while (!rejectedAt && Date.now() - cachedAt < 8_000) {
      try {
        await authenticateBridgeToken(t.json.access_token!);
        await new Promise((r) => setTimeout(r, 50));
      } catch (err) {
        expect(String(err)).toMatch(/revocation check failed/);
        rejectedAt = Date.now();
      }
    }
    expect(rejectedAt).toBeGreaterThan(0);
    // The cache entry expires at most 5 s after it was filled; the rest is polling and query latency.
    expect(rejectedAt - cachedAt).toBeLessThanOrEqual(5_800);
  });
});

describe("platform service identities", () => {
  it("create (201, product optional), get, revoke; ws_platform owner/admin only", async () => {
    const r = await api("POST", "/v1/platform/service-identities", {
      token: platformToken,
      body: { name: "runner fleet", environment_type: "production" },
    });
    expect(r.status, r.text).toBe(201);
    const si = expectShape(Created, r.json);
    expect(si).toMatchObject({
      kind: "platform",
      workspace_id: "ws_platform",
      product_id: null,
      environment_type: "production",
    });
    expect(
      await db().auditRecord.count({
        where: { workspaceId: "ws_platform", action: "service_identity.created", targetId: si.id },
      }),
    ).toBe(1);
    const withProd = await api("POST", "/v1/platform/service-identities", {
      token: platformToken,
      body: { name: "p", product_id: platformProd },
    });
    expect(withProd.status).toBe(201);
    const foreign = await api("POST", "/v1/platform/service-identities", {
      token: platformToken,
      body: { name: "p", product_id: prod },
    });
    expect(foreign.status).toBe(422);
    expect(expectShape(Problem, foreign.json).errors?.[0]?.path).toBe("/product_id");
    expect(
      (await api("POST", "/v1/platform/service-identities", { token: platformToken, body: { name: "p", extra: 1 } }))
        .status,
    ).toBe(422);

    const got = await api("GET", `/v1/platform/service-identities/${si.id}`, { token: platformToken });
    expect(expectShape(Identity, got.json).id).toBe(si.id);
    const list = await api("GET", "/v1/platform/service-identities", { token: platformToken });
    expect(expectShape(Page(Identity), list.json).items.every((i) => i.kind === "platform")).toBe(true);

    // A stranger, a workspace owner, and a developer of ws_platform are all refused.
    const dev = await member("ws_platform", platformToken, "developer");
    for (const token of [owner.token, dev.token]) {
      expect((await api("POST", "/v1/platform/service-identities", { token, body: { name: "nope" } })).status).toBe(
        403,
      );
      expect((await api("GET", `/v1/platform/service-identities/${si.id}`, { token })).status).toBe(403);
      expect((await api("POST", `/v1/platform/service-identities/${si.id}:revoke`, { token })).status).toBe(403);
    }
    const admin = await member("ws_platform", platformToken, "admin");
    expect((await api("GET", `/v1/platform/service-identities/${si.id}`, { token: admin.token })).status).toBe(200);

    const t = await tokenFor(si.id, si.client_secret);
    expect(t.status).toBe(200);
    const rv = await api("POST", `/v1/platform/service-identities/${si.id}:revoke`, { token: admin.token });
    expect(rv.status, rv.text).toBe(200);
    expect(expectShape(Identity, rv.json).status).toBe("revoked");
    expect((await api("POST", `/v1/platform/service-identities/${si.id}:revoke`, { token: admin.token })).status).toBe(
      200,
    );
    expect((await tokenFor(si.id, si.client_secret)).json.error_description).toBe("client is revoked");
    await expect(authenticateBridgeToken(t.json.access_token!)).rejects.toThrow(/revocation check failed/);
    expect(
      (
        await api("POST", `/v1/platform/service-identities/${si.id}:revoke`, {
          token: admin.token,
          body: { reason: "x" },
        })
      ).status,
    ).toBe(422);
  });

  it("a replayed platform create is 201 with the same id and no secret; another body with the key is 422", async () => {
    const key = `pk-${newId("evt")}`;
    const corr = newId("evt");
    const first = await api("POST", "/v1/platform/service-identities", {
      token: platformToken,
      body: { name: "idem platform" },
      headers: { "idempotency-key": key, "x-correlation-id": corr },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get("x-correlation-id")).toBe(corr);
    const created = expectShape(Created, first.json);
    const audit = await db().auditRecord.findMany({ where: { workspaceId: "ws_platform", targetId: created.id } });
    expect(audit.map((a) => [a.action, a.correlationId])).toEqual([["service_identity.created", corr]]);
    // A client reference that is not an evt_ id is echoed as a fresh evt_ id.
    const ref = await api("POST", "/v1/platform/service-identities", {
      token: platformToken,
      body: { name: "ref" },
      headers: { "x-correlation-id": "my-ref-1" },
    });
    expect(ref.headers.get("x-correlation-id")).toMatch(CORRELATION_ID_RE);
    const again = await api("POST", "/v1/platform/service-identities", {
      token: platformToken,
      body: { name: "idem platform" },
      headers: { "idempotency-key": key },
    });
    expect(again.status).toBe(201);
    expect(again.json.id).toBe(created.id);
    expect(again.json).not.toHaveProperty("client_secret");
    expect(again.text).not.toContain(created.client_secret);
    const other = await api("POST", "/v1/platform/service-identities", {
      token: platformToken,
      body: { name: "changed" },
      headers: { "idempotency-key": key },
    });
    expect(other.status).toBe(422);
    expect(await db().serviceIdentity.count({ where: { name: { in: ["idem platform", "changed"] } } })).toBe(1);
  });
});
