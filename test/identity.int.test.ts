import { randomBytes } from "node:crypto";
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail, revokeApiToken, createApiToken } from "@/server/domain/identity/tokens.service";
import { verifyAuditChain } from "@/server/platform/audit";
import { ZBudgetRequest } from "@/server/domain/usage/usage.contract";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { issuer, signToken } from "@/server/domain/signing-keys/jwt.service";
import { api, bootApp, makeUser, makeWorkspace, type TApiResult } from "./support/api";
import {
  Budget,
  Budgets,
  CORRELATION_ID_RE,
  expectShape,
  idRegex,
  Page,
  Plan,
  Problem,
  USAGE_CATEGORIES,
  WorkspaceRef,
  zSpecId,
} from "./support/spec-schemas";
import { z } from "zod";

// The bootstrap admin is admin@example.com when BOOTSTRAP_ADMIN_EMAIL is unset.
delete process.env.BOOTSTRAP_ADMIN_EMAIL;
delete process.env.BOOTSTRAP_ADMIN_PASSWORD;
resetEnvCache();

beforeAll(async () => {
  await bootApp();
});

const WWW_AUTH_RE = /^Bearer realm="capstan", error="invalid_token", error_description="([^"]+)"$/;

const Member = z.object({ user_id: zSpecId("usr"), role: z.string() });

function expectProblem(r: TApiResult, status: number, extra: { code?: string; reason?: string } = {}) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const p = expectShape(Problem, r.json);
  expect(p.status).toBe(status);
  expect(r.headers.get("x-correlation-id")).toBe(p.correlation_id);
  if (extra.code) expect(p.code).toBe(extra.code);
  if (extra.reason) expect(p.reason).toBe(extra.reason);
  return p;
}

function expect401(r: TApiResult, check?: RegExp): string {
  const p = expectProblem(r, 401, { code: "unauthenticated" });
  const challenge = r.headers.get("www-authenticate");
  expect(challenge, "401 must carry WWW-Authenticate").toMatch(/^Bearer realm="capstan"/);
  const m = WWW_AUTH_RE.exec(challenge!);
  expect(m, `unexpected challenge: ${challenge}`).not.toBeNull();
  const description = m![1]!;
  if (check) {
    expect(description).toMatch(check);
    expect(p.detail).toMatch(check);
  }
  return description;
}

const evt = () => newId("evt");

async function auditRows(workspaceId: string, where: { action?: string; correlationId?: string } = {}) {
  return db().auditRecord.findMany({ where: { workspaceId, ...where }, orderBy: { seq: "asc" } });
}

async function workspaceCount(): Promise<number> {
  return db().workspace.count();
}

async function listAll(token: string, query = ""): Promise<string[]> {
  const r = await api("GET", `/v1/workspaces?limit=200${query}`, { token });
  expect(r.status, r.text).toBe(200);
  return expectShape(Page(WorkspaceRef), r.json).items.map((w) => w.id);
}

