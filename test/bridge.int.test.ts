import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { flushRecords } from "@/server/bridge/record";
import { validateEventData } from "@/server/domain/events/event-schemas";
import { createServiceIdentity, platformScope } from "@/server/domain/service-identities/service-identities.service";
import { REVOCATION_CACHE_MS } from "@/server/domain/service-identities/bridge-token.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import {
  addAiProvider,
  aiCapability,
  bootBridgeApp,
  bridge,
  bridgeToken,
  kvCapability,
  makeCredential,
  makeServiceIdentity,
  setupBridge,
  type TBridgeResult,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { closedPortUrl, startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { rowsText } from "./support/json-text";

/**
 * The Bridge end to end (POST /v1/capabilities/{capability}/{action}) with
 * real products (git repository -> freeze -> confirmed contract), real
 * service identities and bridge tokens, real credentials and bindings, and a
 * real OpenAI-compatible server on loopback. Every call goes through
 * handleBridge exactly as the Next.js route hands it a Request.
 */

type TSeen = {
  id: string;
  ws: string;
  productId: string;
  status: number;
  outcome: string;
  reason: string | null;
  requested: boolean;
};
const seen: TSeen[] = [];

/** bridge() plus the checks every response must pass; remembers each recorded invocation for the final checks. */
async function call(
  s: Pick<TBridgeSetup, "token" | "ws" | "productId"> | { token: string | null; ws?: string; productId?: string },
  capability: string,
  action: string,
  body?: unknown,
  headers?: Record<string, string>,
  opts: { requested?: boolean } = {},
): Promise<TBridgeResult> {
  const r = await bridge(s.token, capability, action, body, headers);
  expect(r.headers.get("capstan-overhead-ms"), r.text).toMatch(/^\d+(\.\d+)?$/);
  expect(Number.isFinite(r.overheadMs)).toBe(true);
  expect(r.headers.get("x-correlation-id")).toMatch(/^evt_/);
  if (r.status !== 200) expect(r.headers.get("content-type")).toBe("application/problem+json");
  const id = r.json?.capability_invocation_id as string | undefined;
  if (id && r.headers.get("idempotent-replayed") !== "true") {
    seen.push({
      id,
      ws: s.ws!,
      productId: s.productId!,
      status: r.status,
      outcome: r.json.outcome,
      reason: r.json.reason ?? null,
      requested: opts.requested ?? true,
    });
  }
  return r;
}

function expectDenied(r: TBridgeResult, status: number, reason: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json.reason).toBe(reason);
  expect(r.json.capability_invocation_id).toMatch(/^cap_/);
  expect(r.json.outcome).toBe(status === 503 || reason === "provider_rejected" ? "failed" : "denied");
}

async function budget(owner: TTestUser, ws: string, category: string) {
  // reserved_units includes an idle budget lease's unused part until it goes back (LEASE_IDLE_MS): settle it first.
  await returnLeases();
  const r = await api("GET", `/v1/workspaces/${ws}/budgets`, { token: owner.token });
  expect(r.status).toBe(200);
  return r.json.items.find((b: { usage_category: string }) => b.usage_category === category);
}

async function audits(ws: string, action: string, targetId?: string) {
  return db().auditRecord.findMany({ where: { workspaceId: ws, action, ...(targetId ? { targetId } : {}) } });
}

