import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { db } from "@/server/platform/db/client";
import { api, makeUser, makeWorkspace } from "./support/api";
import {
  addAiProvider,
  aiCapability,
  bootBridgeApp,
  bridge,
  bridgeToken,
  kvCapability,
  makeCredential,
  makeProduct,
  setupBridge,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * The permission and policy steps of the Bridge pipeline (docs/decisions.md
 * "Bridge: permission and policy"): a service identity's own permissions
 * (permission_denied), and the owner's bindings' own scope (policy_blocked),
 * each with the reason, the recorded invocation and audit, and no usage.
 */
let openai: TOpenAiServer;

beforeAll(async () => {
  await bootBridgeApp();
  openai = await startOpenAiServer("sk-policy-test-key-0001");
});

afterAll(async () => {
  await openai.close();
});

async function identity(s: TBridgeSetup, permissions?: unknown) {
  return api("POST", `/v1/workspaces/${s.ws}/service-identities`, {
    token: s.owner.token,
    body: { name: "scoped", product_id: s.productId, ...(permissions === undefined ? {} : { permissions }) },
  });
}

async function teamPlan(s: TBridgeSetup): Promise<void> {
  expect(
    (await api("PUT", `/v1/workspaces/${s.ws}/plan`, { token: s.owner.token, body: { plan: "team" } })).status,
  ).toBe(200);
}

describe("service identity permissions (permission_denied)", () => {
  it("refuses malformed permissions with a pointer to each bad item and creates nothing", async () => {
    const s = await setupBridge({ capabilities: [kvCapability()] });
    const before = await db().serviceIdentity.count({ where: { workspaceId: s.ws } });
    for (const [permissions, path] of [
      [["data.kv"], "/permissions/0"],
      [["data.kv:get", "data.kv:fly"], "/permissions/1"],
      [["sms.send:*"], "/permissions/0"],
      [["data.kv:get:x"], "/permissions/0"],
      [["data.kv:get", "data.kv:get"], "/permissions/1"],
      [[], "/permissions"],
      ["data.kv:get", "/permissions"],
    ] as const) {
      const r = await identity(s, permissions);
      expect(r.status, r.text).toBe(422);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(
        r.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(permissions),
      ).toContain(path);
    }
    expect(await db().serviceIdentity.count({ where: { workspaceId: s.ws } })).toBe(before);
  });

  it("an identity may call only the actions it was granted, on top of the contract", async () => {
    const s = await setupBridge({ capabilities: [kvCapability()] });
    const created = await identity(s, ["data.kv:get", "data.kv:list"]);
    expect(created.status, created.text).toBe(201);
    expect(created.json.permissions).toEqual(["data.kv:get", "data.kv:list"]);
    const read = await api("GET", `/v1/workspaces/${s.ws}/service-identities/${created.json.id}`, {
      token: s.owner.token,
    });
    expect(read.json.permissions).toEqual(["data.kv:get", "data.kv:list"]);
    const audit = await db().auditRecord.findFirstOrThrow({
      where: { targetId: created.json.id, action: "service_identity.created" },
    });
    expect((audit.details as { permissions: string[] }).permissions).toEqual(["data.kv:get", "data.kv:list"]);

    // The unrestricted identity of setupBridge writes a value; the scoped one can read it but not write.
    expect((await bridge(s.token, "data.kv", "set", { key: "/app/k", value: 1 })).status).toBe(200);
    const token = await bridgeToken(created.json.id, created.json.client_secret);
    const get = await bridge(token, "data.kv", "get", { key: "/app/k" });
    expect(get.status, get.text).toBe(200);
    expect(get.json.output).toMatchObject({ value: 1 });

    // Budget leases go back first (an idle lease returning between the snapshots changes reservedUnits, not what was charged).
    const storageBudget = async () => {
      await returnLeases();
      return (await db().budget.findMany({ where: { workspaceId: s.ws, usageCategory: "storage" } })).map(
        ({ updatedAt: _updated, ...b }) => b,
      );
    };
    const budgetBefore = await storageBudget();
    const set = await bridge(token, "data.kv", "set", { key: "/app/k", value: 2 });
    expect(set.status, set.text).toBe(403);
    expect(set.headers.get("content-type")).toBe("application/problem+json");
    expect(set.json).toMatchObject({ reason: "permission_denied", outcome: "denied" });
    expect(set.json.detail).toContain("data.kv:set");
    // Nothing written, nothing charged; the denial is recorded and audited.
    expect((await bridge(s.token, "data.kv", "get", { key: "/app/k" })).json.output).toMatchObject({ value: 1 });
    expect(await storageBudget()).toEqual(budgetBefore);
    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: set.json.capability_invocation_id } });
    expect(row).toMatchObject({ outcome: "denied", reason: "permission_denied", serviceIdentityId: created.json.id });
    const denied = await db().auditRecord.findMany({ where: { workspaceId: s.ws, action: "capability.denied" } });
    expect(denied.some((a) => (a.details as { reason: string }).reason === "permission_denied")).toBe(true);
  });

  it("a wildcard grants every action of one capability; the contract still decides first", async () => {
    const s = await setupBridge({ capabilities: [kvCapability({ actions: ["get", "set"] })] });
    const created = await identity(s, ["data.kv:*"]);
    const token = await bridgeToken(created.json.id, created.json.client_secret);
    expect((await bridge(token, "data.kv", "set", { key: "/app/w", value: "x" })).status).toBe(200);
    // delete is granted by the wildcard but not in the contract: outside_contract, not permission_denied.
    const del = await bridge(token, "data.kv", "delete", { key: "/app/w" });
    expect(del.status).toBe(403);
    expect(del.json.reason).toBe("outside_contract");
    // ai.generate is in neither: the contract decides first.
    const ai = await bridge(token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(ai.json.reason).toBe("outside_contract");
  });
});

