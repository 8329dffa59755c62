import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { anthropicGenerate } from "@/server/bridge/providers/anthropic";
import { ProviderError, type TAiCall } from "@/server/bridge/providers/openai";
import { db } from "@/server/platform/db/client";
import { api, makeUser, type TTestUser } from "./support/api";
import {
  addAiProvider,
  aiCapability,
  bootBridgeApp,
  bridge,
  makeCredential,
  setupBridge,
  type TBridgeResult,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { closedPortUrl, startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * ai.generate through bindings with provider_config.api_style "anthropic"
 * (Anthropic Messages API), against the loopback test server's
 * POST /v1/messages: wire format, usage, error mapping, the embedding rule
 * (anthropic-style bindings are never picked for embeddings), fallback
 * between API styles, and the key staying out of every record.
 */

let owner: TTestUser;
let claude: TOpenAiServer;
let openai: TOpenAiServer;
const servers: TOpenAiServer[] = [];
/** Every workspace this file touched, for the final "the key is nowhere" check. */
const workspaces = new Set<string>();

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  claude = await startOpenAiServer(`sk-ant-${randomBytes(16).toString("hex")}`);
  openai = await startOpenAiServer(`sk-oai-${randomBytes(16).toString("hex")}`);
  servers.push(claude, openai);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

type TAnthropicSpec = {
  baseUrl: string;
  apiKey: string;
  models?: Array<"text" | "embedding">;
  provider?: string;
  providerModels?: { text?: string; embedding?: string };
};

/** The provider-bindings request of an ai.generate binding with provider_config {base_url, api_style: "anthropic"}. */
function anthropicBindingBody(credentialId: string, p: TAnthropicSpec) {
  const models = p.models ?? ["text"];
  return {
    credential_id: credentialId,
    capability: "ai.generate",
    actions: ["generate"],
    scope: [],
    budget: { units: 1_000_000, unit: "tokens" },
    capability_scope: {
      id: "ai.generate",
      scope: { models, max_tokens_per_call: 100_000 },
      provider_models: p.providerModels ?? {
        text: "claude-test-model",
        ...(models.includes("embedding") ? { embedding: "claude-embed" } : {}),
      },
    },
    provider_config: { base_url: p.baseUrl, api_style: "anthropic" },
  };
}

/** A credential and a ready anthropic-style ai.generate binding, over the REST API. */
async function addAnthropicBinding(
  s: TBridgeSetup,
  p: TAnthropicSpec,
): Promise<{ credentialId: string; bindingId: string }> {
  const provider = p.provider ?? "anthropic";
  const credentialId = await makeCredential(s.owner, s.ws, p.apiKey, { provider });
  const r = await api("POST", `/v1/workspaces/${s.ws}/provider-bindings`, {
    token: s.owner.token,
    body: anthropicBindingBody(credentialId, p),
  });
  expect(r.status, r.text).toBe(201);
  expect(r.json).toMatchObject({
    status: "ready",
    provider,
    provider_config: { base_url: p.baseUrl, api_style: "anthropic" },
  });
  s.providers[provider] = { credentialId, bindingId: r.json.id };
  return { credentialId, bindingId: r.json.id };
}

async function setup(
  capability = aiCapability({ provider: { allow: ["anthropic"], fallback: "none" } }),
): Promise<TBridgeSetup> {
  const s = await setupBridge({ owner, capabilities: [capability] });
  workspaces.add(s.ws);
  return s;
}

function expectDenied(r: TBridgeResult, status: number, reason: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.json.reason).toBe(reason);
  expect(r.json.capability_invocation_id).toMatch(/^cap_/);
}

async function aiBudget(s: TBridgeSetup) {
  // reserved_units includes an idle budget lease's unused part until it goes back (LEASE_IDLE_MS): settle it first.
  await returnLeases();
  const r = await api("GET", `/v1/workspaces/${s.ws}/budgets`, { token: s.owner.token });
  expect(r.status).toBe(200);
  return r.json.items.find((b: { usage_category: string }) => b.usage_category === "ai_tokens");
}

describe("ai.generate on an anthropic-style binding", () => {
  it("sends a Messages request (model, max_tokens, system hoisted, x-api-key, anthropic-version) and reports input + output tokens", async () => {
    const s = await setup(
      aiCapability({
        provider: { allow: ["anthropic"], fallback: "none" },
        scope: { models: ["text"], max_tokens_per_call: 64 },
      }),
    );
    await addAnthropicBinding(s, { baseUrl: claude.baseUrl, apiKey: claude.apiKey });
    claude.behave({ mode: "ok", text: "hello from claude", tokens: 9 });
    const before = claude.calls.length;
    const r = await bridge(s.token, "ai.generate", "generate", {
      model_kind: "text",
      input: {
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "hi" },
          { role: "assistant", content: "hey" },
          { role: "system", content: "and polite" },
          { role: "user", content: "again" },
        ],
      },
      max_tokens: 32,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      capability: "ai.generate",
      action: "generate",
      outcome: "completed",
      provider: "anthropic",
      fallback_used: false,
      usage: { units: 9, unit: "tokens" },
      output: { text: "hello from claude" },
    });
    expect(claude.calls.length).toBe(before + 1);
    const seen = claude.calls.at(-1)!;
    expect(seen.path).toBe("/v1/messages");
    expect(seen.authorized).toBe(true);
    expect(seen.body).toEqual({
      model: "claude-test-model",
      max_tokens: 32,
      system: "be brief\n\nand polite",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hey" },
        { role: "user", content: "again" },
      ],
    });
    expect(seen.headers["x-api-key"]).toBe(claude.apiKey);
    expect(seen.headers["anthropic-version"]).toBe("2023-06-01");
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(seen.headers.authorization).toBeUndefined();

    // The invocation row names the binding and the provider; the budget is charged input + output tokens.
    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: r.json.capability_invocation_id } });
    expect(row).toMatchObject({
      provider: "anthropic",
      bindingId: s.providers.anthropic!.bindingId,
      fallbackUsed: false,
    });
    expect(await aiBudget(s)).toMatchObject({ used_units: 9, reserved_units: 0 });

    // {text} input: one user message, no system field; without max_tokens the contract's max_tokens_per_call is sent.
    claude.behave({ mode: "ok", text: "plain" });
    const t = await bridge(s.token, "ai.generate", "generate", { model_kind: "text", input: { text: "just text" } });
    expect(t.status, t.text).toBe(200);
    expect(t.json.output).toEqual({ text: "plain" });
    expect(t.json.usage).toEqual({ units: 64, unit: "tokens" }); // the server answers max_tokens tokens (32 in + 32 out)
    expect(claude.calls.at(-1)!.body).toEqual({
      model: "claude-test-model",
      max_tokens: 64,
      messages: [{ role: "user", content: "just text" }],
    });
  });

  it("refuses an anthropic-style binding whose scope lists embedding (422 naming the model), creating nothing", async () => {
    const s = await setup();
    const credentialId = await makeCredential(s.owner, s.ws, claude.apiKey, { provider: "anthropic" });
    const r = await api("POST", `/v1/workspaces/${s.ws}/provider-bindings`, {
      token: s.owner.token,
      body: anthropicBindingBody(credentialId, {
        baseUrl: claude.baseUrl,
        apiKey: claude.apiKey,
        models: ["text", "embedding"],
      }),
    });
    expect(r.status, r.text).toBe(422);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    expect(r.json.errors).toEqual([
      { path: "/capability_scope/scope/models/1", message: expect.stringContaining("no embeddings") },
    ]);
    const list = await api("GET", `/v1/workspaces/${s.ws}/provider-bindings`, { token: s.owner.token });
    expect(list.json.items).toEqual([]);
  });

  it("embedding: a text-only anthropic binding does not cover it (policy_blocked, 403) and nothing is sent", async () => {
    const s = await setup();
    await addAnthropicBinding(s, { baseUrl: claude.baseUrl, apiKey: claude.apiKey });
    const before = claude.calls.length;
    const r = await bridge(s.token, "ai.generate", "generate", {
      model_kind: "embedding",
      input: { text: "vector me" },
    });
    expectDenied(r, 403, "policy_blocked");
    expect(r.json.outcome).toBe("denied");
    expect(r.json.detail).toContain("model kind embedding is not in its scope");
    expect(claude.calls.length).toBe(before);
    expect(await aiBudget(s)).toMatchObject({ used_units: 0, reserved_units: 0 });
    // Text still goes through the same binding.
    claude.behave({ mode: "ok" });
    expect(
      (await bridge(s.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } })).status,
    ).toBe(200);
  });

  it("embedding: with an openai-style binding allowed too, that binding serves it, even when anthropic is preferred and fallback is none", async () => {
    const s = await setup(
      aiCapability({ provider: { allow: ["anthropic", "openai"], prefer: "anthropic", fallback: "none" } }),
    );
    await addAnthropicBinding(s, { baseUrl: claude.baseUrl, apiKey: claude.apiKey });
    s.providers.openai = await addAiProvider(s.owner, s.ws, {
      provider: "openai",
      baseUrl: openai.baseUrl,
      apiKey: openai.apiKey,
    });
    openai.behave({ mode: "ok", tokens: 5 });
    const claudeBefore = claude.calls.length;
    const r = await bridge(s.token, "ai.generate", "generate", {
      model_kind: "embedding",
      input: { text: "vector me" },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      provider: "openai",
      fallback_used: false,
      output: { embedding: [0.1, 0.2, 0.3] },
      usage: { units: 5 },
    });
    expect(claude.calls.length).toBe(claudeBefore);
    expect(openai.calls.at(-1)!.path).toBe("/v1/embeddings");
    openai.behave({ mode: "ok" });
    // Text goes to the preferred anthropic binding.
    const text = await bridge(s.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(text.json).toMatchObject({ provider: "anthropic", fallback_used: false });
    expect(claude.calls.at(-1)!.path).toBe("/v1/messages");
  });
});