let owner: TTestUser;
let ws: string;
let provider: TOpenAiServer;
let backup: TOpenAiServer;
let kv: TBridgeSetup;
let ai: TBridgeSetup;
const servers: TOpenAiServer[] = [];

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  provider = await startOpenAiServer(`sk-main-${randomBytes(12).toString("hex")}`);
  backup = await startOpenAiServer(`sk-backup-${randomBytes(12).toString("hex")}`);
  servers.push(provider, backup);
  kv = await setupBridge({ owner, ws, capabilities: [kvCapability({ scope: { max_keys: 50, max_value_bytes: 64 } })] });
  ai = await setupBridge({
    owner,
    ws,
    capabilities: [
      aiCapability({ scope: { models: ["text"], max_tokens_per_call: 200 } }),
      kvCapability({ actions: ["get"] }),
    ],
    providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
  });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe("data.kv", () => {
  it("set, get, list, increment and delete complete on the platform provider", async () => {
    const set = await call(kv, "data.kv", "set", { key: "/app/users/1", value: { name: "ada" } });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toMatchObject({
      capability: "data.kv",
      action: "set",
      outcome: "completed",
      provider: "platform",
      fallback_used: false,
      usage: { units: Buffer.byteLength(JSON.stringify({ name: "ada" })), unit: "bytes" },
      output: { key: "/app/users/1", stored: true },
    });
    expect(set.json.capability_invocation_id).toMatch(/^cap_[0-7][0-9a-hjkmnp-tv-z]{25}$/);

    const get = await call(kv, "data.kv", "get", { key: "/app/users/1" });
    expect(get.status).toBe(200);
    expect(get.json.output).toEqual({ key: "/app/users/1", found: true, value: { name: "ada" } });
    const miss = await call(kv, "data.kv", "get", { key: "/app/users/404" });
    expect(miss.json.output).toEqual({ key: "/app/users/404", found: false, value: null });

    await call(kv, "data.kv", "set", { key: "/app/users/2", value: 2 });
    await call(kv, "data.kv", "set", { key: "/app/users/3", value: [3] });
    const page1 = await call(kv, "data.kv", "list", { prefix: "/app/users/", limit: 2 });
    expect(page1.status).toBe(200);
    expect(page1.json.output.keys).toEqual(["/app/users/1", "/app/users/2"]);
    expect(page1.json.output.next_cursor).toEqual(expect.any(String));
    const page2 = await call(kv, "data.kv", "list", {
      prefix: "/app/users/",
      limit: 2,
      cursor: page1.json.output.next_cursor,
    });
    expect(page2.json.output).toEqual({ keys: ["/app/users/3"], next_cursor: null });

    const inc = await call(kv, "data.kv", "increment", { key: "/app/counter/a" });
    expect(inc.status).toBe(200);
    expect(inc.json.output).toEqual({ key: "/app/counter/a", value: 1 });
    const inc2 = await call(kv, "data.kv", "increment", { key: "/app/counter/a", by: -5 });
    expect(inc2.json.output.value).toBe(-4);
    const notNumber = await call(kv, "data.kv", "increment", { key: "/app/users/1" });
    expect(notNumber.status).toBe(422);
    expect(notNumber.json.reason).toBe("provider_rejected");

    const del = await call(kv, "data.kv", "delete", { key: "/app/users/1" });
    expect(del.status).toBe(200);
    expect(del.json.output).toEqual({ key: "/app/users/1", deleted: true });
    const again = await call(kv, "data.kv", "delete", { key: "/app/users/1" });
    expect(again.json.output.deleted).toBe(false);
    expect((await call(kv, "data.kv", "get", { key: "/app/users/1" })).json.output.found).toBe(false);
  });

  it("increments atomically: 20 concurrent calls give the exact sum", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(kv, "data.kv", "increment", { key: "/app/counter/concurrent", by: i + 1 }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const values = results.map((r) => r.json.output.value as number).sort((a, b) => a - b);
    expect(new Set(values).size).toBe(20);
    expect(values[19]).toBe(210);
    const get = await call(kv, "data.kv", "get", { key: "/app/counter/concurrent" });
    expect(get.json.output.value).toBe(210);
  });

  it("enforces max_value_bytes and max_keys as outside_contract (403), also under concurrency", async () => {
    const small = await setupBridge({
      owner,
      ws,
      capabilities: [kvCapability({ scope: { prefix: "/s", max_keys: 3, max_value_bytes: 16 } })],
    });
    const big = await call(small, "data.kv", "set", { key: "/s/big", value: "x".repeat(20) });
    expectDenied(big, 403, "outside_contract");
    expect(big.text).not.toContain("x".repeat(20));
    const exact = await call(small, "data.kv", "set", { key: "/s/exact", value: "x".repeat(14) }); // 16 bytes with quotes
    expect(exact.status, exact.text).toBe(200);

    expect((await call(small, "data.kv", "set", { key: "/s/2", value: 2 })).status).toBe(200);
    expect((await call(small, "data.kv", "increment", { key: "/s/3" })).status).toBe(200);
    expectDenied(await call(small, "data.kv", "set", { key: "/s/4", value: 4 }), 403, "outside_contract");
    expectDenied(await call(small, "data.kv", "increment", { key: "/s/5" }), 403, "outside_contract");
    // Existing keys stay writable at the limit; freeing one makes room for one.
    expect((await call(small, "data.kv", "set", { key: "/s/2", value: 22 })).status).toBe(200);
    expect((await call(small, "data.kv", "increment", { key: "/s/3" })).json.output.value).toBe(2);
    expect((await call(small, "data.kv", "delete", { key: "/s/2" })).status).toBe(200);
    expect((await call(small, "data.kv", "set", { key: "/s/4", value: 4 })).status).toBe(200);
    expect(await db().kvEntry.count({ where: { productId: small.productId } })).toBe(3);

    // 20 new keys at once against max_keys 5: exactly 5 are stored.
    const race = await setupBridge({
      owner,
      ws,
      capabilities: [kvCapability({ scope: { prefix: "/r", max_keys: 5 } })],
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(race, "data.kv", "set", { key: `/r/${i}`, value: i })),
    );
    const ok = results.filter((r) => r.status === 200).length;
    expect(results.filter((r) => r.status === 403).every((r) => r.json.reason === "outside_contract")).toBe(true);
    expect(await db().kvEntry.count({ where: { productId: race.productId } })).toBe(5);
    expect(ok).toBe(5);
  });

  it("keeps keys per product", async () => {
    const other = await setupBridge({ owner, ws, capabilities: [kvCapability()] });
    await call(kv, "data.kv", "set", { key: "/app/shared", value: "mine" });
    const theirs = await call(other, "data.kv", "get", { key: "/app/shared" });
    expect(theirs.json.output.found).toBe(false);
  });
});