describe("binding scope (policy_blocked)", () => {
  it("a binding's model kinds and max_tokens_per_call limit the call; no provider call, no usage", async () => {
    const s = await setupBridge({
      capabilities: [aiCapability({ scope: { models: ["text", "embedding"], max_tokens_per_call: 256 } })],
      providers: [
        { provider: "openai", baseUrl: openai.baseUrl, apiKey: openai.apiKey, models: ["text"], maxTokensPerCall: 50 },
      ],
    });
    await teamPlan(s);
    const calls = openai.calls.length;

    const embed = await bridge(s.token, "ai.generate", "generate", { model_kind: "embedding", input: { text: "hi" } });
    expect(embed.status, embed.text).toBe(403);
    expect(embed.json).toMatchObject({ reason: "policy_blocked", outcome: "denied" });
    expect(embed.json.detail).toContain("model kind embedding");

    const big = await bridge(s.token, "ai.generate", "generate", {
      model_kind: "text",
      input: { text: "hi" },
      max_tokens: 100,
    });
    expect(big.status).toBe(403);
    expect(big.json.reason).toBe("policy_blocked");
    expect(big.json.detail).toContain("max_tokens_per_call 50");
    expect(openai.calls.length).toBe(calls);
    const ai = await db().budget.findMany({ where: { workspaceId: s.ws, usageCategory: "ai_tokens" } });
    expect(ai.every((b) => b.usedUnits === 0 && b.reservedUnits === 0)).toBe(true);

    // Without an explicit max_tokens the call is capped at the binding's limit, not the contract's 256.
    openai.behave({ mode: "ok", tokens: "max_tokens" });
    const ok = await bridge(s.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(ok.status, ok.text).toBe(200);
    expect(openai.calls.at(-1)!.body.max_tokens).toBe(50);
    expect(ok.json.usage).toEqual({ units: 50, unit: "tokens" });
  });

  it("a binding that covers the request serves it when another does not", async () => {
    const s = await setupBridge({
      capabilities: [aiCapability({ provider: { allow: ["narrow", "wide"], prefer: "narrow", fallback: "none" } })],
      providers: [
        { provider: "narrow", baseUrl: openai.baseUrl, apiKey: openai.apiKey, models: ["text"] },
        { provider: "wide", baseUrl: openai.baseUrl, apiKey: openai.apiKey, models: ["text", "embedding"] },
      ],
    });
    await teamPlan(s);
    openai.behave({ mode: "ok", tokens: 3 });
    const r = await bridge(s.token, "ai.generate", "generate", { model_kind: "embedding", input: { text: "hi" } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ provider: "wide", fallback_used: false });
    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: r.json.capability_invocation_id } });
    expect(row.bindingId).toBe(s.providers.wide!.bindingId);
  });

  it("email.send: the binding's from addresses, recipient domains and sizes apply before any SMTP connection", async () => {
    const contract = {
      id: "email.send" as const,
      required: true,
      actions: ["send"],
      credential_owner: "workspace" as const,
      scope: {
        from_addresses: ["app@example.com", "ops@example.com"],
        recipient_domains: ["*"],
        max_recipients: 10,
        max_message_bytes: 5000,
      },
      provider: { allow: ["smtp"], fallback: "none" as const },
    };
    const s = await setupBridge({ capabilities: [contract] });
    await teamPlan(s);
    const credentialId = await makeCredential(s.owner, s.ws, "mailer:pw-123456", {
      provider: "smtp",
      capability: "email.send",
      actions: ["send"],
    });
    const b = await api("POST", `/v1/workspaces/${s.ws}/provider-bindings`, {
      token: s.owner.token,
      body: {
        credential_id: credentialId,
        capability: "email.send",
        actions: ["send"],
        scope: [],
        budget: { units: 1000, unit: "tokens" },
        capability_scope: {
          id: "email.send",
          scope: {
            from_addresses: ["app@example.com"],
            recipient_domains: ["example.org"],
            max_recipients: 2,
            max_message_bytes: 100,
          },
        },
        // Nothing listens on port 1: a call that got past the policy would fail as provider_unavailable.
        provider_config: { host: "127.0.0.1", port: 1, secure: false },
      },
    });
    expect(b.status, b.text).toBe(201);
    const mail = { from: "app@example.com", recipients: ["ada@example.org"], subject: "Hi", text: "Hello" };
    for (const [body, words] of [
      [{ ...mail, from: "ops@example.com" }, "from address ops@example.com"],
      [{ ...mail, recipients: ["bob@example.net"] }, "recipient bob@example.net"],
      [{ ...mail, recipients: ["a@example.org", "b@example.org", "c@example.org"] }, "max_recipients 2"],
      [{ ...mail, text: "x".repeat(200) }, "allows 100"],
    ] as const) {
      const r = await bridge(s.token, "email.send", "send", body);
      expect(r.status, r.text).toBe(403);
      expect(r.json.reason).toBe("policy_blocked");
      expect(r.json.detail).toContain(words);
    }
    const through = await bridge(s.token, "email.send", "send", mail);
    expect(through.json.reason).toBe("provider_unavailable");
    await returnLeases(); // the failed call's lease goes back (leases.service.ts)
    const pc = await db().budget.findMany({ where: { workspaceId: s.ws, usageCategory: "provider_call" } });
    expect(pc.every((x) => x.usedUnits === 0 && x.reservedUnits === 0)).toBe(true);
  });

  it("a revoked binding is seen at once by the next call, and another workspace's bindings never serve a call", async () => {
    const owner = await makeUser();
    const other = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: openai.baseUrl, apiKey: openai.apiKey }],
    });
    await teamPlan(other);
    openai.behave({ mode: "ok", tokens: 2 });
    expect(
      (await bridge(other.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } })).status,
    ).toBe(200);
    const revoked = await api(
      "DELETE",
      `/v1/workspaces/${other.ws}/provider-bindings/${other.providers.openai!.bindingId}`,
      { token: owner.token },
    );
    expect(revoked.status, revoked.text).toBe(204);
    const after = await bridge(other.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(after.json.reason).toBe("binding_revoked");

    // Same owner, second workspace, no binding of its own: the first workspace's (new) binding does not serve it.
    await addAiProvider(owner, other.ws, { provider: "openai", baseUrl: openai.baseUrl, apiKey: openai.apiKey });
    const ws2 = (await makeWorkspace(owner.token)).id;
    const { productId } = await makeProduct(owner, ws2, [aiCapability()]);
    const svc = await api("POST", `/v1/workspaces/${ws2}/service-identities`, {
      token: owner.token,
      body: { name: "b", product_id: productId },
    });
    const token = await bridgeToken(svc.json.id, svc.json.client_secret);
    expect(
      (await api("PUT", `/v1/workspaces/${ws2}/plan`, { token: owner.token, body: { plan: "team" } })).status,
    ).toBe(200);
    const r = await bridge(token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(r.status).toBe(409);
    expect(r.json.reason).toBe("binding_missing");
  });
});