describe("provider errors", () => {
  let s: TBridgeSetup;
  const hi = { model_kind: "text", input: { text: "hi" } };
  beforeAll(async () => {
    s = await setup();
    await addAnthropicBinding(s, { baseUrl: claude.baseUrl, apiKey: claude.apiKey });
  });
  afterAll(() => claude.behave({ mode: "ok" }));

  it("a 400 is provider_rejected (422)", async () => {
    claude.behave({ mode: "400" });
    const r = await bridge(s.token, "ai.generate", "generate", hi);
    expectDenied(r, 422, "provider_rejected");
    expect(r.json.outcome).toBe("failed");
    expect(r.json.detail).toContain("anthropic");
    expect(await aiBudget(s)).toMatchObject({ used_units: 0, reserved_units: 0 });
  });

  it("a 500 and a 529 (overloaded) are provider_unavailable (503)", async () => {
    for (const mode of ["500", "529"] as const) {
      claude.behave({ mode });
      const before = claude.calls.length;
      const r = await bridge(s.token, "ai.generate", "generate", hi);
      expectDenied(r, 503, "provider_unavailable");
      expect(r.json.outcome).toBe("failed");
      expect(claude.calls.length).toBe(before + 1);
    }
    expect(await aiBudget(s)).toMatchObject({ used_units: 0, reserved_units: 0 });
  });

  it("a wrong key is provider_rejected (the server's 401); an unreachable provider is provider_unavailable", async () => {
    claude.behave({ mode: "ok" });
    const wrong = await setup();
    await addAnthropicBinding(wrong, {
      baseUrl: claude.baseUrl,
      apiKey: `sk-ant-wrong-${randomBytes(8).toString("hex")}`,
    });
    const r = await bridge(wrong.token, "ai.generate", "generate", hi);
    expectDenied(r, 422, "provider_rejected");
    expect(r.json.detail).toContain("401");
    expect(claude.calls.at(-1)!.authorized).toBe(false);

    const down = await setup();
    await addAnthropicBinding(down, { baseUrl: await closedPortUrl(), apiKey: "sk-ant-down-0123456789" });
    expectDenied(await bridge(down.token, "ai.generate", "generate", hi), 503, "provider_unavailable");
  });
});

