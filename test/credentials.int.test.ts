import { randomBytes } from "node:crypto";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expireBindings } from "@/server/domain/credentials/bindings.service";
import { readCredentialSecret, reencryptCredentials } from "@/server/domain/credentials/credentials.service";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { currentKekId, resetKeyCache } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { createContextInner } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/root";
import {
  api,
  bootApp,
  makeUser,
  makeWorkspace,
  type TApiResult,
  type TTestUser,
  type TTestWorkspace,
} from "./support/api";
import { expectShape, Page, Problem, zSpecId, zTimestamp, zWorkspaceRef } from "./support/spec-schemas";
import { rowsText } from "./support/json-text";

/**
 * Credentials (spec 2.16) and provider bindings (spec 2.17) through the real
 * /v1 REST boundary: every endpoint, every request bound at its edge, roles
 * and tenancy, the lifecycle audits, the expiry sweep, master-key rotation,
 * and that a credential secret never leaves the request that carried it.
 */

type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Spec 2.16 record (all required) plus our documented `revoked_at`.
const Credential = z.strictObject({
  id: zSpecId("cred"),
  workspace_id: zWorkspaceRef,
  owner_kind: z.enum(["workspace", "platform"]),
  provider: z.string(),
  capability: z.string(),
  actions: z.array(z.string()),
  scope: z.array(z.string()),
  expires_at: zTimestamp,
  created_by: zSpecId("usr"),
  created_at: zTimestamp,
  updated_at: zTimestamp,
  revoked_at: zTimestamp.nullable(),
});
// Ours (spec: provider bindings response not shown); see docs/decisions.md.
const Binding = z.strictObject({
  id: zSpecId("bind"),
  workspace_id: zWorkspaceRef,
  name: z.string().min(1),
  credential_id: zSpecId("cred"),
  capability: z.enum(["ai.generate", "storage.object", "data.kv", "email.send"]),
  provider: z.string(),
  actions: z.array(z.string()),
  scope: z.array(z.string()),
  budget: z.strictObject({
    units: z.number().int(),
    unit: z.literal("tokens"),
    used_units: z.number(),
    reserved_units: z.number(),
  }),
  capability_scope: z.object({ id: z.string() }).passthrough(),
  provider_config: z.record(z.string(), z.unknown()).nullable(),
  status: z.enum(["requested", "ready", "failed", "revoked", "expired"]),
  failure_reason: z.string().nullable(),
  created_by: zSpecId("usr"),
  last_activity_at: zTimestamp.nullable(),
  created_at: zTimestamp,
  updated_at: zTimestamp,
});

const MAX_SAFE = 9007199254740991;
const future = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString();
const credsPath = (ws: string) => `/v1/workspaces/${ws}/credentials`;
const bindsPath = (ws: string) => `/v1/workspaces/${ws}/provider-bindings`;

function credBody(over: TJson = {}): TJson {
  return {
    secret: `sk-test-${randomBytes(12).toString("hex")}`,
    provider: "openai",
    capability: "ai.generate",
    actions: ["generate"],
    scope: ["models/*"],
    expires_at: future(),
    ...over,
  };
}
const AI_SCOPE = {
  id: "ai.generate",
  scope: { models: ["text"], max_tokens_per_call: 4096 },
  provider_models: { text: "gpt-4o-mini" },
};
function bindBody(credentialId: string, over: TJson = {}): TJson {
  return {
    credential_id: credentialId,
    capability: "ai.generate",
    actions: ["generate"],
    scope: ["models/gpt-4o-mini"],
    budget: { units: 100_000, unit: "tokens" },
    capability_scope: AI_SCOPE,
    ...over,
  };
}

function expectProblem(r: TApiResult, status: number, code?: string, reason?: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const p = expectShape(Problem, r.json);
  if (code) expect(p.code).toBe(code);
  if (reason) expect(p.reason).toBe(reason);
  return p;
}
/** 422 problem+json naming `path` among its errors. */
function expect422(r: TApiResult, path: string, reason?: string) {
  const p = expectProblem(r, 422, "validation_failed", reason);
  expect(
    p.errors?.map((e) => e.path),
    r.text,
  ).toContain(path);
  return p;
}

let owner: TTestUser;
let admin: TTestUser;
let developer: TTestUser;
let viewer: TTestUser;
let outsider: TTestUser;
let ws: TTestWorkspace;
let otherOwner: TTestUser;
let otherWs: TTestWorkspace;
let platformToken: string;

async function createCred(token: string, wsId: string, over: TJson = {}): Promise<TJson> {
  const r = await api("POST", credsPath(wsId), { token, body: credBody(over) });
  expect(r.status, r.text).toBe(201);
  return expectShape(Credential, r.json);
}
async function createBinding(token: string, wsId: string, body: TJson): Promise<TJson> {
  const r = await api("POST", bindsPath(wsId), { token, body });
  expect(r.status, r.text).toBe(201);
  return expectShape(Binding, r.json);
}
/** Rows a failed request must not have written. */
async function footprint(wsId: string) {
  const [creds, binds, audits, events] = await Promise.all([
    db().credential.count({ where: { workspaceId: wsId } }),
    db().providerBinding.count({ where: { workspaceId: wsId } }),
    db().auditRecord.count({ where: { workspaceId: wsId } }),
    db().outboxEvent.count({ where: { workspaceId: wsId } }),
  ]);
  return { creds, binds, audits, events };
}
const audits = (wsId: string, action: string, targetId?: string) =>
  db().auditRecord.findMany({
    where: { workspaceId: wsId, action, ...(targetId ? { targetId } : {}) },
    orderBy: { seq: "asc" },
  });