describe("bridge.rejected", () => {
  it("audits an authenticated caller's refused request once per identity and reason per window, never an anonymous one", async () => {
    const s = await setupBridge({ capabilities: [kvCapability()] });
    const audits = () =>
      db().auditRecord.findMany({ where: { workspaceId: s.ws, action: "bridge.rejected" }, orderBy: { seq: "asc" } });
    const bad = await bridge(s.token, "data.kv", "set", { key: "no-slash", value: 1 });
    expect(bad.status).toBe(422);
    expect((await bridge(s.token, "data.kv", "set", { key: "/app/x", value: 1, extra: true })).status).toBe(422);
    expect((await bridge(s.token, "data.kv", "get", "{not json")).status).toBe(400);
    const rows = await audits();
    // One per reason in the window: the second 422 was folded into the first.
    expect(rows.map((r) => (r.details as { status: number }).status)).toEqual([422, 400]);
    expect(rows[0]).toMatchObject({ actorKind: "service", actorId: s.svc.id, targetId: s.svc.id });
    expect(rows[0]!.details).toMatchObject({ path: "/v1/capabilities/data.kv/set", suppressed_before: 0 });
    // No token, or a forged one: nothing to attribute, nothing audited.
    expect((await bridge(null, "data.kv", "get", { key: "/app/x" })).status).toBe(401);
    expect((await bridge("forged.token.value", "data.kv", "get", { key: "/app/x" })).status).toBe(401);
    expect((await audits()).length).toBe(2);
    // Nothing was recorded as a capability invocation for these refusals.
    expect(await db().capabilityInvocation.count({ where: { workspaceId: s.ws } })).toBe(0);
  });
});