describe("fallback across API styles", () => {
  it("falls back from an anthropic binding that is down to an openai binding (fallback: listed)", async () => {
    const broken = await startOpenAiServer(`sk-ant-broken-${randomBytes(8).toString("hex")}`, { mode: "500" });
    servers.push(broken);
    const s = await setup(
      aiCapability({ provider: { allow: ["anthropic", "openai"], prefer: "anthropic", fallback: "listed" } }),
    );
    await addAnthropicBinding(s, { baseUrl: broken.baseUrl, apiKey: broken.apiKey });
    s.providers.openai = await addAiProvider(s.owner, s.ws, {
      provider: "openai",
      baseUrl: openai.baseUrl,
      apiKey: openai.apiKey,
    });
    openai.behave({ mode: "ok", text: "from openai", tokens: 6 });
    const before = openai.authorizedCalls();
    const r = await bridge(s.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      provider: "openai",
      fallback_used: true,
      outcome: "completed",
      output: { text: "from openai" },
      usage: { units: 6 },
    });
    expect(broken.calls.at(-1)).toMatchObject({ path: "/v1/messages", authorized: true });
    expect(openai.authorizedCalls()).toBe(before + 1);
    expect(openai.calls.at(-1)!.path).toBe("/v1/chat/completions");
    const fb = await db().auditRecord.findMany({
      where: { workspaceId: s.ws, action: "capability.fallback", targetId: r.json.capability_invocation_id },
    });
    expect(fb).toHaveLength(1);
    expect(fb[0]!.details).toMatchObject({ from: "anthropic", to: "openai", binding_id: s.providers.openai.bindingId });
    openai.behave({ mode: "ok" });

    // And the other way round: openai down, the anthropic binding serves.
    const back = await setup(
      aiCapability({ provider: { allow: ["openai", "anthropic"], prefer: "openai", fallback: "listed" } }),
    );
    back.providers.openai = await addAiProvider(back.owner, back.ws, {
      provider: "openai",
      baseUrl: await closedPortUrl(),
      apiKey: "sk-oai-down-0123456789",
    });
    await addAnthropicBinding(back, { baseUrl: claude.baseUrl, apiKey: claude.apiKey });
    claude.behave({ mode: "ok", text: "from claude", tokens: 4 });
    const r2 = await bridge(back.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(r2.status, r2.text).toBe(200);
    expect(r2.json).toMatchObject({
      provider: "anthropic",
      fallback_used: true,
      output: { text: "from claude" },
      usage: { units: 4 },
    });
    claude.behave({ mode: "ok" });
  });
});