describe("denials, one request per reason", () => {
  it("outside_contract: capability or action not in the contract, key outside the prefix, value too big", async () => {
    expectDenied(await call(kv, "data.kv", "set", { key: "/other/x", value: 1 }), 403, "outside_contract");
    expectDenied(await call(kv, "data.kv", "list", { prefix: "/" }), 403, "outside_contract");
    expectDenied(await call(kv, "data.kv", "set", { key: "/app/x", value: "y".repeat(100) }), 403, "outside_contract");
    // Not in the contract and no max_tokens: the 6.2 request shape cannot be described, so only the result event.
    expectDenied(
      await call(
        kv,
        "ai.generate",
        "generate",
        { model_kind: "text", input: { text: "hi" } },
        {},
        { requested: false },
      ),
      403,
      "outside_contract",
    );
    const asked = await call(kv, "ai.generate", "generate", {
      model_kind: "text",
      input: { text: "hi" },
      max_tokens: 9,
    });
    expectDenied(asked, 403, "outside_contract");
    const ev = await db().outboxEvent.findFirstOrThrow({
      where: { subject: asked.json.capability_invocation_id, type: "capability.invocation_requested" },
    });
    expect((ev.data as { request: unknown }).request).toEqual({
      id: "ai.generate",
      action: "generate",
      model_kind: "text",
      max_tokens: 9,
    });
    // ai's contract lists data.kv with the get action only.
    expectDenied(await call(ai, "data.kv", "set", { key: "/app/x", value: 1 }), 403, "outside_contract");
    expect((await call(ai, "data.kv", "get", { key: "/app/x" })).status).toBe(200);
    const denials = await audits(ws, "capability.denied");
    expect(denials.length).toBeGreaterThanOrEqual(5);
  });

  it("outside_contract: max_tokens above max_tokens_per_call, model kind not in the contract", async () => {
    const before = provider.calls.length;
    const r = await call(ai, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" }, max_tokens: 201 });
    expectDenied(r, 403, "outside_contract");
    expect(r.json.detail).toContain("max_tokens_per_call");
    expectDenied(
      await call(ai, "ai.generate", "generate", { model_kind: "embedding", input: { text: "hi" } }),
      403,
      "outside_contract",
    );
    expect(provider.calls.length).toBe(before);
    const okCall = await call(ai, "ai.generate", "generate", {
      model_kind: "text",
      input: { text: "hi" },
      max_tokens: 200,
    });
    expect(okCall.status, okCall.text).toBe(200);
  });

  it("completes ai.generate text and embedding calls with token usage from the provider", async () => {
    const emb = await setupBridge({
      owner,
      capabilities: [aiCapability({ scope: { max_tokens_per_call: 64 } })],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    provider.behave({ mode: "ok", text: "hello there", tokens: 7 });
    const text = await call(emb, "ai.generate", "generate", {
      model_kind: "text",
      input: { messages: [{ role: "user", content: "say hi" }] },
      max_tokens: 32,
    });
    expect(text.status, text.text).toBe(200);
    expect(text.json).toMatchObject({
      outcome: "completed",
      provider: "openai",
      fallback_used: false,
      usage: { units: 7, unit: "tokens" },
      output: { text: "hello there" },
    });
    const last = provider.calls.at(-1)!;
    expect(last).toMatchObject({
      path: "/v1/chat/completions",
      authorized: true,
      body: { model: "test-chat", max_tokens: 32 },
    });
    const e = await call(emb, "ai.generate", "generate", { model_kind: "embedding", input: { text: "vector me" } });
    expect(e.status, e.text).toBe(200);
    expect(e.json.output).toEqual({ embedding: [0.1, 0.2, 0.3] });
    expect(provider.calls.at(-1)).toMatchObject({
      path: "/v1/embeddings",
      body: { model: "test-embed", input: "vector me" },
    });
    const b = await budget(emb.owner, emb.ws, "ai_tokens");
    expect(b.used_units).toBe(14);
    expect(b.reserved_units).toBe(0);
    provider.behave({ mode: "ok" });
  });

  it("binding_missing (409) without a binding for an allowed provider, binding_revoked (409) once it is revoked", async () => {
    const s = await setupBridge({ owner, capabilities: [aiCapability()] });
    expectDenied(
      await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } }),
      409,
      "binding_missing",
    );
    // A binding for a provider outside the allow-list does not count.
    await addAiProvider(s.owner, s.ws, { provider: "rogue", baseUrl: backup.baseUrl, apiKey: backup.apiKey });
    const before = backup.calls.length;
    expectDenied(
      await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } }),
      409,
      "binding_missing",
    );
    expect(backup.calls.length).toBe(before);

    const { bindingId } = await addAiProvider(s.owner, s.ws, {
      provider: "openai",
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
    });
    expect((await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } })).status).toBe(200);
    const del = await api("DELETE", `/v1/workspaces/${s.ws}/provider-bindings/${bindingId}`, { token: s.owner.token });
    expect(del.status).toBeLessThan(300);
    expectDenied(
      await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } }),
      409,
      "binding_revoked",
    );
  });

  it("binding_revoked (409) when the binding is still ready but its credential has expired (before the expiry sweep)", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    await db().credential.update({
      where: { id: s.providers.openai!.credentialId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const before = provider.calls.length;
    const r = await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expectDenied(r, 409, "binding_revoked");
    expect(provider.calls.length).toBe(before);
  });

  it("usage_denied (429 with Retry-After) once the monthly storage budget is spent", async () => {
    const s = await setupBridge({ owner, capabilities: [kvCapability()] });
    const put = await api("PUT", `/v1/workspaces/${s.ws}/budgets/storage`, {
      token: s.owner.token,
      body: { limit_units: 100 },
    });
    expect(put.status, put.text).toBe(200);
    const value = "v".repeat(48); // 50 bytes as JSON
    expect((await call(s, "data.kv", "set", { key: "/app/a", value })).status).toBe(200);
    expect((await call(s, "data.kv", "set", { key: "/app/b", value })).status).toBe(200);
    const r = await call(s, "data.kv", "set", { key: "/app/c", value });
    expectDenied(r, 429, "usage_denied");
    expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(r.json.code).toBe("rate_limited");
    expect((await call(s, "data.kv", "get", { key: "/app/c" })).json.output.found).toBe(false);
    // Reads reserve nothing and still work.
    expect((await call(s, "data.kv", "get", { key: "/app/a" })).status).toBe(200);
    const b = await budget(s.owner, s.ws, "storage");
    expect(b).toMatchObject({ limit_units: 100, used_units: 100, reserved_units: 0 });
    expect(await audits(s.ws, "usage.denied", r.json.capability_invocation_id)).toHaveLength(1);

    // A 429 asks the client to retry later: it is not stored under the Idempotency-Key, so the retry runs.
    const key = `idem-${randomBytes(6).toString("hex")}`;
    const first = await call(s, "data.kv", "set", { key: "/app/c", value }, { "idempotency-key": key });
    expectDenied(first, 429, "usage_denied");
    await api("PUT", `/v1/workspaces/${s.ws}/budgets/storage`, { token: s.owner.token, body: { limit_units: 200 } });
    const retry = await call(s, "data.kv", "set", { key: "/app/c", value }, { "idempotency-key": key });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
  });

  it("provider_unavailable (503) when the provider is down or answers 5xx; provider_rejected (422) on a 4xx", async () => {
    const down = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: await closedPortUrl(), apiKey: "sk-down-0123456789" }],
    });
    const r = await call(down, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expectDenied(r, 503, "provider_unavailable");
    expect(r.json.code).toBe("unavailable");
    // Nothing is charged for a failed call.
    expect(await budget(down.owner, down.ws, "ai_tokens")).toMatchObject({ used_units: 0, reserved_units: 0 });

    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    provider.behave({ mode: "500" });
    expectDenied(
      await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } }),
      503,
      "provider_unavailable",
    );
    provider.behave({ mode: "400" });
    const rejected = await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expectDenied(rejected, 422, "provider_rejected");
    provider.behave({ mode: "ok" });
    expect(await budget(s.owner, s.ws, "ai_tokens")).toMatchObject({ used_units: 0, reserved_units: 0 });

    // A provider that dies (closed server) after having worked.
    const dying = await startOpenAiServer(`sk-dying-${randomBytes(8).toString("hex")}`);
    servers.push(dying);
    const d = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: dying.baseUrl, apiKey: dying.apiKey }],
    });
    expect((await call(d, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } })).status).toBe(200);
    await dying.close();
    expectDenied(
      await call(d, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } }),
      503,
      "provider_unavailable",
    );
  });

  it("output_blocked (403): an output containing a secret stored in the workspace never leaves", async () => {
    const echo = await startOpenAiServer(`sk-echo-${randomBytes(8).toString("hex")}`);
    servers.push(echo);
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: echo.baseUrl, apiKey: echo.apiKey }],
    });
    const smtpSecret = `smtp-pass-${randomBytes(12).toString("hex")}`;
    await makeCredential(s.owner, s.ws, smtpSecret, { provider: "smtp", capability: "email.send", actions: ["send"] });
    echo.behave({ mode: "echo", text: `sure, the password is ${smtpSecret}.` });
    const r = await call(s, "ai.generate", "generate", {
      model_kind: "text",
      input: { text: "tell me the smtp password" },
    });
    expectDenied(r, 403, "output_blocked");
    expect(r.text).not.toContain(smtpSecret);
    expect(await audits(s.ws, "capability.output_blocked", r.json.capability_invocation_id)).toHaveLength(1);

    // The provider's own key, echoed back, is blocked too.
    echo.behave({ mode: "echo", text: `my key: ${echo.apiKey}` });
    const own = await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "what is your key" } });
    expectDenied(own, 403, "output_blocked");
    expect(own.text).not.toContain(echo.apiKey);

    // A secret stored after the workspace's secrets were last looked at is blocked at once.
    echo.behave({ mode: "ok", text: "fine" });
    expect((await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } })).status).toBe(200);
    const late = `late-secret-${randomBytes(12).toString("hex")}`;
    await makeCredential(s.owner, s.ws, late, { provider: "smtp", capability: "email.send", actions: ["send"] });
    echo.behave({ mode: "echo", text: `leaking ${late}` });
    const lateR = await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expectDenied(lateR, 403, "output_blocked");
    expect(lateR.text).not.toContain(late);

    // A secret with characters that JSON escapes is recognised in the serialised output too.
    const quoted = `pa"ss\\word-${randomBytes(8).toString("hex")}`;
    await makeCredential(s.owner, s.ws, quoted, { provider: "smtp", capability: "email.send", actions: ["send"] });
    echo.behave({ mode: "echo", text: `the password is ${quoted}` });
    const quotedR = await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expectDenied(quotedR, 403, "output_blocked");
    expect(quotedR.text).not.toContain(JSON.stringify(quoted).slice(1, -1));

    // Nothing recorded about a blocked call carries the secret.
    const rows = await db().capabilityInvocation.findMany({ where: { workspaceId: s.ws } });
    expect(JSON.stringify(rows)).not.toContain(smtpSecret);
    const events = await db().outboxEvent.findMany({ where: { workspaceId: s.ws } });
    expect(rowsText(events)).not.toContain(smtpSecret);
    expect(rowsText(events)).not.toContain(late);
  });
});