beforeAll(async () => {
  await bootApp();
  [owner, admin, developer, viewer, outsider, otherOwner] = await Promise.all([
    makeUser(),
    makeUser(),
    makeUser(),
    makeUser(),
    makeUser(),
    makeUser(),
  ]);
  ws = await makeWorkspace(owner.token);
  otherWs = await makeWorkspace(otherOwner.token);
  for (const [u, role] of [
    [admin, "admin"],
    [developer, "developer"],
    [viewer, "viewer"],
  ] as const) {
    const r = await api("POST", `/v1/workspaces/${ws.id}/members`, {
      token: owner.token,
      body: { email: u.email, role },
    });
    expect(r.status, r.text).toBeLessThan(300);
  }
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

// ---------------------------------------------------------------------------
describe("credentials: endpoints", () => {
  it("POST creates (201) a workspace credential without the secret; audit and event name no secret", async () => {
    const body = credBody();
    const r = await api("POST", credsPath(ws.id), { token: admin.token, body });
    expect(r.status, r.text).toBe(201);
    const c = expectShape(Credential, r.json);
    expect(c).toMatchObject({
      workspace_id: ws.id,
      owner_kind: "workspace",
      provider: "openai",
      capability: "ai.generate",
      actions: ["generate"],
      scope: ["models/*"],
      created_by: admin.userId,
      revoked_at: null,
    });
    expect(new Date(c.expires_at).getTime()).toBe(new Date(body.expires_at).getTime());
    expect(r.text).not.toContain(body.secret);
    const [a] = await audits(ws.id, "credential.created", c.id);
    expect(a?.details).toMatchObject({ provider: "openai", capability: "ai.generate" });
    const ev = await db().outboxEvent.findFirst({
      where: { workspaceId: ws.id, type: "credential.created", subject: c.id },
    });
    expect(ev?.data).toMatchObject({ credential_id: c.id, provider: "openai" });
    expect(await readCredentialSecret(c.id)).toBe(body.secret);
  });

  it("GET lists and reads metadata; pagination; another workspace's id is 404; bad id 400", async () => {
    const a = await createCred(owner.token, ws.id, { provider: "anthropic" });
    const b = await createCred(owner.token, ws.id, {
      provider: "smtp",
      capability: "email.send",
      actions: ["send"],
      scope: [],
    });
    const one = await api("GET", `${credsPath(ws.id)}/${a.id}`, { token: admin.token });
    expect(one.status, one.text).toBe(200);
    expect(expectShape(Credential, one.json)).toEqual(a);
    const page = await api("GET", `${credsPath(ws.id)}?limit=1`, { token: owner.token });
    expect(page.status, page.text).toBe(200);
    const p1 = expectShape(Page(Credential), page.json);
    expect(p1.items.map((x) => x.id)).toEqual([b.id]);
    const page2 = await api("GET", `${credsPath(ws.id)}?limit=1&cursor=${p1.next_cursor}`, { token: owner.token });
    expect(page2.json.items.map((x: TJson) => x.id)).toEqual([a.id]);
    expectProblem(await api("GET", `${credsPath(otherWs.id)}/${a.id}`, { token: otherOwner.token }), 404, "not_found");
    expectProblem(
      await api("POST", `${credsPath(otherWs.id)}/${a.id}:revoke`, { token: otherOwner.token }),
      404,
      "not_found",
    );
    expectProblem(await api("GET", `${credsPath(ws.id)}/${newId("cred")}`, { token: owner.token }), 404, "not_found");
    expectProblem(await api("GET", `${credsPath(ws.id)}/cred_nope`, { token: owner.token }), 400, "bad_request");
    expect((await api("GET", `${credsPath(otherWs.id)}`, { token: otherOwner.token })).json.items).toEqual([]);
  });

  it("roles: developer and viewer 403 (audited authz.forbidden), non-member 403, no token 401", async () => {
    const c = await createCred(owner.token, ws.id);
    for (const u of [developer, viewer]) {
      expectProblem(await api("GET", credsPath(ws.id), { token: u.token }), 403, "forbidden", "role_required");
      expectProblem(await api("GET", `${credsPath(ws.id)}/${c.id}`, { token: u.token }), 403, "forbidden");
      expectProblem(await api("POST", credsPath(ws.id), { token: u.token, body: credBody() }), 403, "forbidden");
      expectProblem(await api("POST", `${credsPath(ws.id)}/${c.id}:revoke`, { token: u.token }), 403, "forbidden");
    }
    expect((await audits(ws.id, "authz.forbidden")).length).toBeGreaterThanOrEqual(8);
    expectProblem(
      await api("GET", credsPath(ws.id), { token: outsider.token }),
      403,
      "forbidden",
      "workspace_mismatch",
    );
    expectProblem(await api("POST", credsPath(ws.id), { token: outsider.token, body: credBody() }), 403, "forbidden");
    expectProblem(
      await api("POST", credsPath("ws_platform"), { token: owner.token, body: credBody() }),
      403,
      "forbidden",
    );
    expectProblem(await api("GET", credsPath(ws.id)), 401, "unauthenticated");
  });

  it("every spec 2.16 bound: accepted at the edge, 422 with the path one past it, nothing written", async () => {
    const ok = [
      credBody({ secret: "s".repeat(16384) }),
      credBody({ secret: "s" }),
      credBody({ actions: Array.from({ length: 64 }, (_, i) => `a${i}`) }),
      credBody({ scope: Array.from({ length: 200 }, (_, i) => `s${i}`) }),
      credBody({ scope: [] }),
      credBody({
        provider: "p".repeat(128),
        capability: "c".repeat(128),
        actions: ["a".repeat(128)],
        scope: ["s".repeat(128)],
      }),
      credBody({ expires_at: "2099-02-28T23:59:59.123456Z" }),
      credBody({ expires_at: "2096-02-29T00:00:00Z" }),
    ];
    for (const body of ok) {
      const r = await api("POST", credsPath(ws.id), { token: owner.token, body });
      expect(r.status, r.text).toBe(201);
    }
    const before = await footprint(ws.id);
    const bad: [TJson, string][] = [
      [credBody({ secret: "s".repeat(16385) }), "/secret"],
      [credBody({ secret: "" }), "/secret"],
      [credBody({ secret: 42 }), "/secret"],
      [credBody({ actions: Array.from({ length: 65 }, (_, i) => `a${i}`) }), "/actions"],
      [credBody({ actions: [] }), "/actions"],
      [credBody({ actions: ["a".repeat(129)] }), "/actions/0"],
      [credBody({ actions: [""] }), "/actions/0"],
      [credBody({ scope: Array.from({ length: 201 }, (_, i) => `s${i}`) }), "/scope"],
      [credBody({ scope: ["s".repeat(129)] }), "/scope/0"],
      [credBody({ scope: [""] }), "/scope/0"],
      [credBody({ provider: "p".repeat(129) }), "/provider"],
      [credBody({ provider: "" }), "/provider"],
      [credBody({ capability: "c".repeat(129) }), "/capability"],
      [credBody({ capability: "" }), "/capability"],
      [credBody({ expires_at: "2020-01-01T00:00:00Z" }), "/expires_at"],
      [credBody({ expires_at: new Date(Date.now() - 1000).toISOString() }), "/expires_at"],
      [credBody({ expires_at: "2099-01-01T00:00:00+01:00" }), "/expires_at"],
      [credBody({ expires_at: "2099-01-01T00:00:00" }), "/expires_at"],
      [credBody({ expires_at: "2099-02-29T00:00:00Z" }), "/expires_at"],
      [credBody({ expires_at: "2099-01-01" }), "/expires_at"],
      [credBody({ extra: true }), "/extra"],
      [credBody({ secret_sealed: "x" }), "/secret_sealed"],
      [(({ expires_at: _e, ...rest }) => rest)(credBody()), "/expires_at"],
      [(({ scope: _s, ...rest }) => rest)(credBody()), "/scope"],
    ];
    for (const [body, path] of bad) expect422(await api("POST", credsPath(ws.id), { token: owner.token, body }), path);
    expect(await footprint(ws.id)).toEqual(before);
    expectProblem(
      await api("POST", credsPath(ws.id), {
        token: owner.token,
        rawBody: "{",
        headers: { "content-type": "application/json" },
      }),
      400,
    );
  });

  it("ws_platform: its owner creates platform credentials (owner_kind platform)", async () => {
    const c = await createCred(platformToken, "ws_platform", {
      provider: "platform",
      capability: "data.kv",
      actions: ["get", "set"],
      scope: ["*"],
    });
    expect(c).toMatchObject({ workspace_id: "ws_platform", owner_kind: "platform" });
    const listed = await api("GET", `${credsPath(ws.id)}?owner_kind=platform`, { token: admin.token });
    expect(listed.json.items.map((x: TJson) => x.id)).toContain(c.id);
    const own = await api("GET", credsPath(ws.id), { token: admin.token });
    expect(own.json.items.map((x: TJson) => x.id)).not.toContain(c.id);
  });

  it(":revoke (200) is permanent and idempotent, destroys the ciphertext and revokes the bindings using it", async () => {
    const c = await createCred(owner.token, ws.id);
    const b1 = await createBinding(owner.token, ws.id, bindBody(c.id));
    const b2 = await createBinding(owner.token, ws.id, bindBody(c.id, { budget: { units: 5, unit: "tokens" } }));
    const r = await api("POST", `${credsPath(ws.id)}/${c.id}:revoke`, { token: admin.token });
    expect(r.status, r.text).toBe(200);
    const revoked = expectShape(Credential, r.json);
    expect(revoked.revoked_at).not.toBeNull();
    const again = await api("POST", `${credsPath(ws.id)}/${c.id}:revoke`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.json.revoked_at).toBe(revoked.revoked_at);
    expect(await audits(ws.id, "credential.revoked", c.id)).toHaveLength(1);
    expect(await db().outboxEvent.count({ where: { type: "credential.revoked", subject: c.id } })).toBe(1);
    for (const b of [b1, b2]) {
      const g = await api("GET", `${bindsPath(ws.id)}/${b.id}`, { token: owner.token });
      expect(g.json).toMatchObject({ status: "revoked", failure_reason: "credential_revoked" });
      const [a] = await audits(ws.id, "binding.revoked", b.id);
      expect(a?.details).toMatchObject({ credential_id: c.id, reason: "credential_revoked" });
    }
    const row = await db().credential.findUniqueOrThrow({ where: { id: c.id }, omit: { secretSealed: false } });
    expect(row.secretSealed).toBe("");
    await expect(readCredentialSecret(c.id)).rejects.toMatchObject({ reason: "credential_revoked" });
    expect422(
      await api("POST", bindsPath(ws.id), { token: owner.token, body: bindBody(c.id) }),
      "/credential_id",
      "credential_revoked",
    );
  });

  it("a revoke racing binding creations leaves no usable binding behind", async () => {
    for (let round = 0; round < 4; round++) {
      const c = await createCred(owner.token, ws.id);
      const results = await Promise.all([
        ...Array.from({ length: 4 }, () => api("POST", bindsPath(ws.id), { token: owner.token, body: bindBody(c.id) })),
        api("POST", `${credsPath(ws.id)}/${c.id}:revoke`, { token: owner.token }),
      ]);
      for (const r of results) expect([200, 201, 422], r.text).toContain(r.status);
      const rows = await db().providerBinding.findMany({ where: { credentialId: c.id } });
      expect(rows.filter((b) => b.status !== "revoked")).toEqual([]);
    }
  });

  it("readCredentialSecret refuses an expired credential", async () => {
    const c = await createCred(owner.token, ws.id);
    await db().credential.update({ where: { id: c.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(readCredentialSecret(c.id)).rejects.toMatchObject({ reason: "credential_expired" });
    await expect(readCredentialSecret(newId("cred"))).rejects.toMatchObject({ code: "not_found" });
  });
});

// ---------------------------------------------------------------------------
describe("provider bindings: endpoints", () => {
  let aiCred: TJson;
  beforeAll(async () => {
    aiCred = await createCred(owner.token, ws.id, { scope: ["models/gpt-*", "region:eu"] });
  });

  it("POST creates a ready binding (201) with binding.requested then binding.ready and a binding.changed event", async () => {
    const b = await createBinding(
      admin.token,
      ws.id,
      bindBody(aiCred.id, { scope: ["models/gpt-4o-mini", "region:eu"] }),
    );
    expect(b).toMatchObject({
      workspace_id: ws.id,
      credential_id: aiCred.id,
      capability: "ai.generate",
      provider: "openai",
      actions: ["generate"],
      budget: { units: 100000, unit: "tokens", used_units: 0, reserved_units: 0 },
      capability_scope: AI_SCOPE,
      provider_config: null,
      status: "ready",
      failure_reason: null,
      created_by: admin.userId,
    });
    const lifecycle = await db().auditRecord.findMany({ where: { targetId: b.id }, orderBy: { seq: "asc" } });
    expect(lifecycle.map((a) => a.action)).toEqual(["binding.requested", "binding.ready"]);
    const ev = await db().outboxEvent.findFirst({ where: { type: "binding.changed", subject: b.id } });
    expect(ev?.data).toMatchObject({ binding_id: b.id, status: "ready" });
  });

  it("all four capabilities bind; provider_config is stored and returned", async () => {
    const s3 = await createCred(owner.token, ws.id, {
      provider: "s3",
      capability: "storage.object",
      actions: ["read", "write", "list"],
      scope: ["*"],
    });
    const b = await createBinding(owner.token, ws.id, {
      ...bindBody(s3.id),
      capability: "storage.object",
      actions: ["read", "list"],
      scope: ["bucket/assets"],
      capability_scope: { id: "storage.object", scope: { prefix: "/assets/", max_object_bytes: 10_000_000 } },
      provider_config: { endpoint: "https://s3.eu-west-1.amazonaws.com", bucket: "assets", region: "eu-west-1" },
    });
    expect(b.provider_config).toEqual({
      endpoint: "https://s3.eu-west-1.amazonaws.com",
      bucket: "assets",
      region: "eu-west-1",
    });
    const smtp = await createCred(owner.token, ws.id, {
      provider: "smtp",
      capability: "email.send",
      actions: ["send"],
      scope: [],
    });
    await createBinding(owner.token, ws.id, {
      ...bindBody(smtp.id),
      capability: "email.send",
      actions: ["send"],
      scope: [],
      capability_scope: {
        id: "email.send",
        scope: {
          from_addresses: ["noreply@example.com"],
          recipient_domains: ["*"],
          max_recipients: 50,
          max_message_bytes: 1048576,
        },
      },
      provider_config: { host: "smtp.example.com", port: 587, secure: false },
    });
    const kv = await createCred(platformToken, "ws_platform", {
      provider: "platform",
      capability: "data.kv",
      actions: ["get", "set", "list"],
      scope: ["*"],
    });
    const kvBinding = await createBinding(owner.token, ws.id, {
      ...bindBody(kv.id),
      capability: "data.kv",
      actions: ["get", "set"],
      scope: [],
      capability_scope: { id: "data.kv", scope: { prefix: "/app/", max_value_bytes: 65536, max_keys: 100000 } },
    });
    expect(kvBinding).toMatchObject({ provider: "platform", status: "ready", workspace_id: ws.id });
    // Revoking the platform credential revokes the binding in this workspace, audited here.
    expect((await api("POST", `${credsPath("ws_platform")}/${kv.id}:revoke`, { token: platformToken })).status).toBe(
      200,
    );
    expect((await api("GET", `${bindsPath(ws.id)}/${kvBinding.id}`, { token: owner.token })).json.status).toBe(
      "revoked",
    );
    expect(await audits(ws.id, "binding.revoked", kvBinding.id)).toHaveLength(1);
  });

  it("an expired credential gives a failed binding (201) with binding.requested then binding.failed", async () => {
    const c = await createCred(owner.token, ws.id);
    await db().credential.update({ where: { id: c.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const b = await createBinding(owner.token, ws.id, bindBody(c.id));
    expect(b).toMatchObject({ status: "failed", failure_reason: "credential_expired" });
    const lifecycle = await db().auditRecord.findMany({ where: { targetId: b.id }, orderBy: { seq: "asc" } });
    expect(lifecycle.map((a) => a.action)).toEqual(["binding.requested", "binding.failed"]);
    expect(lifecycle[1]?.details).toMatchObject({ reason: "credential_expired" });
  });

  it("every spec 2.17 bound and rule: 422 with errors[].path, nothing written", async () => {
    const wide = await createCred(owner.token, ws.id, { scope: ["*"] });
    const s3 = await createCred(owner.token, ws.id, {
      provider: "s3",
      capability: "storage.object",
      actions: ["read", "list"],
      scope: ["bucket/a"],
    });
    const wsKv = await createCred(owner.token, ws.id, {
      provider: "platform",
      capability: "data.kv",
      actions: ["get"],
      scope: [],
    });
    const foreign = await createCred(otherOwner.token, otherWs.id);
    const aiPlatform = await createCred(platformToken, "ws_platform");
    for (const body of [
      bindBody(wide.id, { actions: Array(64).fill("generate"), scope: Array.from({ length: 200 }, (_, i) => `s${i}`) }),
      bindBody(wide.id, { budget: { units: MAX_SAFE, unit: "tokens" }, scope: [] }),
      bindBody(wide.id, { budget: { units: 1, unit: "tokens" } }),
      bindBody(wide.id, {
        capability_scope: {
          ...AI_SCOPE,
          scope: { models: ["text", "embedding"], max_tokens_per_call: MAX_SAFE },
          provider_models: { text: "t", embedding: "e" },
        },
      }),
    ])
      await createBinding(owner.token, ws.id, body);
    const before = await footprint(ws.id);
    const bad: [TJson, string, string?][] = [
      [bindBody(wide.id, { actions: Array(65).fill("generate") }), "/actions"],
      [bindBody(wide.id, { actions: [] }), "/actions"],
      [bindBody(wide.id, { actions: ["a".repeat(129)] }), "/actions/0"],
      [bindBody(wide.id, { actions: ["send"] }), "/actions/0"],
      [bindBody(wide.id, { scope: Array.from({ length: 201 }, (_, i) => `s${i}`) }), "/scope"],
      [bindBody(wide.id, { scope: ["s".repeat(129)] }), "/scope/0"],
      [bindBody(wide.id, { capability: "c".repeat(129) }), "/capability"],
      [bindBody(wide.id, { capability: "" }), "/capability"],
      [bindBody(wide.id, { capability: "ai.chat" }), "/capability"],
      [bindBody(wide.id, { budget: { units: 0, unit: "tokens" } }), "/budget/units"],
      [bindBody(wide.id, { budget: { units: MAX_SAFE + 1, unit: "tokens" } }), "/budget/units"],
      [bindBody(wide.id, { budget: { units: 1.5, unit: "tokens" } }), "/budget/units"],
      [bindBody(wide.id, { budget: { units: "10", unit: "tokens" } }), "/budget/units"],
      [bindBody(wide.id, { budget: { units: 10, unit: "calls" } }), "/budget/unit"],
      [bindBody(wide.id, { budget: { units: 10 } }), "/budget/unit"],
      [bindBody(wide.id, { budget: { units: 10, unit: "tokens", x: 1 } }), "/budget/x"],
      [
        bindBody(wide.id, { capability_scope: { id: "storage.object", scope: { prefix: "/a", max_object_bytes: 1 } } }),
        "/capability_scope/id",
      ],
      [bindBody(wide.id, { capability_scope: { ...AI_SCOPE, id: "ai.chat" } }), "/capability_scope/id"],
      [
        bindBody(wide.id, { capability_scope: { ...AI_SCOPE, scope: { models: [], max_tokens_per_call: 1 } } }),
        "/capability_scope/scope/models",
      ],
      [
        bindBody(wide.id, { capability_scope: { ...AI_SCOPE, scope: { models: ["text"], max_tokens_per_call: 0 } } }),
        "/capability_scope/scope/max_tokens_per_call",
      ],
      [
        bindBody(wide.id, {
          capability_scope: { ...AI_SCOPE, scope: { models: ["embedding"], max_tokens_per_call: 1 } },
        }),
        "/capability_scope/provider_models/embedding",
      ],
      [
        bindBody(wide.id, { capability_scope: { ...AI_SCOPE, provider_models: { text: "" } } }),
        "/capability_scope/provider_models/text",
      ],
      [
        bindBody(wide.id, { capability_scope: { id: "ai.generate", scope: AI_SCOPE.scope } }),
        "/capability_scope/provider_models",
      ],
      [bindBody(wide.id, { provider_config: { host: "smtp.example.com" } }), "/provider_config/host"],
      [bindBody(wide.id, { provider_config: { base_url: "http://api.example.com/v1" } }), "/provider_config/base_url"],
      [bindBody(wide.id, { provider_config: { base_url: "https://127.0.0.1/v1" } }), "/provider_config/base_url"],
      [
        bindBody(wide.id, { provider_config: { base_url: "https://user:pw@api.example.com/v1" } }),
        "/provider_config/base_url",
      ],
      [
        bindBody(wide.id, { provider_config: { base_url: "https://api.example.com/v1?key=abc" } }),
        "/provider_config/base_url",
      ],
      [bindBody(wide.id, { provider_config: { api_style: "grpc" } }), "/provider_config/api_style"],
      [bindBody(wide.id, { credential_id: "cred_x" }), "/credential_id"],
      [bindBody(wide.id, { extra: 1 }), "/extra"],
      [
        bindBody(wide.id, {
          capability: "storage.object",
          actions: ["read"],
          capability_scope: { id: "storage.object", scope: { prefix: "/a", max_object_bytes: 1 } },
        }),
        "/capability",
      ],
      [
        bindBody(s3.id, {
          capability: "storage.object",
          actions: ["write", "read"],
          scope: [],
          capability_scope: { id: "storage.object", scope: { prefix: "/a", max_object_bytes: 1 } },
        }),
        "/actions/0",
        "outside_credential",
      ],
      [
        bindBody(s3.id, {
          capability: "storage.object",
          actions: ["read"],
          scope: ["bucket/b"],
          capability_scope: { id: "storage.object", scope: { prefix: "/a/../b", max_object_bytes: 1 } },
        }),
        "/capability_scope/scope/prefix",
      ],
      [
        bindBody(s3.id, {
          capability: "storage.object",
          actions: ["read"],
          scope: ["bucket/b"],
          capability_scope: { id: "storage.object", scope: { prefix: "/a", max_object_bytes: 1 } },
        }),
        "/scope/0",
        "outside_credential",
      ],
      [bindBody(aiCred.id, { scope: ["models/claude-3"] }), "/scope/0", "outside_credential"],
      [bindBody(aiCred.id, { scope: ["region:eu2"] }), "/scope/0", "outside_credential"],
      [bindBody(newId("cred")), "/credential_id", "credential_not_found"],
      [bindBody(foreign.id), "/credential_id", "credential_not_found"],
      [bindBody(aiPlatform.id), "/credential_id", "credential_not_found"],
      [
        bindBody(wsKv.id, {
          capability: "data.kv",
          actions: ["get"],
          scope: [],
          capability_scope: { id: "data.kv", scope: { prefix: "/", max_value_bytes: 1, max_keys: 1 } },
        }),
        "/credential_id",
        "credential_owner_mismatch",
      ],
    ];
    for (const [body, path, reason] of bad)
      expect422(await api("POST", bindsPath(ws.id), { token: owner.token, body }), path, reason);
    const dataKv = (scope: TJson) =>
      bindBody(wide.id, { capability: "data.kv", actions: ["get"], capability_scope: { id: "data.kv", scope } });
    expect422(
      await api("POST", bindsPath(ws.id), {
        token: owner.token,
        body: dataKv({ prefix: "/", max_value_bytes: 65537, max_keys: 1 }),
      }),
      "/capability_scope/scope/max_value_bytes",
    );
    expect422(
      await api("POST", bindsPath(ws.id), {
        token: owner.token,
        body: dataKv({ prefix: "/", max_value_bytes: 1, max_keys: 100001 }),
      }),
      "/capability_scope/scope/max_keys",
    );
    const email = (scope: TJson) =>
      bindBody(wide.id, { capability: "email.send", actions: ["send"], capability_scope: { id: "email.send", scope } });
    const okEmail = {
      from_addresses: ["a@example.com"],
      recipient_domains: ["example.com"],
      max_recipients: 1,
      max_message_bytes: 1,
    };
    for (const [over, path] of [
      [{ from_addresses: ["A@example.com"] }, "/capability_scope/scope/from_addresses/0"],
      [{ from_addresses: [] }, "/capability_scope/scope/from_addresses"],
      [{ recipient_domains: Array(33).fill("example.com") }, "/capability_scope/scope/recipient_domains"],
      [{ max_recipients: 51 }, "/capability_scope/scope/max_recipients"],
      [{ max_message_bytes: 1048577 }, "/capability_scope/scope/max_message_bytes"],
    ] as const)
      expect422(
        await api("POST", bindsPath(ws.id), { token: owner.token, body: email({ ...okEmail, ...over }) }),
        path,
      );
    expect(await footprint(ws.id)).toEqual(before);
  });

  it("CAPSTAN_PROVIDER_ALLOW_PRIVATE=1 allows http to loopback only", async () => {
    process.env.CAPSTAN_PROVIDER_ALLOW_PRIVATE = "1";
    resetEnvCache();
    try {
      const b = await createBinding(
        owner.token,
        ws.id,
        bindBody(aiCred.id, { provider_config: { base_url: "http://127.0.0.1:11434/v1", api_style: "openai" } }),
      );
      expect(b.provider_config).toEqual({ base_url: "http://127.0.0.1:11434/v1", api_style: "openai" });
      expect422(
        await api("POST", bindsPath(ws.id), {
          token: owner.token,
          body: bindBody(aiCred.id, { provider_config: { base_url: "http://10.0.0.5/v1" } }),
        }),
        "/provider_config/base_url",
      );
    } finally {
      delete process.env.CAPSTAN_PROVIDER_ALLOW_PRIVATE;
      resetEnvCache();
    }
  });

  it("GET list with filters and GET one; DELETE is 204, idempotent, keeps the binding as revoked", async () => {
    const s3 = await createCred(owner.token, ws.id, {
      provider: "s3",
      capability: "storage.object",
      actions: ["read"],
      scope: [],
    });
    const sb = await createBinding(
      owner.token,
      ws.id,
      bindBody(s3.id, {
        capability: "storage.object",
        actions: ["read"],
        scope: [],
        capability_scope: { id: "storage.object", scope: { prefix: "/", max_object_bytes: 1 } },
      }),
    );
    const list = await api("GET", `${bindsPath(ws.id)}?capability=storage.object&credential_id=${s3.id}`, {
      token: admin.token,
    });
    expect(list.status, list.text).toBe(200);
    expect(expectShape(Page(Binding), list.json).items.map((b) => b.id)).toEqual([sb.id]);
    const ready = await api("GET", `${bindsPath(ws.id)}?status=ready&limit=200`, { token: admin.token });
    expect(ready.json.items.every((b: TJson) => b.status === "ready")).toBe(true);
    expectProblem(
      await api("GET", `${bindsPath(ws.id)}?capability=ai.chat`, { token: admin.token }),
      400,
      "bad_request",
    );
    expectProblem(await api("GET", `${bindsPath(ws.id)}?status=gone`, { token: admin.token }), 400, "bad_request");
    expect(
      expectShape(Binding, (await api("GET", `${bindsPath(ws.id)}/${sb.id}`, { token: admin.token })).json),
    ).toEqual(sb);

    const del = await api("DELETE", `${bindsPath(ws.id)}/${sb.id}`, { token: admin.token });
    expect(del.status, del.text).toBe(204);
    expect(del.text).toBe("");
    expect((await api("DELETE", `${bindsPath(ws.id)}/${sb.id}`, { token: owner.token })).status).toBe(204);
    expect((await api("GET", `${bindsPath(ws.id)}/${sb.id}`, { token: admin.token })).json).toMatchObject({
      status: "revoked",
      failure_reason: null,
    });
    expect(await audits(ws.id, "binding.revoked", sb.id)).toHaveLength(1);
    expect(await db().outboxEvent.count({ where: { type: "binding.changed", subject: sb.id } })).toBe(2);
    expect(
      (await api("GET", `${bindsPath(ws.id)}?status=revoked&credential_id=${s3.id}`, { token: admin.token })).json
        .items,
    ).toHaveLength(1);
  });

  it("tenancy and roles: other workspace's bind id 404; developer/viewer/non-member 403", async () => {
    const b = await createBinding(owner.token, ws.id, bindBody(aiCred.id));
    expectProblem(await api("GET", `${bindsPath(otherWs.id)}/${b.id}`, { token: otherOwner.token }), 404, "not_found");
    expectProblem(
      await api("DELETE", `${bindsPath(otherWs.id)}/${b.id}`, { token: otherOwner.token }),
      404,
      "not_found",
    );
    expectProblem(await api("GET", `${bindsPath(ws.id)}/${newId("bind")}`, { token: owner.token }), 404, "not_found");
    expectProblem(await api("DELETE", `${bindsPath(ws.id)}/bind_bad`, { token: owner.token }), 400, "bad_request");
    for (const u of [developer, viewer, outsider]) {
      expectProblem(await api("GET", bindsPath(ws.id), { token: u.token }), 403, "forbidden");
      expectProblem(await api("GET", `${bindsPath(ws.id)}/${b.id}`, { token: u.token }), 403, "forbidden");
      expectProblem(
        await api("POST", bindsPath(ws.id), { token: u.token, body: bindBody(aiCred.id) }),
        403,
        "forbidden",
      );
      expectProblem(await api("DELETE", `${bindsPath(ws.id)}/${b.id}`, { token: u.token }), 403, "forbidden");
    }
    expect((await api("GET", `${bindsPath(ws.id)}/${b.id}`, { token: owner.token })).json.status).toBe("ready");
  });

  it("expireBindings moves ready bindings of expired credentials to expired (audit binding.expired, actor system)", async () => {
    const c = await createCred(owner.token, ws.id);
    const b = await createBinding(owner.token, ws.id, bindBody(c.id));
    expect(b.status).toBe("ready");
    await db().credential.update({ where: { id: c.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await expireBindings()).toBeGreaterThanOrEqual(1);
    expect((await api("GET", `${bindsPath(ws.id)}/${b.id}`, { token: owner.token })).json).toMatchObject({
      status: "expired",
      failure_reason: "credential_expired",
    });
    const [a] = await audits(ws.id, "binding.expired", b.id);
    expect(a).toMatchObject({ actorKind: "system", actorId: null });
    expect(await expireBindings()).toBe(0);
    expect(await audits(ws.id, "binding.expired", b.id)).toHaveLength(1);
  });

  it("the audit API shows the credential and binding lifecycle to admins", async () => {
    for (const action of [
      "credential.created",
      "credential.revoked",
      "binding.requested",
      "binding.ready",
      "binding.failed",
      "binding.revoked",
      "binding.expired",
    ]) {
      const r = await api("GET", `/v1/workspaces/${ws.id}/audit-records?action=${action}&limit=1`, {
        token: admin.token,
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.items.length, action).toBe(1);
    }
  });
});

// ---------------------------------------------------------------------------
describe("master key rotation", () => {
  it("reencryptCredentials re-seals every live credential under the current key", async () => {
    const c = await createCred(owner.token, ws.id, { secret: "rotate-me-please" });
    const oldKey = process.env.CAPSTAN_MASTER_KEY!;
    const oldKek = currentKekId();
    const newKey = randomBytes(32).toString("base64");
    const use = (current: string, previous: string) => {
      process.env.CAPSTAN_MASTER_KEY = current;
      process.env.CAPSTAN_PREVIOUS_MASTER_KEYS = previous;
      resetEnvCache();
      resetKeyCache();
    };
    try {
      use(newKey, oldKey);
      expect(currentKekId()).not.toBe(oldKek);
      expect(await readCredentialSecret(c.id)).toBe("rotate-me-please");
      const live = await db().credential.count({ where: { revokedAt: null } });
      const first = await reencryptCredentials();
      expect(first).toEqual({ updated: live, failed: 0 });
      expect(await db().credential.count({ where: { revokedAt: null, kekId: { not: currentKekId() } } })).toBe(0);
      expect(await db().credential.count({ where: { revokedAt: { not: null }, kekId: { not: "destroyed" } } })).toBe(0);
      expect(await reencryptCredentials()).toEqual({ updated: 0, failed: 0 });
      use(newKey, "");
      expect(await readCredentialSecret(c.id)).toBe("rotate-me-please");
    } finally {
      use(oldKey, newKey);
    }
    expect(await readCredentialSecret(c.id)).toBe("rotate-me-please");
  });
});

// ---------------------------------------------------------------------------
describe("THE SECRET TEST: a credential secret never leaves its request", () => {
  const secrets: string[] = [];
  const captured: string[] = [];
  const restore: (() => void)[] = [];
  const responses: string[] = [];
  const mark = () => {
    const s = `CAPSTAN-SECRET-${randomBytes(16).toString("hex")}`;
    secrets.push(s);
    return s;
  };
  const call = async (method: string, path: string, opts: Parameters<typeof api>[2]) => {
    const r = await api(method, path, opts);
    responses.push(`${r.status} ${JSON.stringify([...r.headers])} ${r.text}`);
    return r;
  };

  beforeAll(() => {
    process.env.LOG_LEVEL = "debug";
    resetEnvCache();
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      // Captured, not forwarded: debug logging of every request would drown the test output.
      stream.write = (chunk: unknown, ...rest: unknown[]) => {
        captured.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
        const done = rest.find((x) => typeof x === "function") as (() => void) | undefined;
        done?.();
        return true;
      };
      restore.push(() => {
        stream.write = original;
      });
    }
  });
  afterAll(() => {
    for (const r of restore) r();
    process.env.LOG_LEVEL = "warn";
    resetEnvCache();
  });

  it("exercises every endpoint, replays and errors with distinctive secrets", async () => {
    const s1 = mark();
    const created = await call("POST", credsPath(ws.id), {
      token: owner.token,
      body: credBody({ secret: s1 }),
      headers: { "idempotency-key": "secret-test-1" },
    });
    expect(created.status).toBe(201);
    const body = credBody({ secret: mark() });
    const first = await call("POST", credsPath(ws.id), {
      token: owner.token,
      body,
      headers: { "idempotency-key": "secret-test-3" },
    });
    const again = await call("POST", credsPath(ws.id), {
      token: owner.token,
      body,
      headers: { "idempotency-key": "secret-test-3" },
    });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.id).toBe(first.json.id);
    expect(
      (
        await call("POST", credsPath(ws.id), {
          token: owner.token,
          body: { ...body, secret: mark() },
          headers: { "idempotency-key": "secret-test-3" },
        })
      ).status,
    ).toBe(422);
    const id = first.json.id as string;
    // Errors that carry a secret in the request.
    const s = mark();
    for (const bad of [
      credBody({ secret: s.repeat(Math.ceil(16385 / s.length)) }),
      credBody({ secret: s, expires_at: "2020-01-01T00:00:00Z" }),
      credBody({ secret: s, extra: s }),
      credBody({ secret: s, actions: [] }),
      credBody({ secret: [s] }),
      credBody({ secret: { value: s } }),
    ])
      expect((await call("POST", credsPath(ws.id), { token: owner.token, body: bad })).status).toBe(422);
    expect(
      (await call("POST", credsPath(ws.id), { token: developer.token, body: credBody({ secret: mark() }) })).status,
    ).toBe(403);
    expect(
      (await call("POST", credsPath(ws.id), { token: outsider.token, body: credBody({ secret: mark() }) })).status,
    ).toBe(403);
    expect(
      (await call("POST", credsPath(ws.id), { token: "not-a-token", body: credBody({ secret: mark() }) })).status,
    ).toBe(401);
    expect(
      (
        await call("POST", credsPath(ws.id), {
          token: owner.token,
          rawBody: `{"secret":"${mark()}",`,
          headers: { "content-type": "application/json" },
        })
      ).status,
    ).toBe(400);
    // Reads, bindings, revoke, expiry.
    await call("GET", credsPath(ws.id), { token: owner.token });
    await call("GET", `${credsPath(ws.id)}/${id}`, { token: owner.token });
    const b = await call("POST", bindsPath(ws.id), {
      token: owner.token,
      body: bindBody(id, { scope: [] }),
      headers: { "idempotency-key": "secret-test-4" },
    });
    expect(b.status).toBe(201);
    await call("POST", bindsPath(ws.id), {
      token: owner.token,
      body: bindBody(id, { scope: [] }),
      headers: { "idempotency-key": "secret-test-4" },
    });
    await call("POST", bindsPath(ws.id), { token: owner.token, body: bindBody(id, { scope: ["nope"] }) });
    await call("GET", bindsPath(ws.id), { token: owner.token });
    await call("GET", `${bindsPath(ws.id)}/${b.json.id}`, { token: owner.token });
    await call("GET", `/v1/workspaces/${ws.id}/audit-records?limit=200`, { token: owner.token });
    expect(await readCredentialSecret(id)).toBe(body.secret);
    await call("DELETE", `${bindsPath(ws.id)}/${b.json.id}`, { token: owner.token });
    await call("POST", `${credsPath(ws.id)}/${id}:revoke`, {
      token: owner.token,
      headers: { "idempotency-key": "secret-test-5" },
    });
    await call("POST", `${credsPath(ws.id)}/${id}:revoke`, {
      token: owner.token,
      headers: { "idempotency-key": "secret-test-5" },
    });
    await expireBindings();
    // The console's transport (tRPC over fetch), success and failure.
    for (const input of [
      { ws: ws.id, ...credBody({ secret: mark() }) },
      { ws: ws.id, ...credBody({ secret: mark(), expires_at: "2020-01-01T00:00:00Z" }) },
      { ws: ws.id, ...credBody({ secret: mark(), bogus: 1 }) },
    ]) {
      const res = await fetchRequestHandler({
        endpoint: "/api/trpc",
        router: appRouter,
        req: new Request("http://localhost:3000/api/trpc/credentials.create", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(input),
        }),
        createContext: () =>
          createContextInner({
            correlationId: newId("evt"),
            principal: { kind: "user", userId: owner.userId, via: { kind: "session" } },
            transport: "trpc",
            request: { method: "POST", path: "/api/trpc/credentials.create" },
          }),
      });
      responses.push(await res.text());
    }
    expect(responses.some((r) => r.includes('"owner_kind":"workspace"'))).toBe(true);
  });

  it("no response, audit record, outbox event, idempotency record, log line or database column holds a secret in clear", async () => {
    const leaks = (where: string, text: string) => secrets.filter((s) => text.includes(s)).map((s) => `${where}: ${s}`);
    const auditRows = await db().auditRecord.findMany({ select: { details: true, action: true, targetId: true } });
    const events = await db().outboxEvent.findMany({ select: { data: true, type: true, subject: true } });
    const idem = await db().idempotencyKey.findMany();
    const credRows = await db().credential.findMany({ omit: { secretSealed: false } });
    const bindingRows = await db().providerBinding.findMany();
    const dump = await db().$queryRawUnsafe<{ t: string }[]>(
      "SELECT string_agg(t, E'\\n') AS t FROM (SELECT row_to_json(x)::text AS t FROM audit_records x UNION ALL SELECT row_to_json(y)::text FROM outbox_events y UNION ALL SELECT row_to_json(z)::text FROM credentials z UNION ALL SELECT row_to_json(w)::text FROM idempotency_keys w) s",
    );
    const found = [
      ...responses.flatMap((r, i) => leaks(`response ${i}`, r)),
      ...leaks("audit_records", JSON.stringify(auditRows)),
      ...leaks("outbox_events", rowsText(events)),
      ...leaks(
        "idempotency_keys",
        JSON.stringify(idem, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
      ),
      ...leaks("credentials", JSON.stringify(credRows)),
      ...leaks(
        "provider_bindings",
        JSON.stringify(bindingRows, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
      ),
      ...leaks("database dump", dump[0]?.t ?? ""),
      ...leaks("logs", captured.join("")),
    ];
    expect(found).toEqual([]);
    expect(secrets.length).toBeGreaterThanOrEqual(10);
    expect(credRows.filter((c) => c.secretSealed !== "").every((c) => c.secretSealed.startsWith("v1.kek_"))).toBe(true);
    expect(responses.length).toBeGreaterThan(20);
    expect(captured.join("")).toContain("http.request");
  });
});