describe("the Anthropic key stays secret", () => {
  it("appears in no invocation row, audit record or outbox event, and is blocked if the model echoes it", async () => {
    const s = await setup();
    await addAnthropicBinding(s, { baseUrl: claude.baseUrl, apiKey: claude.apiKey });
    claude.behave({ mode: "echo", text: `my key is ${claude.apiKey}` });
    const echoed = await bridge(s.token, "ai.generate", "generate", {
      model_kind: "text",
      input: { text: "what is your key" },
    });
    expectDenied(echoed, 403, "output_blocked");
    expect(echoed.text).not.toContain(claude.apiKey);
    claude.behave({ mode: "ok" });

    const ids = [...workspaces];
    const str = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
    const rows = await db().capabilityInvocation.findMany({ where: { workspaceId: { in: ids } } });
    const auditRows = await db().auditRecord.findMany({ where: { workspaceId: { in: ids } } });
    const events = await db().outboxEvent.findMany({ where: { workspaceId: { in: ids } } });
    expect(rows.length).toBeGreaterThan(0);
    expect(auditRows.length).toBeGreaterThan(0);
    expect(events.length).toBeGreaterThan(0);
    for (const key of [claude.apiKey, openai.apiKey]) {
      expect(str(rows)).not.toContain(key);
      expect(str(auditRows)).not.toContain(key);
      expect(str(events)).not.toContain(key);
    }
    // And no binding read shows it either.
    const list = await api("GET", `/v1/workspaces/${s.ws}/provider-bindings`, { token: s.owner.token });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(claude.apiKey);
  });
});