describe("provider fallback", () => {
  let dead: string;
  beforeAll(async () => {
    dead = await closedPortUrl();
  });

  const policy = (fallback: "none" | "listed") =>
    aiCapability({ provider: { allow: ["openai", "backup"], prefer: "openai", fallback } });

  it("falls back to the next allowed provider when the preferred one is down (fallback: listed)", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [policy("listed")],
      providers: [
        { provider: "backup", baseUrl: backup.baseUrl, apiKey: backup.apiKey },
        { provider: "openai", baseUrl: dead, apiKey: "sk-dead-0123456789" },
      ],
    });
    const before = backup.authorizedCalls();
    const r = await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ provider: "backup", fallback_used: true, outcome: "completed" });
    expect(backup.authorizedCalls()).toBe(before + 1);
    const fb = await audits(s.ws, "capability.fallback", r.json.capability_invocation_id);
    expect(fb).toHaveLength(1);
    expect(fb[0]!.details).toMatchObject({ from: "openai", to: "backup" });
    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: r.json.capability_invocation_id } });
    expect(row).toMatchObject({ provider: "backup", fallbackUsed: true, bindingId: s.providers.backup!.bindingId });

    // The preferred provider answers: no fallback.
    const up = await setupBridge({
      owner,
      capabilities: [policy("listed")],
      providers: [
        { provider: "backup", baseUrl: backup.baseUrl, apiKey: backup.apiKey },
        { provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey },
      ],
    });
    const ok = await call(up, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(ok.json).toMatchObject({ provider: "openai", fallback_used: false });
  });

  it("does not fall back with fallback: none", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [policy("none")],
      providers: [
        { provider: "backup", baseUrl: backup.baseUrl, apiKey: backup.apiKey },
        { provider: "openai", baseUrl: dead, apiKey: "sk-dead-0123456789" },
      ],
    });
    const before = backup.calls.length;
    const r = await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expectDenied(r, 503, "provider_unavailable");
    expect(backup.calls.length).toBe(before);
    expect(await audits(s.ws, "capability.fallback")).toHaveLength(0);
  });

  it("never falls back outside the allow-list", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability({ provider: { allow: ["openai"], fallback: "listed" } })],
      providers: [
        { provider: "rogue", baseUrl: backup.baseUrl, apiKey: backup.apiKey },
        { provider: "openai", baseUrl: dead, apiKey: "sk-dead-0123456789" },
      ],
    });
    const before = backup.calls.length;
    expectDenied(
      await call(s, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } }),
      503,
      "provider_unavailable",
    );
    expect(backup.calls.length).toBe(before);
  });
});