// ---------------------------------------------------------------------------
describe("authentication (spec 5, design: identity)", () => {
  it("401 without a token, with the Bearer challenge and a problem document", async () => {
    const r = await api("GET", "/v1/workspaces");
    const description = expect401(r);
    expect(description.length).toBeGreaterThan(0);
  });

  it("401 for a garbage token and for a malformed Authorization header", async () => {
    expect401(await api("GET", "/v1/workspaces", { token: "garbage" }), /JWT|token/i);
    expect401(await api("GET", "/v1/workspaces", { token: "a.b.c" }));
    expect401(await api("GET", "/v1/workspaces", { headers: { authorization: "Basic dXNlcjpwdw==" } }));
  });

  it("401 (signature) for a token signed by another key with the same kid, iss and aud", async () => {
    const u = await makeUser();
    const header = decodeProtectedHeader(u.token);
    const claims = decodeJwt(u.token);
    const { privateKey } = await generateKeyPair("ES256");
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: header.kid!, typ: "JWT" })
      .setIssuer(issuer())
      .setAudience("control")
      .setSubject(claims.sub!)
      .setJti(claims.jti!)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(privateKey);
    expect401(await api("GET", "/v1/workspaces", { token: forged }), /signature/i);
    // The genuine token still works.
    expect((await api("GET", "/v1/workspaces", { token: u.token })).status).toBe(200);
  });

  it("401 (audience) for a token with audience bridge", async () => {
    const u = await makeUser();
    const claims = decodeJwt(u.token);
    const { token } = await signToken({ audience: "bridge", subject: u.userId, jti: claims.jti!, ttlSeconds: 600 });
    expect401(await api("GET", "/v1/workspaces", { token }), /audience/i);
  });

  it("401 (expiry) for an expired token", async () => {
    const u = await makeUser();
    const claims = decodeJwt(u.token);
    // Past the clock-skew allowance (CAPSTAN_JWT_CLOCK_SKEW_SECONDS, 60 s).
    const { token } = await signToken({ audience: "control", subject: u.userId, jti: claims.jti!, ttlSeconds: -120 });
    expect401(await api("GET", "/v1/workspaces", { token }), /expir/i);
  });

  it("401 (revocation) for a revoked token, while another token of the same user still works", async () => {
    const u = await makeUser();
    const second = await createApiToken(u.userId, "second", 3600);
    expect((await api("GET", "/v1/workspaces", { token: u.token })).status).toBe(200);
    await revokeApiToken(u.userId, decodeJwt(u.token).jti!);
    expect401(await api("GET", "/v1/workspaces", { token: u.token }), /revo/i);
    expect((await api("GET", "/v1/workspaces", { token: second.token })).status).toBe(200);
  });

  it("the bootstrap admin (admin@example.com) lists ws_platform", async () => {
    const token = await issueTokenForEmail("admin@example.com", 3600);
    const r = await api("GET", "/v1/workspaces", { token });
    expect(r.status, r.text).toBe(200);
    const page = expectShape(Page(WorkspaceRef), r.json);
    expect(page.items.map((w) => w.id)).toContain("ws_platform");
    const platform = (r.json.items as Array<{ id: string; role: string }>).find((w) => w.id === "ws_platform");
    expect(platform?.role).toBe("owner");
    const audit = await auditRows("ws_platform", { action: "platform.bootstrapped" });
    expect(audit).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------
describe("workspaces: create and list", () => {
  it("POST /v1/workspaces creates (201, caller is owner); it is listed for the caller only", async () => {
    const a = await makeUser();
    const b = await makeUser();
    const r = await api("POST", "/v1/workspaces", { token: a.token, body: { name: "Alpha" } });
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.json.id).toMatch(idRegex("ws"));
    expect(r.json.name).toBe("Alpha");
    expect(r.json.role).toBe("owner");
    const m = await db().membership.findUnique({
      where: { workspaceId_userId: { workspaceId: r.json.id, userId: a.userId } },
    });
    expect(m?.role).toBe("owner");

    expect(await listAll(a.token)).toContain(r.json.id);
    expect(await listAll(b.token)).not.toContain(r.json.id);

    const got = await api("GET", `/v1/workspaces/${r.json.id}`, { token: a.token });
    expect(got.status).toBe(200);
    expect(got.json.id).toBe(r.json.id);
  });

  it("paginates with limit and next_cursor, without overlap, and order=asc reverses", async () => {
    const u = await makeUser();
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      created.push((await makeWorkspace(u.token, `page ${i}`)).id);
      await new Promise((r) => setTimeout(r, 5)); // distinct created_at, so creation order is the sort order
    }

    const p1 = await api("GET", "/v1/workspaces?limit=2", { token: u.token });
    expect(p1.status, p1.text).toBe(200);
    const page1 = expectShape(Page(WorkspaceRef), p1.json);
    expect(page1.items).toHaveLength(2);
    expect(page1.next_cursor).toEqual(expect.any(String));
    expect(page1.next_cursor!.length).toBeLessThanOrEqual(128);

    const p2 = await api("GET", `/v1/workspaces?limit=2&cursor=${encodeURIComponent(page1.next_cursor!)}`, {
      token: u.token,
    });
    expect(p2.status, p2.text).toBe(200);
    const page2 = expectShape(Page(WorkspaceRef), p2.json);
    expect(page2.items).toHaveLength(1);
    expect(page2.next_cursor).toBeNull();

    const desc = [...page1.items, ...page2.items].map((w) => w.id);
    expect(new Set(desc).size).toBe(3);
    expect([...desc].sort()).toEqual([...created].sort());
    // Default order is desc: newest first.
    expect(desc).toEqual([...created].reverse());

    const asc = await listAll(u.token, "&order=asc");
    expect(asc).toEqual([...desc].reverse());

    // asc pagination follows its own cursor.
    const a1 = await api("GET", "/v1/workspaces?limit=2&order=asc", { token: u.token });
    const a2 = await api("GET", `/v1/workspaces?limit=2&order=asc&cursor=${encodeURIComponent(a1.json.next_cursor)}`, {
      token: u.token,
    });
    expect([...a1.json.items, ...a2.json.items].map((w: { id: string }) => w.id)).toEqual(asc);
    expect(a2.json.next_cursor).toBeNull();
  });

  it("rejects bad list parameters with a 400 problem", async () => {
    const u = await makeUser();
    await makeWorkspace(u.token);
    await makeWorkspace(u.token);
    const first = await api("GET", "/v1/workspaces?limit=1", { token: u.token });
    const cursor: string = first.json.next_cursor;
    expect(cursor).toEqual(expect.any(String));

    const bad = [
      "limit=0",
      "limit=201",
      "limit=abc",
      "limit=1.5",
      "order=up",
      `cursor=${encodeURIComponent(cursor.slice(0, -4))}`, // truncated: tampered
      `cursor=${encodeURIComponent(cursor.slice(0, 10) + "!" + cursor.slice(11))}`, // a character replaced
      "cursor=not-a-cursor",
      `cursor=${Buffer.from(JSON.stringify({ t: "yesterday", id: "ws_x", o: "desc" })).toString("base64url")}`,
      `order=asc&cursor=${encodeURIComponent(cursor)}`, // a desc cursor replayed on the asc order
      `cursor=${"a".repeat(129)}`,
    ];
    for (const q of bad) {
      const r = await api("GET", `/v1/workspaces?${q}`, { token: u.token });
      expectProblem(r, 400, { code: "bad_request" });
    }
    // Bounds are inclusive.
    expect((await api("GET", "/v1/workspaces?limit=1", { token: u.token })).status).toBe(200);
    expect((await api("GET", "/v1/workspaces?limit=200", { token: u.token })).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------
describe("request bodies (design: HTTP conventions)", () => {
  it("malformed JSON 400, schema 422 with errors[], extra field 422, text/plain 415, over 1 MiB 413; none creates a workspace", async () => {
    const u = await makeUser();
    const before = await workspaceCount();

    const malformed = await api("POST", "/v1/workspaces", {
      token: u.token,
      rawBody: '{"name": "x"',
      headers: { "content-type": "application/json" },
    });
    expectProblem(malformed, 400, { code: "bad_request", reason: "malformed_json" });

    const wrongType = await api("POST", "/v1/workspaces", { token: u.token, body: { name: 5 } });
    const p = expectProblem(wrongType, 422, { code: "validation_failed" });
    expect(p.errors?.map((e) => e.path)).toContain("/name");

    const extra = await api("POST", "/v1/workspaces", { token: u.token, body: { name: "ok", colour: "red" } });
    expectProblem(extra, 422, { code: "validation_failed" });

    const empty = await api("POST", "/v1/workspaces", { token: u.token, body: { name: "" } });
    expectProblem(empty, 422, { code: "validation_failed" });

    const text = await api("POST", "/v1/workspaces", {
      token: u.token,
      rawBody: '{"name":"plain"}',
      headers: { "content-type": "text/plain" },
    });
    expectProblem(text, 415, { code: "bad_request" });

    const big = await api("POST", "/v1/workspaces", { token: u.token, body: { name: "x".repeat(1024 * 1024 + 16) } });
    expectProblem(big, 413, { code: "bad_request" });

    expect(await workspaceCount()).toBe(before);
    expect(await listAll(u.token)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
describe("X-Correlation-Id (spec 4.1, 8)", () => {
  it("an evt_ id is adopted: echoed in the header and in a problem's correlation_id", async () => {
    const u = await makeUser();
    const id = evt();
    const ok = await api("GET", "/v1/workspaces", { token: u.token, headers: { "x-correlation-id": id } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-correlation-id")).toBe(id);

    const id2 = evt();
    const bad = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name: 5 },
      headers: { "x-correlation-id": id2 },
    });
    const p = expectProblem(bad, 422);
    expect(p.correlation_id).toBe(id2);
    expect(bad.headers.get("x-correlation-id")).toBe(id2);
  });

  it("a created workspace's audit record carries the adopted correlation id", async () => {
    const u = await makeUser();
    const id = evt();
    const r = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name: "corr" },
      headers: { "x-correlation-id": id },
    });
    expect(r.status).toBe(201);
    const rows = await auditRows(r.json.id, { correlationId: id });
    expect(rows.map((x) => x.action)).toContain("member.upserted");
  });

  it("a 65-char value is a 400 problem; 64 chars are accepted", async () => {
    const u = await makeUser();
    const r = await api("GET", "/v1/workspaces", { token: u.token, headers: { "x-correlation-id": "x".repeat(65) } });
    const p = expectProblem(r, 400, { code: "bad_request" });
    expect(p.correlation_id).toMatch(CORRELATION_ID_RE);
    const ok = await api("GET", "/v1/workspaces", { token: u.token, headers: { "x-correlation-id": "y".repeat(64) } });
    expect(ok.status).toBe(200);
  });

  it("a request refused for its X-Correlation-Id still gets its own fresh correlation id", async () => {
    // Design: "each request gets an evt_ correlation id". Two rejected requests must not share one.
    const u = await makeUser();
    const r1 = await api("GET", "/v1/workspaces", { token: u.token, headers: { "x-correlation-id": "x".repeat(65) } });
    const r2 = await api("GET", "/v1/workspaces", { token: u.token, headers: { "x-correlation-id": "z".repeat(70) } });
    expect(r1.status).toBe(400);
    expect(r2.status).toBe(400);
    expect(r1.json.correlation_id).toMatch(CORRELATION_ID_RE);
    expect(r1.json.correlation_id).not.toBe(r2.json.correlation_id);
    expect(r1.json.correlation_id).not.toBe("evt_00000000000000000000000000");
  });

  it("any other value gets a fresh evt_ id", async () => {
    const u = await makeUser();
    const values = ["client-ref-42", "EVT_01ARZ3NDEKTSV4RRFFQ69G5FAV", `ws_${"0".repeat(26)}`, "evt_short"];
    const seen = new Set<string>();
    for (const v of values) {
      const r = await api("GET", "/v1/workspaces", { token: u.token, headers: { "x-correlation-id": v } });
      expect(r.status).toBe(200);
      const got = r.headers.get("x-correlation-id")!;
      expect(got).toMatch(CORRELATION_ID_RE);
      expect(got).not.toBe(v);
      seen.add(got);
    }
    expect(seen.size).toBe(values.length);
    // Without the header every response still has one.
    const none = await api("GET", "/v1/workspaces", { token: u.token });
    expect(none.headers.get("x-correlation-id")).toMatch(CORRELATION_ID_RE);
  });

  it("an unknown route is a 404 problem with a correlation id", async () => {
    const u = await makeUser();
    const r = await api("GET", "/v1/nope", { token: u.token });
    const p = expectProblem(r, 404, { code: "not_found" });
    expect(p.correlation_id).toMatch(CORRELATION_ID_RE);
    expect(p.instance).toBe("/v1/nope");
  });
});

// ---------------------------------------------------------------------------
describe("members", () => {
  it("lists the owner; PUT adds a developer (member.upserted) and changes roles (member.role_changed)", async () => {
    const owner = await makeUser();
    const dev = await makeUser();
    const ws = await makeWorkspace(owner.token);

    const list = await api("GET", `/v1/workspaces/${ws.id}/members`, { token: owner.token });
    expect(list.status, list.text).toBe(200);
    const page = expectShape(Page(Member), list.json);
    expect(page.items).toEqual([expect.objectContaining({ user_id: owner.userId, role: "owner" })]);
    expect(page.next_cursor).toBeNull();

    const c1 = evt();
    const add = await api("PUT", `/v1/workspaces/${ws.id}/members/${dev.userId}`, {
      token: owner.token,
      body: { role: "developer" },
      headers: { "x-correlation-id": c1 },
    });
    expect(add.status, add.text).toBe(200);
    expect(add.json).toMatchObject({ user_id: dev.userId, role: "developer", workspace_id: ws.id });
    const upserted = await auditRows(ws.id, { action: "member.upserted", correlationId: c1 });
    expect(upserted).toHaveLength(1);
    expect(upserted[0]!.targetId).toBe(dev.userId);
    expect(upserted[0]!.actorId).toBe(owner.userId);

    // The new member now sees the workspace.
    expect(await listAll(dev.token)).toContain(ws.id);

    const c2 = evt();
    const change = await api("PUT", `/v1/workspaces/${ws.id}/members/${dev.userId}`, {
      token: owner.token,
      body: { role: "admin" },
      headers: { "x-correlation-id": c2 },
    });
    expect(change.status, change.text).toBe(200);
    expect(change.json.role).toBe("admin");
    const changed = await auditRows(ws.id, { action: "member.role_changed", correlationId: c2 });
    expect(changed).toHaveLength(1);
    expect(changed[0]!.details).toMatchObject({ from: "developer", to: "admin" });

    const after = await api("GET", `/v1/workspaces/${ws.id}/members`, { token: dev.token });
    expect(after.json.items).toHaveLength(2);
  });

  it("POST members adds a member by email (201)", async () => {
    const owner = await makeUser();
    const other = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const r = await api("POST", `/v1/workspaces/${ws.id}/members`, {
      token: owner.token,
      body: { email: other.email, role: "viewer" },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ user_id: other.userId, role: "viewer" });
  });

  it("demoting the last owner is a 409", async () => {
    const owner = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const r = await api("PUT", `/v1/workspaces/${ws.id}/members/${owner.userId}`, {
      token: owner.token,
      body: { role: "admin" },
    });
    expectProblem(r, 409, { code: "conflict" });
    const m = await db().membership.findUnique({
      where: { workspaceId_userId: { workspaceId: ws.id, userId: owner.userId } },
    });
    expect(m?.role).toBe("owner");

    // With a second owner the demotion is allowed.
    const second = await makeUser();
    expect(
      (
        await api("PUT", `/v1/workspaces/${ws.id}/members/${second.userId}`, {
          token: owner.token,
          body: { role: "owner" },
        })
      ).status,
    ).toBe(200);
    const ok = await api("PUT", `/v1/workspaces/${ws.id}/members/${owner.userId}`, {
      token: owner.token,
      body: { role: "admin" },
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it("two owners demoting each other at the same time leave exactly one owner", async () => {
    const x = await makeUser();
    const y = await makeUser();
    const ws = await makeWorkspace(x.token);
    expect(
      (await api("PUT", `/v1/workspaces/${ws.id}/members/${y.userId}`, { token: x.token, body: { role: "owner" } }))
        .status,
    ).toBe(200);
    const [rx, ry] = await Promise.all([
      api("PUT", `/v1/workspaces/${ws.id}/members/${y.userId}`, { token: x.token, body: { role: "admin" } }),
      api("PUT", `/v1/workspaces/${ws.id}/members/${x.userId}`, { token: y.token, body: { role: "admin" } }),
    ]);
    // Role changes are serialised per workspace and the caller's role is read again under that lock: whichever
    // demotion commits first leaves the other caller an admin, who may not remove the owner role (403), whether it
    // was authorized before or after that commit.
    expect([rx.status, ry.status].sort()).toEqual([200, 403]);
    expectProblem(rx.status === 403 ? rx : ry, 403, { code: "forbidden" });
    expect(await db().membership.count({ where: { workspaceId: ws.id, role: "owner" } })).toBe(1);
  });

  it("an admin cannot grant (or remove) the owner role: 403", async () => {
    const owner = await makeUser();
    const admin = await makeUser();
    const target = await makeUser();
    const ws = await makeWorkspace(owner.token);
    expect(
      (
        await api("PUT", `/v1/workspaces/${ws.id}/members/${admin.userId}`, {
          token: owner.token,
          body: { role: "admin" },
        })
      ).status,
    ).toBe(200);

    const grant = await api("PUT", `/v1/workspaces/${ws.id}/members/${target.userId}`, {
      token: admin.token,
      body: { role: "owner" },
    });
    expectProblem(grant, 403, { code: "forbidden" });
    const demote = await api("PUT", `/v1/workspaces/${ws.id}/members/${owner.userId}`, {
      token: admin.token,
      body: { role: "viewer" },
    });
    expectProblem(demote, 403, { code: "forbidden" });
    const self = await api("PUT", `/v1/workspaces/${ws.id}/members/${admin.userId}`, {
      token: admin.token,
      body: { role: "owner" },
    });
    expectProblem(self, 403, { code: "forbidden" });

    const members = await db().membership.findMany({ where: { workspaceId: ws.id } });
    expect(Object.fromEntries(members.map((m) => [m.userId, m.role]))).toEqual({
      [owner.userId]: "owner",
      [admin.userId]: "admin",
    });

    // An admin may still add a developer.
    const dev = await api("PUT", `/v1/workspaces/${ws.id}/members/${target.userId}`, {
      token: admin.token,
      body: { role: "developer" },
    });
    expect(dev.status, dev.text).toBe(200);
  });

  it("an unknown role is 422, an unknown user 404, a malformed user id 400", async () => {
    const owner = await makeUser();
    const other = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const r1 = await api("PUT", `/v1/workspaces/${ws.id}/members/${other.userId}`, {
      token: owner.token,
      body: { role: "superuser" },
    });
    const p1 = expectProblem(r1, 422, { code: "validation_failed" });
    expect(p1.errors?.map((e) => e.path)).toContain("/role");

    const r2 = await api("PUT", `/v1/workspaces/${ws.id}/members/${newId("usr")}`, {
      token: owner.token,
      body: { role: "developer" },
    });
    expectProblem(r2, 404, { code: "not_found" });

    const r3 = await api("PUT", `/v1/workspaces/${ws.id}/members/usr_NOT-AN-ID`, {
      token: owner.token,
      body: { role: "developer" },
    });
    expectProblem(r3, 400, { code: "bad_request" });

    const r4 = await api("PUT", `/v1/workspaces/${ws.id}/members/${newId("ws")}`, {
      token: owner.token,
      body: { role: "developer" },
    });
    expectProblem(r4, 400, { code: "bad_request" });

    expect(await db().membership.count({ where: { workspaceId: ws.id } })).toBe(1);
  });

  it("a malformed workspace id is a 400", async () => {
    const u = await makeUser();
    expectProblem(await api("GET", "/v1/workspaces/ws_nope/plan", { token: u.token }), 400, { code: "bad_request" });
  });
});

// ---------------------------------------------------------------------------
describe("roles (design: owner > admin > developer > viewer)", () => {
  it("a viewer reads but gets 403 on PUT plan, PUT budget, PUT member, each audited authz.forbidden", async () => {
    const owner = await makeUser();
    const viewer = await makeUser();
    const other = await makeUser();
    const ws = await makeWorkspace(owner.token);
    expect(
      (
        await api("PUT", `/v1/workspaces/${ws.id}/members/${viewer.userId}`, {
          token: owner.token,
          body: { role: "viewer" },
        })
      ).status,
    ).toBe(200);

    for (const path of [
      `/v1/workspaces/${ws.id}`,
      `/v1/workspaces/${ws.id}/plan`,
      `/v1/workspaces/${ws.id}/budgets`,
      `/v1/workspaces/${ws.id}/members`,
    ]) {
      const r = await api("GET", path, { token: viewer.token });
      expect(r.status, `${path}: ${r.text}`).toBe(200);
    }

    const writes: Array<[string, unknown]> = [
      [`/v1/workspaces/${ws.id}/plan`, { plan: "team" }],
      [`/v1/workspaces/${ws.id}/budgets/ai_tokens`, { limit_units: 5 }],
      [`/v1/workspaces/${ws.id}/members/${other.userId}`, { role: "viewer" }],
      [`/v1/workspaces/${ws.id}/members/${viewer.userId}`, { role: "admin" }],
    ];
    for (const [path, body] of writes) {
      const c = evt();
      const r = await api("PUT", path, { token: viewer.token, body, headers: { "x-correlation-id": c } });
      expectProblem(r, 403, { code: "forbidden" });
      const rows = await auditRows(ws.id, { action: "authz.forbidden", correlationId: c });
      expect(rows, path).toHaveLength(1);
      expect(rows[0]!.actorId).toBe(viewer.userId);
    }
    const post = await api("POST", `/v1/workspaces/${ws.id}/members`, {
      token: viewer.token,
      body: { email: other.email, role: "viewer" },
    });
    expectProblem(post, 403, { code: "forbidden" });

    const plan = await api("GET", `/v1/workspaces/${ws.id}/plan`, { token: owner.token });
    expect(plan.json.plan).toBe("free");
    expect(await db().membership.count({ where: { workspaceId: ws.id } })).toBe(2);
    const viewerRow = await db().membership.findUnique({
      where: { workspaceId_userId: { workspaceId: ws.id, userId: viewer.userId } },
    });
    expect(viewerRow?.role).toBe("viewer");
  });

  it("a non-member gets 403 on every workspace endpoint, audited authz.workspace_mismatch on that workspace", async () => {
    const owner = await makeUser();
    const stranger = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const calls: Array<[string, string, unknown?]> = [
      ["GET", `/v1/workspaces/${ws.id}`],
      ["GET", `/v1/workspaces/${ws.id}/members`],
      ["PUT", `/v1/workspaces/${ws.id}/members/${stranger.userId}`, { role: "owner" }],
      ["POST", `/v1/workspaces/${ws.id}/members`, { email: stranger.email, role: "owner" }],
      ["GET", `/v1/workspaces/${ws.id}/plan`],
      ["PUT", `/v1/workspaces/${ws.id}/plan`, { plan: "enterprise" }],
      ["GET", `/v1/workspaces/${ws.id}/budgets`],
      ["PUT", `/v1/workspaces/${ws.id}/budgets/runtime`, { limit_units: 1 }],
    ];
    for (const [method, path, body] of calls) {
      const c = evt();
      const r = await api(method, path, { token: stranger.token, body, headers: { "x-correlation-id": c } });
      expectProblem(r, 403, { code: "forbidden" });
      const rows = await auditRows(ws.id, { action: "authz.workspace_mismatch", correlationId: c });
      expect(rows, `${method} ${path}`).toHaveLength(1);
      expect(rows[0]!.actorId).toBe(stranger.userId);
    }
    expect(await db().membership.count({ where: { workspaceId: ws.id } })).toBe(1);
    expect(await listAll(stranger.token)).not.toContain(ws.id);

    // An unknown (well-formed) workspace id answers the same 403, so ids cannot be probed.
    const ghost = newId("ws");
    expectProblem(await api("GET", `/v1/workspaces/${ghost}`, { token: stranger.token }), 403, { code: "forbidden" });
  });
});

// ---------------------------------------------------------------------------
describe("plan (spec 2.15)", () => {
  it("GET plan matches the spec; PUT team changes it and audits plan.changed; gold is 422 and changes nothing", async () => {
    const owner = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const g = await api("GET", `/v1/workspaces/${ws.id}/plan`, { token: owner.token });
    expect(g.status, g.text).toBe(200);
    const plan = expectShape(Plan, g.json);
    expect(plan.id).toBe(ws.id);
    expect(plan.workspace_id).toBe(ws.id);
    expect(plan.plan).toBe("free");
    expect(Object.keys(plan.entitlements).sort()).toEqual([...USAGE_CATEGORIES].sort());

    const c = evt();
    const put = await api("PUT", `/v1/workspaces/${ws.id}/plan`, {
      token: owner.token,
      body: { plan: "team" },
      headers: { "x-correlation-id": c },
    });
    expect(put.status, put.text).toBe(200);
    const team = expectShape(Plan, put.json);
    expect(team.plan).toBe("team");
    const audit = await auditRows(ws.id, { action: "plan.changed", correlationId: c });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details).toMatchObject({ from: "free", to: "team" });

    const before = (await api("GET", `/v1/workspaces/${ws.id}/plan`, { token: owner.token })).json;
    for (const body of [{ plan: "gold" }, { plan: "TEAM" }, {}, { plan: "enterprise", extra: true }, { plan: null }]) {
      const r = await api("PUT", `/v1/workspaces/${ws.id}/plan`, { token: owner.token, body });
      expectProblem(r, 422, { code: "validation_failed" });
    }
    const after = (await api("GET", `/v1/workspaces/${ws.id}/plan`, { token: owner.token })).json;
    expect(after).toEqual(before);
    expect(await auditRows(ws.id, { action: "plan.changed" })).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------
describe("budgets (spec 2.15)", () => {
  const month = () => new Date().toISOString().slice(0, 7);

  async function budgets(token: string, ws: string) {
    const r = await api("GET", `/v1/workspaces/${ws}/budgets`, { token });
    expect(r.status, r.text).toBe(200);
    return expectShape(Budgets, r.json);
  }

  it("GET returns exactly the four categories of this UTC month, next_cursor null, stable ids", async () => {
    const owner = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const first = await budgets(owner.token, ws.id);
    expect(first.next_cursor).toBeNull();
    expect(first.items).toHaveLength(4);
    expect(first.items.map((b) => b.usage_category).sort()).toEqual([...USAGE_CATEGORIES].sort());
    for (const b of first.items) {
      expect(b.workspace_id).toBe(ws.id);
      expect(b.month).toBe(month());
      expect(b.limit_units).toBeNull();
      expect(b.used_units).toBe(0);
      expect(b.reserved_units).toBe(0);
    }
    expect(new Set(first.items.map((b) => b.id)).size).toBe(4);
    const second = await budgets(owner.token, ws.id);
    expect(second.items.map((b) => b.id)).toEqual(first.items.map((b) => b.id));
    expect(await db().budget.count({ where: { workspaceId: ws.id } })).toBe(4);
  });

  it("PUT sets a limit (budget.changed) and null makes it unlimited", async () => {
    const owner = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const c = evt();
    const r = await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, {
      token: owner.token,
      body: { limit_units: 1000 },
      headers: { "x-correlation-id": c },
    });
    expect(r.status, r.text).toBe(200);
    const b = expectShape(Budget, r.json);
    expect(b).toMatchObject({ usage_category: "ai_tokens", limit_units: 1000, workspace_id: ws.id, month: month() });
    const audit = await auditRows(ws.id, { action: "budget.changed", correlationId: c });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details).toMatchObject({ usage_category: "ai_tokens", from: null, to: 1000 });

    const list = await budgets(owner.token, ws.id);
    expect(list.items.find((x) => x.usage_category === "ai_tokens")!.limit_units).toBe(1000);
    expect(list.items.find((x) => x.usage_category === "ai_tokens")!.id).toBe(b.id);
    expect(list.items.filter((x) => x.usage_category !== "ai_tokens").every((x) => x.limit_units === null)).toBe(true);

    const zero = await api("PUT", `/v1/workspaces/${ws.id}/budgets/storage`, {
      token: owner.token,
      body: { limit_units: 0 },
    });
    expect(zero.status, zero.text).toBe(200);
    expect(zero.json.limit_units).toBe(0);

    const unl = await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, {
      token: owner.token,
      body: { limit_units: null },
    });
    expect(unl.status, unl.text).toBe(200);
    expect(expectShape(Budget, unl.json).limit_units).toBeNull();
    expect(
      (await budgets(owner.token, ws.id)).items.find((x) => x.usage_category === "ai_tokens")!.limit_units,
    ).toBeNull();
  });

  it('rejects -1, "10", {} and other non-numbers with 422 and an unknown category with 400; the budget is unchanged', async () => {
    const owner = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const set = await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, {
      token: owner.token,
      body: { limit_units: 1000 },
    });
    expect(set.status).toBe(200);
    const before = await budgets(owner.token, ws.id);
    const auditBefore = (await auditRows(ws.id, { action: "budget.changed" })).length;

    const rejected: Array<[unknown, string]> = [
      [{ limit_units: -1 }, "negative"],
      [{ limit_units: "10" }, "numeric string"],
      [{}, "missing"],
      [{ limit_units: "" }, "empty string"],
      [{ limit_units: true }, "boolean"],
      [{ limit_units: [5] }, "array"],
      [{ limit_units: 5, extra: 1 }, "extra field"],
    ];
    const wrong: string[] = [];
    for (const [body, label] of rejected) {
      const r = await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, { token: owner.token, body });
      if (r.status !== 422) wrong.push(`${label} ${JSON.stringify(body)} -> ${r.status} ${r.text}`);
      else expectProblem(r, 422, { code: "validation_failed" });
      const now = await budgets(owner.token, ws.id);
      // Restore if a bad request slipped through, so each case is judged on its own.
      if (JSON.stringify(now) !== JSON.stringify(before)) {
        const changed = now.items.find((x) => x.usage_category === "ai_tokens");
        wrong.push(`${label}: stored ai_tokens budget changed to ${JSON.stringify(changed?.limit_units)}`);
        const ai = before.items.find((x) => x.usage_category === "ai_tokens")!;
        await db().budget.update({
          where: { id: ai.id },
          data: { limitUnits: 1000, updatedAt: new Date(ai.updated_at) },
        });
      }
    }
    const cat = await api("PUT", `/v1/workspaces/${ws.id}/budgets/bananas`, {
      token: owner.token,
      body: { limit_units: 5 },
    });
    expectProblem(cat, 400, { code: "bad_request" });

    expect(wrong, wrong.join("\n")).toEqual([]);
    expect(await budgets(owner.token, ws.id)).toEqual(before);
    expect((await auditRows(ws.id, { action: "budget.changed" })).length).toBe(auditBefore);
  });
});

// ---------------------------------------------------------------------------
describe("body schemas are not loosened by the REST layer", () => {
  it("serving a PUT budget over REST leaves the shared BudgetRequest contract strict", async () => {
    const owner = await makeUser();
    const ws = await makeWorkspace(owner.token);
    const r = await api("PUT", `/v1/workspaces/${ws.id}/budgets/runtime`, {
      token: owner.token,
      body: { limit_units: 7 },
    });
    expect(r.status, r.text).toBe(200);
    // The same zod object validates tRPC (console) input: it must still refuse a string after a REST call.
    expect(ZBudgetRequest.safeParse({ limit_units: "10" }).success).toBe(false);
  });
});

// ---------------------------------------------------------------------------
describe("audit chain", () => {
  it("verifies after changes; UPDATE and DELETE on audit_records are refused", async () => {
    const owner = await makeUser();
    const dev = await makeUser();
    const ws = await makeWorkspace(owner.token);
    await api("PUT", `/v1/workspaces/${ws.id}/plan`, { token: owner.token, body: { plan: "enterprise" } });
    await api("PUT", `/v1/workspaces/${ws.id}/budgets/runtime`, { token: owner.token, body: { limit_units: 42 } });
    await api("PUT", `/v1/workspaces/${ws.id}/members/${dev.userId}`, { token: owner.token, body: { role: "viewer" } });
    await api("PUT", `/v1/workspaces/${ws.id}/plan`, { token: dev.token, body: { plan: "free" } }); // authz.forbidden

    const chain = await verifyAuditChain(ws.id);
    expect(chain).toEqual({ ok: true, brokenAt: null, count: 5 });
    const actions = (await auditRows(ws.id)).map((r) => r.action);
    expect(actions).toEqual([
      "member.upserted",
      "plan.changed",
      "budget.changed",
      "member.upserted",
      "authz.forbidden",
    ]);
    const rows = await auditRows(ws.id);
    rows.forEach((r, i) => {
      expect(r.id).toMatch(idRegex("aud"));
      expect(Number(r.seq)).toBe(i + 1);
      expect(r.prevHash).toBe(i === 0 ? null : rows[i - 1]!.hash);
    });

    await expect(
      db().$executeRawUnsafe("UPDATE audit_records SET action = 'plan.changed' WHERE workspace_id = $1", ws.id),
    ).rejects.toThrow(/append-only/);
    await expect(db().$executeRawUnsafe("DELETE FROM audit_records WHERE workspace_id = $1", ws.id)).rejects.toThrow(
      /append-only/,
    );
    expect(await db().auditRecord.count({ where: { workspaceId: ws.id } })).toBe(5);
    expect((await verifyAuditChain(ws.id)).ok).toBe(true);
  });
});

// ---------------------------------------------------------------------------
describe("Idempotency-Key (in-process)", () => {
  it("same key and body replays the first response; only one workspace is created", async () => {
    const u = await makeUser();
    const key = `k-${randomBytes(8).toString("hex")}`;
    const name = `idem ${key}`;
    const r1 = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name },
      headers: { "idempotency-key": key },
    });
    expect(r1.status, r1.text).toBe(201);
    expect(r1.headers.get("idempotent-replayed")).toBeNull();
    const r2 = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name },
      headers: { "idempotency-key": key },
    });
    expect(r2.status, r2.text).toBe(201);
    expect(r2.headers.get("idempotent-replayed")).toBe("true");
    expect(r2.json.id).toBe(r1.json.id);
    expect(r2.json).toEqual(r1.json);
    expect(r2.headers.get("x-correlation-id")).toMatch(CORRELATION_ID_RE);
    expect(r2.headers.get("x-correlation-id")).not.toBe(r1.headers.get("x-correlation-id"));
    expect(await db().workspace.count({ where: { name } })).toBe(1);
  });

  it("same key with a different body is 422; nothing is created", async () => {
    const u = await makeUser();
    const key = `k-${randomBytes(8).toString("hex")}`;
    const r1 = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name: "first" },
      headers: { "idempotency-key": key },
    });
    expect(r1.status).toBe(201);
    const r2 = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name: "second" },
      headers: { "idempotency-key": key },
    });
    expectProblem(r2, 422, { code: "validation_failed" });
    expect(await listAll(u.token)).toEqual([r1.json.id]);
  });

  it("a 257-char key is 400, a 256-char key is accepted", async () => {
    const u = await makeUser();
    const r = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name: "long" },
      headers: { "idempotency-key": "k".repeat(257) },
    });
    expectProblem(r, 400, { code: "bad_request" });
    expect(await listAll(u.token)).toEqual([]);
    const ok = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name: "long" },
      headers: { "idempotency-key": "k".repeat(256) },
    });
    expect(ok.status, ok.text).toBe(201);
  });

  it("keys are scoped per principal", async () => {
    const a = await makeUser();
    const b = await makeUser();
    const key = `shared-${randomBytes(8).toString("hex")}`;
    const name = `scoped ${key}`;
    const ra = await api("POST", "/v1/workspaces", {
      token: a.token,
      body: { name },
      headers: { "idempotency-key": key },
    });
    const rb = await api("POST", "/v1/workspaces", {
      token: b.token,
      body: { name },
      headers: { "idempotency-key": key },
    });
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.headers.get("idempotent-replayed")).toBeNull();
    expect(rb.json.id).not.toBe(ra.json.id);
    expect(await listAll(a.token)).toEqual([ra.json.id]);
    expect(await listAll(b.token)).toEqual([rb.json.id]);
    expect(await db().workspace.count({ where: { name } })).toBe(2);
  });
});