describe("anthropicGenerate against a hand-written answer", () => {
  let server: http.Server;
  let baseUrl: string;
  // stallBody: the headers and the first bytes go at once, the rest never.
  let answer: { status: number; body: string; delayMs?: number; stallBody?: boolean } = { status: 200, body: "{}" };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const a = answer;
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(a.status, { "content-type": "application/json" });
          if (a.stallBody) res.write(a.body.slice(0, 5));
          else res.end(a.body);
        }, a.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const call = (over: Partial<TAiCall> = {}): TAiCall => ({
    baseUrl,
    apiKey: "sk-ant-x",
    model: "m",
    modelKind: "text",
    input: { text: "hi" },
    maxTokens: 10,
    timeoutMs: 2_000,
    ...over,
  });
  const failure = async (c: TAiCall) => {
    const err = await anthropicGenerate(c).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  };

  it("joins the text blocks, skips other blocks, sums input and output tokens", async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        type: "message",
        content: [
          { type: "text", text: "Hello, " },
          { type: "tool_use", id: "t", name: "x", input: {} },
          { type: "text", text: "world" },
        ],
        usage: { input_tokens: 3, output_tokens: 4 },
      }),
    };
    expect(await anthropicGenerate(call())).toEqual({
      output: { text: "Hello, world" },
      usage: { units: 7, unit: "tokens" },
      tokens: { input: 3, output: 4 },
    });
  });

  it("invalid JSON and slow answers are unavailable; embeddings and system-only input are rejected without a request", async () => {
    answer = { status: 200, body: "not json" };
    expect((await failure(call())).kind).toBe("unavailable");
    answer = { status: 200, body: "null" };
    expect((await failure(call())).kind).toBe("unavailable");
    expect((await failure(call({ baseUrl: await closedPortUrl() }))).kind).toBe("unavailable");
    answer = { status: 200, body: "{}", delayMs: 1_000 };
    const slow = await failure(call({ timeoutMs: 100 }));
    expect(slow).toMatchObject({ kind: "unavailable", message: "provider timed out" });
    // Headers at once and then a body that stalls: the same deadline covers the body.
    answer = { status: 200, body: JSON.stringify({ content: [], usage: { input_tokens: 1 } }), stallBody: true };
    // (Before, the body's abort read as "invalid JSON"; without a deadline on the body, this would hang.)
    expect(await failure(call({ timeoutMs: 200 }))).toMatchObject({
      kind: "unavailable",
      message: "provider timed out",
    });
    expect((await failure(call({ modelKind: "embedding" }))).kind).toBe("rejected");
    expect((await failure(call({ input: { messages: [{ role: "system", content: "only" }] } }))).kind).toBe("rejected");
    // Rate limited: transient, like an outage (a listed fallback may serve the call).
    answer = {
      status: 429,
      body: JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }),
    };
    expect((await failure(call())).kind).toBe("unavailable");
  });
});