describe("authentication and request validation", () => {
  it("401 with WWW-Authenticate without a token, with a malformed one, and with a control-audience token", async () => {
    for (const token of [null, "not-a-jwt", owner.token]) {
      const r = await call({ token }, "data.kv", "get", { key: "/app/x" });
      expect(r.status, `${token}`).toBe(401);
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer realm="capstan"/);
      expect(r.json.code).toBe("unauthenticated");
    }
    const basic = await bridge(null, "data.kv", "get", { key: "/app/x" }, { authorization: "Basic YTpi" });
    expect(basic.status).toBe(401);
    // Another capability authenticates first too; authenticated, it is outside this kv-only contract.
    const storage = await call({ token: null }, "storage.object", "read", { key: "/x" });
    expect(storage.status).toBe(401);
    const storageAuthed = await call(kv, "storage.object", "read", { key: "/x" });
    expect(storageAuthed.status).toBe(403);
    expect(storageAuthed.json.reason).toBe("outside_contract");
  });

  it("an identity bound to no product is refused (403 outside_contract) and nothing is recorded", async () => {
    const platformSvc = await createServiceIdentity(
      { userId: owner.userId, correlationId: newId("evt") },
      platformScope,
      { name: "no product" },
    );
    const token = await bridgeToken(platformSvc.id, platformSvc.client_secret);
    const before = await db().capabilityInvocation.count();
    const r = await call({ token }, "data.kv", "get", { key: "/app/x" });
    expect(r.status, r.text).toBe(403);
    expect(r.json.reason).toBe("outside_contract");
    expect(await db().capabilityInvocation.count()).toBe(before);
  });

  it("401 for a revoked identity: at once in this process, and everywhere after the cache window", async () => {
    const s = await setupBridge({ owner, ws, capabilities: [kvCapability()] });
    expect((await call(s, "data.kv", "get", { key: "/app/x" })).status).toBe(200);
    const del = await api("DELETE", `/v1/workspaces/${ws}/service-identities/${s.svc.id}`, { token: owner.token });
    expect(del.status, del.text).toBe(200);
    const r = await call(s, "data.kv", "get", { key: "/app/x" });
    expect(r.status).toBe(401);
    expect(r.json.detail).toMatch(/revoked/);

    // Revoked by another process (straight in the database): refused once the cache window has passed.
    const svc2 = await makeServiceIdentity(owner, ws, s.productId);
    const token2 = await bridgeToken(svc2.id, svc2.secret);
    expect((await call({ ...s, token: token2 }, "data.kv", "get", { key: "/app/x" })).status).toBe(200);
    await db().serviceIdentity.update({ where: { id: svc2.id }, data: { status: "revoked", revokedAt: new Date() } });
    // Polled against a deadline (a busy machine stretches the window; a fixed sleep would flake or waste time).
    const revokedAt = Date.now();
    let late = await call({ ...s, token: token2 }, "data.kv", "get", { key: "/app/x" });
    while (late.status === 200 && Date.now() - revokedAt < REVOCATION_CACHE_MS * 4 + 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      late = await call({ ...s, token: token2 }, "data.kv", "get", { key: "/app/x" });
    }
    expect(late.status).toBe(401);
    expect(late.headers.get("www-authenticate")).toContain("invalid_token");
  });

  it("404 for an unknown capability or action", async () => {
    for (const [c, a] of [
      ["fax.send", "send"],
      ["data.kv", "explode"],
      ["data.kv", "generate"],
      ["ai.generate", "get"],
    ] as const) {
      const r = await call(kv, c, a, { key: "/app/x" });
      expect(r.status, `${c}/${a}`).toBe(404);
      expect(r.json.code).toBe("not_found");
    }
  });

  it("422 for a body that does not match the action's schema; 400 for one that is not JSON", async () => {
    for (const body of [
      {},
      { key: "app/no-slash" },
      { key: "/app/../etc" },
      { key: "/app/x", extra: true },
      { key: "/app/x", by: 1.5 },
    ]) {
      const r = await call(kv, "data.kv", "increment", body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.json.code).toBe("validation_failed");
      expect(r.json.errors?.length).toBeGreaterThan(0);
    }
    for (const body of [
      { model_kind: "audio", input: { text: "x" } },
      { model_kind: "text", input: { text: "" } },
      { model_kind: "text", input: { text: "x" }, max_tokens: 0 },
    ]) {
      expect((await call(ai, "ai.generate", "generate", body)).status, JSON.stringify(body)).toBe(422);
    }
    expect((await call(kv, "data.kv", "get", "{not json")).status).toBe(400);
  });

  it("413 for a body over CAPSTAN_MAX_BODY_BYTES, before anything is recorded or stored", async () => {
    const before = await db().capabilityInvocation.count({ where: { workspaceId: kv.ws } });
    const big = JSON.stringify({ key: "/app/too-big", value: "x".repeat(1024 * 1024 + 1) });
    const r = await call(kv, "data.kv", "set", big);
    expect(r.status, r.text.slice(0, 200)).toBe(413);
    expect(r.json.reason).toBe("payload_too_large");
    expect(await db().capabilityInvocation.count({ where: { workspaceId: kv.ws } })).toBe(before);
    expect((await call(kv, "data.kv", "get", { key: "/app/too-big" })).json.output).toMatchObject({ found: false });
  });
});

describe("Idempotency-Key", () => {
  it("a retried ai.generate replays the recorded result: one provider call, one charge, one record", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    provider.behave({ mode: "ok", text: "once", tokens: 11 });
    const key = `idem-${randomBytes(6).toString("hex")}`;
    const body = { model_kind: "text", input: { text: "only once" }, max_tokens: 50 };
    const before = provider.authorizedCalls();
    const first = await call(s, "ai.generate", "generate", body, { "idempotency-key": key });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const second = await call(s, "ai.generate", "generate", body, { "idempotency-key": key });
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.json).toEqual(first.json);
    expect(provider.authorizedCalls()).toBe(before + 1);
    expect(await budget(s.owner, s.ws, "ai_tokens")).toMatchObject({ used_units: 11, reserved_units: 0 });
    expect(await db().capabilityInvocation.count({ where: { workspaceId: s.ws } })).toBe(1);

    const different = await call(s, "ai.generate", "generate", { ...body, max_tokens: 51 }, { "idempotency-key": key });
    expect(different.status).toBe(422);
    expect(different.json.reason).toBe("idempotency_key_reused");
    provider.behave({ mode: "ok" });
  });

  it("a key over 256 characters is a 400 problem naming the header; nothing is applied or recorded", async () => {
    const before = await db().capabilityInvocation.count({ where: { workspaceId: kv.ws } });
    const r = await call(
      kv,
      "data.kv",
      "increment",
      { key: "/app/counter/long-key", by: 1 },
      { "idempotency-key": "k".repeat(257) },
    );
    expect(r.status, r.text).toBe(400);
    expect(r.json).toMatchObject({ reason: "invalid_header", errors: [{ path: "/headers/idempotency-key" }] });
    expect(await db().capabilityInvocation.count({ where: { workspaceId: kv.ws } })).toBe(before);
    expect((await call(kv, "data.kv", "get", { key: "/app/counter/long-key" })).json.output).toMatchObject({
      found: false,
    });
  });

  it("a retried increment is not applied twice; a denial replays as the same denial", async () => {
    const key = `idem-${randomBytes(6).toString("hex")}`;
    const a = await call(kv, "data.kv", "increment", { key: "/app/counter/idem", by: 5 }, { "idempotency-key": key });
    const b = await call(kv, "data.kv", "increment", { key: "/app/counter/idem", by: 5 }, { "idempotency-key": key });
    expect(a.json.output.value).toBe(5);
    expect(b.json.output.value).toBe(5);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect((await call(kv, "data.kv", "get", { key: "/app/counter/idem" })).json.output.value).toBe(5);

    const dkey = `idem-${randomBytes(6).toString("hex")}`;
    const d1 = await call(kv, "data.kv", "set", { key: "/nope", value: 1 }, { "idempotency-key": dkey });
    const d2 = await call(kv, "data.kv", "set", { key: "/nope", value: 1 }, { "idempotency-key": dkey });
    expectDenied(d1, 403, "outside_contract");
    expect(d2.status).toBe(403);
    expect(d2.headers.get("idempotent-replayed")).toBe("true");
    expect(d2.json.capability_invocation_id).toBe(d1.json.capability_invocation_id);
  });

  it("the same key twice at once: one call runs, the other is 409 in flight; the provider is called once", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    provider.behave({ mode: "ok", delayMs: 300 });
    const key = `idem-${randomBytes(6).toString("hex")}`;
    const body = { model_kind: "text", input: { text: "at once" } };
    const before = provider.authorizedCalls();
    const both = await Promise.all([
      call(s, "ai.generate", "generate", body, { "idempotency-key": key }),
      call(s, "ai.generate", "generate", body, { "idempotency-key": key }),
    ]);
    provider.behave({ mode: "ok" });
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const inFlight = both.find((r) => r.status === 409)!;
    expect(inFlight.json.reason).toBe("idempotency_in_flight");
    expect(inFlight.headers.get("retry-after")).toBe("1");
    expect(provider.authorizedCalls()).toBe(before + 1);
    const replay = await call(s, "ai.generate", "generate", body, { "idempotency-key": key });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json.capability_invocation_id).toBe(
      both.find((r) => r.status === 200)!.json.capability_invocation_id,
    );
  });

  it("keys are per identity: another identity with the same key runs its own call", async () => {
    const key = `idem-${randomBytes(6).toString("hex")}`;
    const other = await makeServiceIdentity(owner, ws, kv.productId);
    const otherToken = await bridgeToken(other.id, other.secret);
    const a = await call(kv, "data.kv", "increment", { key: "/app/counter/per-identity" }, { "idempotency-key": key });
    const b = await call(
      { ...kv, token: otherToken },
      "data.kv",
      "increment",
      { key: "/app/counter/per-identity" },
      { "idempotency-key": key },
    );
    expect([a.json.output.value, b.json.output.value]).toEqual([1, 2]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
  });

  it("Capstan-Overhead-Ms leaves out the provider's time", async () => {
    provider.behave({ mode: "ok", delayMs: 600 });
    const started = performance.now();
    const r = await call(ai, "ai.generate", "generate", { model_kind: "text", input: { text: "slow" } });
    const wall = performance.now() - started;
    provider.behave({ mode: "ok" });
    expect(r.status).toBe(200);
    expect(wall).toBeGreaterThanOrEqual(600);
    expect(r.overheadMs!).toBeLessThan(wall - 500);
    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: r.json.capability_invocation_id } });
    expect(row.latencyMs!).toBeGreaterThanOrEqual(600);
    expect(row.overheadMs!).toBeLessThan(row.latencyMs! - 500);
  });

  it("a 503 is not stored: a retry with the same key runs again", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    const key = `idem-${randomBytes(6).toString("hex")}`;
    const body = { model_kind: "text", input: { text: "retry me" } };
    provider.behave({ mode: "500" });
    expectDenied(
      await call(s, "ai.generate", "generate", body, { "idempotency-key": key }),
      503,
      "provider_unavailable",
    );
    provider.behave({ mode: "ok" });
    const retry = await call(s, "ai.generate", "generate", body, { "idempotency-key": key });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("batched records (CAPSTAN_BRIDGE_RECORDS=batched, the production default)", () => {
  it("a burst of mixed calls is written with both events per call once flushed", async () => {
    process.env.CAPSTAN_BRIDGE_RECORDS = "batched";
    resetEnvCache();
    try {
      const burst = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) =>
          call(
            kv,
            "data.kv",
            i % 2 ? "get" : "set",
            i % 2 ? { key: `/app/batch/${i}` } : { key: `/app/batch/${i}`, value: i },
          ),
        ),
        ...Array.from({ length: 5 }, () =>
          call(ai, "ai.generate", "generate", { model_kind: "text", input: { text: "batch" } }),
        ),
        call(kv, "data.kv", "set", { key: "/outside", value: 1 }),
      ]);
      provider.behave({ mode: "500" });
      const failed = await call(ai, "ai.generate", "generate", { model_kind: "text", input: { text: "batch" } });
      provider.behave({ mode: "ok" });
      expectDenied(failed, 503, "provider_unavailable");
      await flushRecords();
      const ids = [...burst, failed].map((r) => r.json.capability_invocation_id as string);
      expect(burst.filter((r) => r.status === 200)).toHaveLength(25);
      expect(await db().capabilityInvocation.count({ where: { id: { in: ids } } })).toBe(ids.length);
      const events = await db().outboxEvent.findMany({ where: { subject: { in: ids } } });
      expect(events).toHaveLength(ids.length * 2);
      for (const e of events) expect(validateEventData(e.type, e.data, e.version), JSON.stringify(e.data)).toEqual([]);
    } finally {
      process.env.CAPSTAN_BRIDGE_RECORDS = "sync";
      resetEnvCache();
    }
  });
});

describe("capability invocation records and events", () => {
  const DISTINCTIVE_VALUE = `distinctive-value-${randomBytes(8).toString("hex")}`;
  const DISTINCTIVE_PROMPT = `distinctive-prompt-${randomBytes(8).toString("hex")}`;
  const DISTINCTIVE_OUTPUT = `distinctive-output-${randomBytes(8).toString("hex")}`;

  it("lists calls with product_id, outcome and capability filters; a single read carries summaries, never content", async () => {
    const set = await call(kv, "data.kv", "set", { key: "/app/private", value: DISTINCTIVE_VALUE });
    expect(set.status).toBe(200);
    provider.behave({ mode: "echo", text: DISTINCTIVE_OUTPUT });
    const gen = await call(ai, "ai.generate", "generate", { model_kind: "text", input: { text: DISTINCTIVE_PROMPT } });
    expect(gen.status, gen.text).toBe(200);
    expect(gen.json.output.text).toBe(DISTINCTIVE_OUTPUT);
    provider.behave({ mode: "ok" });
    const denied = await call(kv, "data.kv", "set", { key: "/elsewhere", value: DISTINCTIVE_VALUE });
    expectDenied(denied, 403, "outside_contract");

    const list = async (q: string) => {
      const r = await api("GET", `/v1/workspaces/${ws}/capability-invocations${q}`, { token: owner.token });
      expect(r.status, r.text).toBe(200);
      return r.json.items as Array<Record<string, unknown>>;
    };
    const kvItems = await list(`?product_id=${kv.productId}&limit=200`);
    expect(kvItems.every((i) => i.product_id === kv.productId)).toBe(true);
    expect(kvItems.map((i) => i.id)).toEqual(
      expect.arrayContaining([set.json.capability_invocation_id, denied.json.capability_invocation_id]),
    );
    const deniedItems = await list(`?product_id=${kv.productId}&outcome=denied&limit=200`);
    expect(deniedItems.every((i) => i.outcome === "denied")).toBe(true);
    expect(deniedItems.map((i) => i.id)).toContain(denied.json.capability_invocation_id);
    expect(deniedItems.map((i) => i.id)).not.toContain(set.json.capability_invocation_id);
    const aiItems = await list("?capability=ai.generate&limit=200");
    expect(aiItems.every((i) => i.capability === "ai.generate")).toBe(true);
    expect(aiItems.map((i) => i.id)).toContain(gen.json.capability_invocation_id);
    expect(aiItems.map((i) => i.id)).not.toContain(set.json.capability_invocation_id);
    for (const q of ["outcome=maybe", "capability=fax.send", "product_id=nope"]) {
      const bad = await api("GET", `/v1/workspaces/${ws}/capability-invocations?${q}`, { token: owner.token });
      expect(bad.status, q).toBe(400);
    }

    const one = await api("GET", `/v1/workspaces/${ws}/capability-invocations/${gen.json.capability_invocation_id}`, {
      token: owner.token,
    });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({
      id: gen.json.capability_invocation_id,
      workspace_id: ws,
      product_id: ai.productId,
      revision_id: ai.revisionId,
      service_identity_id: ai.svc.id,
      capability: "ai.generate",
      action: "generate",
      outcome: "completed",
      reason: null,
      provider: "openai",
      binding_id: ai.providers.openai!.bindingId,
      fallback_used: false,
      usage: gen.json.usage,
      request: {
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        size_bytes: expect.any(Number),
        shape: { id: "ai.generate", action: "generate", model_kind: "text", max_tokens: 200 },
      },
      output: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size_bytes: expect.any(Number) },
    });
    expect(one.text).not.toContain(DISTINCTIVE_PROMPT);
    expect(one.text).not.toContain(DISTINCTIVE_OUTPUT);
    const kvOne = await api("GET", `/v1/workspaces/${ws}/capability-invocations/${set.json.capability_invocation_id}`, {
      token: owner.token,
    });
    expect(kvOne.json.request.shape).toMatchObject({ id: "data.kv", action: "set", key: "/app/private" });
    expect(kvOne.text).not.toContain(DISTINCTIVE_VALUE);
    const listText = JSON.stringify(await list("?limit=200"));
    for (const s of [DISTINCTIVE_VALUE, DISTINCTIVE_PROMPT, DISTINCTIVE_OUTPUT]) expect(listText).not.toContain(s);

    // ...nor in the events of these calls.
    const events = await db().outboxEvent.findMany({
      where: { workspaceId: ws, type: { startsWith: "capability.invocation" } },
    });
    const eventsText = JSON.stringify(events.map((e) => e.data));
    for (const s of [DISTINCTIVE_VALUE, DISTINCTIVE_PROMPT, DISTINCTIVE_OUTPUT]) expect(eventsText).not.toContain(s);
  });

  it("records the caller's evt_ X-Correlation-Id and echoes it", async () => {
    const correlationId = newId("evt");
    const r = await call(kv, "data.kv", "get", { key: "/app/x" }, { "x-correlation-id": correlationId });
    expect(r.headers.get("x-correlation-id")).toBe(correlationId);
    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: r.json.capability_invocation_id } });
    expect(row.correlationId).toBe(correlationId);
    const events = await db().outboxEvent.findMany({ where: { subject: r.json.capability_invocation_id } });
    expect(events.map((e) => e.correlationId)).toEqual([correlationId, correlationId]);
    expect((await call(kv, "data.kv", "get", { key: "/app/x" }, { "x-correlation-id": "x".repeat(65) })).status).toBe(
      400,
    );
  });

  it("tenancy: another workspace's id is 404, a non-member is 403", async () => {
    const id = seen.find((s) => s.ws === ws)!.id;
    const stranger = await makeUser();
    const theirWs = (await makeWorkspace(stranger.token)).id;
    const cross = await api("GET", `/v1/workspaces/${theirWs}/capability-invocations/${id}`, { token: stranger.token });
    expect(cross.status).toBe(404);
    const theirList = await api("GET", `/v1/workspaces/${theirWs}/capability-invocations`, { token: stranger.token });
    expect(theirList.status).toBe(200);
    expect(theirList.json.items).toEqual([]);
    expect((await api("GET", `/v1/workspaces/${ws}/capability-invocations`, { token: stranger.token })).status).toBe(
      403,
    );
    expect(
      (await api("GET", `/v1/workspaces/${ws}/capability-invocations/${id}`, { token: stranger.token })).status,
    ).toBe(403);
    expect((await api("GET", `/v1/workspaces/${ws}/capability-invocations`)).status).toBe(401);
  });

  it("every completed or denied call of this file has its row, a requested 1.4.0 and a resulted 1.1.0 event that validate", async () => {
    expect(seen.length).toBeGreaterThan(50);
    const ids = seen.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    const rows = await db().capabilityInvocation.findMany({ where: { id: { in: ids } } });
    expect(rows).toHaveLength(ids.length);
    const events = await db().outboxEvent.findMany({
      where: { subject: { in: ids }, type: { startsWith: "capability.invocation" } },
    });
    const outcomes = new Set<string>();
    for (const s of seen) {
      const row = rows.find((r) => r.id === s.id)!;
      expect(row.workspaceId).toBe(s.ws);
      expect(row.productId).toBe(s.productId);
      const expectedOutcome = s.status === 200 ? "completed" : s.outcome;
      expect(row.outcome).toBe(expectedOutcome);
      outcomes.add(row.outcome);
      const requested = events.filter((e) => e.subject === s.id && e.type === "capability.invocation_requested");
      const resulted = events.filter((e) => e.subject === s.id && e.type === "capability.invocation_resulted");
      expect(requested, s.id).toHaveLength(s.requested ? 1 : 0);
      expect(resulted, s.id).toHaveLength(1);
      for (const e of requested) {
        expect(e.version).toBe("1.4.0");
        expect(validateEventData(e.type, e.data, e.version), JSON.stringify(e.data)).toEqual([]);
        expect(e.data).toMatchObject({ capability_invocation_id: s.id, product_id: s.productId, workspace_id: s.ws });
      }
      const r = resulted[0]!;
      expect(r.version).toBe("1.1.0");
      expect(validateEventData(r.type, r.data, r.version), JSON.stringify(r.data)).toEqual([]);
      expect(r.data).toMatchObject({
        capability_invocation_id: s.id,
        outcome: expectedOutcome,
        reason: s.status === 200 ? null : s.reason,
      });
    }
    expect([...outcomes].sort()).toEqual(["completed", "denied", "failed"]);
  });
});
