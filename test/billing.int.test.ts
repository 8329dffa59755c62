import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { signCallback } from "@/server/domain/billing/payments.service";
import { lockWallet, postDue, spend } from "@/server/domain/billing/wallet.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { utcMonth } from "@/server/platform/time";
import { api, makeUser, makeWorkspace, type TApiResult, type TTestUser } from "./support/api";
import { aiCapability, bootBridgeApp, bridge, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * Billing, first cut (docs/decisions.md "Billing"): rate card versions and
 * the price of a Bridge call with the card in force at its start, the wallet
 * ledger (balances are sums of it), grants spent before paid balance and
 * written off at expiry, manual-gateway top-ups credited once however often
 * and concurrently the callback arrives, refunds never above what was paid.
 */
const SECRET = `whsec_${randomBytes(24).toString("hex")}`;
let owner: TTestUser;
let outsider: TTestUser;
let platformToken: string;
let otherWs: string;
let provider: TOpenAiServer;

beforeAll(async () => {
  process.env.CAPSTAN_MANUAL_GATEWAY_SECRET = SECRET;
  resetEnvCache();
  await bootBridgeApp();
  owner = await makeUser();
  outsider = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  otherWs = (await makeWorkspace(outsider.token)).id;
  provider = await startOpenAiServer(`sk-billing-${randomBytes(8).toString("hex")}`, { tokens: "max_tokens" });
});

afterAll(async () => {
  await provider?.close();
});

const rand = () => randomBytes(4).toString("hex");
const putCard = (prov: string, model: string, body: unknown, token = platformToken) =>
  api("PUT", `/v1/platform/rate-cards/${prov}/${model}`, { token, body });
const USD_CARD = {
  currency: "USD",
  prices: { input_tokens_per_million: 1_000_000, output_tokens_per_million: 3_000_000, per_call: 500 },
};

function callback(
  body: Record<string, unknown>,
  opts: { secret?: string; t?: number; signature?: string | null } = {},
) {
  const raw = JSON.stringify(body);
  const sig = opts.signature === undefined ? signCallback(opts.secret ?? SECRET, raw, opts.t) : opts.signature;
  return api("POST", "/v1/payments/callbacks/manual", {
    rawBody: raw,
    headers: { "content-type": "application/json", ...(sig === null ? {} : { "capstan-signature": sig }) },
  });
}

async function order(
  w: string,
  amount: number,
  currency = "USD",
  token = owner.token,
): Promise<{ id: string; amount_minor: number; currency: string }> {
  const r = await api("POST", `/v1/workspaces/${w}/wallet/checkout`, {
    token,
    body: { amount_minor: amount, currency },
  });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

const succeeded = (o: { id: string; amount_minor: number; currency: string }, eventId = `evt-${rand()}`) => ({
  id: eventId,
  type: "payment.succeeded",
  order_id: o.id,
  amount_minor: o.amount_minor,
  currency: o.currency,
});

async function ledgerSums(w: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let cursor: string | null = null;
  do {
    const r: TApiResult = await api(
      "GET",
      `/v1/workspaces/${w}/wallet/transactions?limit=200${cursor ? `&cursor=${cursor}` : ""}`,
      { token: owner.token },
    );
    expect(r.status, r.text).toBe(200);
    for (const e of r.json.items as Array<{ currency: string; amount_micros: number }>)
      out[e.currency] = (out[e.currency] ?? 0) + e.amount_micros;
    cursor = r.json.next_cursor;
  } while (cursor);
  return out;
}

describe("rate cards", () => {
  it("each PUT is a new immutable version; an identical PUT is a no-op; history and audit", async () => {
    const model = `m-${rand()}`;
    const v1 = await putCard("openai", model, USD_CARD);
    expect(v1.status, v1.text).toBe(200);
    expect(v1.json).toMatchObject({
      provider: "openai",
      model,
      currency: "USD",
      prices: USD_CARD.prices,
      effective_until: null,
    });
    expect((await putCard("openai", model, USD_CARD)).json.id).toBe(v1.json.id);
    const v2 = await putCard("openai", model, { ...USD_CARD, prices: { ...USD_CARD.prices, per_call: 0 } });
    expect(v2.json.id).not.toBe(v1.json.id);
    const detail = await api("GET", `/v1/platform/rate-cards/openai/${model}`, { token: platformToken });
    expect(detail.status).toBe(200);
    expect(detail.json.current.id).toBe(v2.json.id);
    expect(detail.json.versions.map((v: { id: string }) => v.id)).toEqual([v2.json.id, v1.json.id]);
    expect(detail.json.versions[1].effective_until).toBe(v2.json.effective_from);
    const list = await api("GET", `/v1/platform/rate-cards?model=${model}`, { token: platformToken });
    expect(list.json.items).toHaveLength(2);
    const audits = await db().auditRecord.findMany({
      where: {
        workspaceId: "ws_platform",
        action: "billing.rate_card_updated",
        targetId: { in: [v1.json.id, v2.json.id] },
      },
    });
    expect(audits).toHaveLength(2);
    // The database refuses an edit in place.
    await expect(db().$executeRaw`UPDATE rate_card_versions SET per_call = 1 WHERE id = ${v1.json.id}`).rejects.toThrow(
      /append-only/,
    );
  });

  it("refuses bad input and non-platform callers", async () => {
    const model = `m-${rand()}`;
    const bad = [
      { ...USD_CARD, prices: { ...USD_CARD.prices, per_call: -1 } },
      { ...USD_CARD, prices: { ...USD_CARD.prices, input_tokens_per_million: 1.5 } },
      { ...USD_CARD, currency: "XXX" },
      { ...USD_CARD, currency: "usd" },
      { ...USD_CARD, effective_from: new Date(Date.now() - 3_600_000).toISOString() },
      { ...USD_CARD, effective_from: "2026-02-30T00:00:00Z" },
      { currency: "USD" },
    ];
    for (const b of bad) expect((await putCard("openai", model, b)).status, JSON.stringify(b)).toBe(422);
    expect((await putCard("Open AI", model, USD_CARD)).status).toBeGreaterThanOrEqual(400);
    expect((await putCard("openai", model, USD_CARD, owner.token)).status).toBe(403);
    expect((await api("GET", "/v1/platform/rate-cards", { token: owner.token })).status).toBe(403);
    expect((await api("GET", `/v1/platform/rate-cards/openai/${model}`, { token: platformToken })).status).toBe(404);
    expect((await api("GET", `/v1/platform/rate-cards/nobody/${model}`, { token: platformToken })).status).toBe(404);
    expect(await db().rateCardVersion.count({ where: { model } })).toBe(0);
  });
});

describe("a Bridge ai.generate call is priced at settle time with the card in force at its start", () => {
  let s: TBridgeSetup;
  let model: string;
  beforeAll(async () => {
    model = `chat-${rand()}`;
    s = await setupBridge({
      owner,
      capabilities: [aiCapability({ scope: { models: ["text"], max_tokens_per_call: 100 } })],
      providers: [
        {
          provider: "openai",
          baseUrl: provider.baseUrl,
          apiKey: provider.apiKey,
          models: ["text"],
          providerModels: { text: model },
        },
      ],
    });
  });

  it("even when the card changes mid-call; the next call uses the new card; no card = unpriced", async () => {
    const body = { model_kind: "text", input: { text: "price me" }, max_tokens: 40 };
    // No card yet: recorded unpriced.
    const free = await bridge(s.token, "ai.generate", "generate", body);
    expect(free.status, free.text).toBe(200);
    const v1 = (await putCard("openai", model, USD_CARD)).json;

    provider.behave({ mode: "ok", tokens: "max_tokens", delayMs: 1_500 });
    const before = provider.calls.length;
    const slow = bridge(s.token, "ai.generate", "generate", body);
    const deadline = Date.now() + 10_000;
    while (provider.calls.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(provider.calls.length).toBe(before + 1);
    const v2 = await putCard("openai", model, {
      ...USD_CARD,
      prices: { input_tokens_per_million: 2_000_000, output_tokens_per_million: 6_000_000, per_call: 0 },
    });
    expect(v2.status, v2.text).toBe(200);
    const mid = await slow;
    expect(mid.status, mid.text).toBe(200);
    provider.behave({ mode: "ok", tokens: "max_tokens", delayMs: 0 });
    const after = await bridge(s.token, "ai.generate", "generate", body);

    const get = async (id: string) =>
      (await api("GET", `/v1/workspaces/${s.ws}/capability-invocations/${id}`, { token: owner.token })).json;
    // 40 tokens: 20 in + 20 out. v1: 20×1 + 20×3 micros + 500 per call = 580; v2: 20×2 + 20×6 = 160.
    expect((await get(free.json.capability_invocation_id)).charge).toBeNull();
    expect((await get(mid.json.capability_invocation_id)).charge).toEqual({
      amount_micros: 580,
      currency: "USD",
      rate_card_version_id: v1.id,
    });
    expect((await get(after.json.capability_invocation_id)).charge).toEqual({
      amount_micros: 160,
      currency: "USD",
      rate_card_version_id: v2.json.id,
    });

    // The wallet debits each priced call once (usage entries sourced by the invocation), however often it is read.
    const w1 = await api("GET", `/v1/workspaces/${s.ws}/wallet`, { token: owner.token });
    const w2 = await api("GET", `/v1/workspaces/${s.ws}/wallet`, { token: owner.token });
    expect(w1.json.balances).toEqual([
      {
        currency: "USD",
        total_micros: -740,
        paid_micros: -740,
        granted_micros: 0,
        total_minor: 0,
        held_micros: 0,
        available_micros: -740,
      },
    ]);
    expect(w2.json.balances).toEqual(w1.json.balances);
    const usage = await api("GET", `/v1/workspaces/${s.ws}/wallet/transactions?kind=usage`, { token: owner.token });
    expect(usage.json.items.map((e: { source: { id: string } }) => e.source.id).sort()).toEqual(
      [mid.json.capability_invocation_id, after.json.capability_invocation_id].sort(),
    );
  });
});

describe("usage postings under concurrency", () => {
  it("each priced call is debited exactly once while wallet reads race the calls", async () => {
    const model = `race-${rand()}`;
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability({ scope: { models: ["text"], max_tokens_per_call: 100 } })],
      providers: [
        {
          provider: "openai",
          baseUrl: provider.baseUrl,
          apiKey: provider.apiKey,
          models: ["text"],
          providerModels: { text: model },
        },
      ],
    });
    await putCard("openai", model, USD_CARD);
    const body = { model_kind: "text", input: { text: "race" }, max_tokens: 40 };
    const calls = Array.from({ length: 20 }, () => bridge(s.token, "ai.generate", "generate", body));
    const reads = Array.from({ length: 10 }, (_, i) =>
      api("GET", `/v1/workspaces/${s.ws}/${i % 2 ? "wallet" : "wallet/transactions"}`, { token: owner.token }),
    );
    const [done, read] = await Promise.all([Promise.all(calls), Promise.all(reads)]);
    expect(done.every((r) => r.status === 200)).toBe(true);
    expect(read.every((r) => r.status === 200)).toBe(true);
    const wallet = (await api("GET", `/v1/workspaces/${s.ws}/wallet`, { token: owner.token })).json;
    expect(wallet.balances).toEqual([
      {
        currency: "USD",
        total_micros: -20 * 580,
        paid_micros: -20 * 580,
        granted_micros: 0,
        total_minor: -1,
        held_micros: 0,
        available_micros: -20 * 580,
      },
    ]);
    const usage = await db().walletEntry.findMany({ where: { workspaceId: s.ws, kind: "usage" } });
    expect(new Set(usage.map((e) => e.sourceId)).size).toBe(20);
    expect(usage).toHaveLength(20);
  });
});

describe("month-close invoices", () => {
  it("equal the ledger's usage debits of the month to the minor unit, grants shown; issued once, immutable, per workspace", async () => {
    const model = `inv-${rand()}`;
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability({ scope: { models: ["text"], max_tokens_per_call: 100 } })],
      providers: [
        {
          provider: "openai",
          baseUrl: provider.baseUrl,
          apiKey: provider.apiKey,
          models: ["text"],
          providerModels: { text: model },
        },
      ],
    });
    // 1000 USD per million tokens in, 3000 out: 20 + 20 tokens = 80 000 micros (8 cents) per call, plus 3 micros per call.
    const card = (
      await putCard("openai", model, {
        currency: "USD",
        prices: { input_tokens_per_million: 1_000_000_000, output_tokens_per_million: 3_000_000_000, per_call: 3 },
      })
    ).json;
    const grant = await api("POST", `/v1/platform/wallets/${s.ws}/grants`, {
      token: platformToken,
      body: { amount_minor: 10, currency: "USD", expires_at: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(grant.status).toBe(201);
    const body = { model_kind: "text", input: { text: "bill me" }, max_tokens: 40 };
    for (let i = 0; i < 3; i++) expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(200);
    const month = utcMonth();
    const [y, m] = month.split("-").map(Number) as [number, number];
    const close = new Date(Date.UTC(y, m, 1, 1)); // one hour into next month
    expect(await closeDueMonths(close)).toBeGreaterThanOrEqual(1);
    await closeDueMonths(close); // again: nothing new
    const list = await api("GET", `/v1/workspaces/${s.ws}/invoices`, { token: owner.token });
    expect(list.status, list.text).toBe(200);
    expect(list.json.items).toHaveLength(1);
    const inv = list.json.items[0];
    const usage = await db().walletEntry.findMany({ where: { workspaceId: s.ws, kind: "usage" } });
    const ledgerUsage = -usage.reduce((sum, e) => sum + Number(e.amountMicros), 0);
    expect(ledgerUsage).toBe(3 * 80_003);
    expect(inv).toMatchObject({
      month,
      currency: "USD",
      status: "open",
      usage_micros: ledgerUsage,
      granted_micros: 100_000,
      subscription_minor: 0,
      total_minor: 24, // 240 009 micros rounded half up once
      // The 140 009 micros the paid balance could not cover move from the wallet onto the invoice (rounded half up once).
      debt_minor: 14,
      amount_due_minor: 14,
      amount_remaining_minor: 14,
      lines: [
        {
          kind: "usage",
          capability: "ai.generate",
          provider: "openai",
          model,
          rate_card_version_id: card.id,
          calls: 3,
          tokens: 120,
          amount_micros: 240_009,
        },
      ],
    });
    expect(await db().auditRecord.count({ where: { workspaceId: s.ws, action: "billing.invoice_issued" } })).toBe(1);
    await expect(db().$executeRaw`UPDATE invoices SET total_minor = 0 WHERE id = ${inv.id}`).rejects.toThrow(
      /append-only/,
    );
    expect((await api("GET", `/v1/workspaces/${s.ws}/invoices`, { token: outsider.token })).status).toBe(403);
    expect((await api("GET", `/v1/workspaces/${otherWs}/invoices`, { token: outsider.token })).json.items).toEqual([]);
  });
});

describe("grants", () => {
  it("are spent before paid balance: highest priority, then soonest expiry; expired remainder is written off", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const day = 86_400_000;
    const grant = async (amount: number, priority: number, inDays: number) => {
      const r = await api("POST", `/v1/platform/wallets/${w}/grants`, {
        token: platformToken,
        body: {
          amount_minor: amount,
          currency: "USD",
          priority,
          expires_at: new Date(Date.now() + inDays * day).toISOString(),
        },
      });
      expect(r.status, r.text).toBe(201);
      return r.json.id as string;
    };
    const low = await grant(100, 1, 1); // 1.00 USD, spent last of the grants
    const highLate = await grant(100, 5, 3);
    const highSoon = await grant(100, 5, 2);
    const o = await order(w, 1000);
    expect((await callback(succeeded(o))).status).toBe(200);

    // Spend 2.50 + 1.00 USD: highSoon (1.00), highLate (1.00), low (1.00), then 0.50 from paid.
    await db().$transaction(async (tx) => {
      await lockWallet(tx, w);
      await spend(tx, w, "USD", BigInt(3_500_000), "usage", { kind: "test_usage", id: `u-${rand()}` });
    });
    const entries = await db().walletEntry.findMany({
      where: { workspaceId: w, kind: "usage" },
      orderBy: { line: "asc" },
    });
    expect(entries.map((e) => [e.grantId, Number(e.amountMicros)])).toEqual([
      [highSoon, -1_000_000],
      [highLate, -1_000_000],
      [low, -1_000_000],
      [null, -500_000],
    ]);

    const next = await grant(300, 0, 1);
    // At expiry (clock injected: a day and a half from now) the unspent grant is written off once.
    const later = new Date(Date.now() + 1.5 * day);
    for (let i = 0; i < 2; i++) {
      await db().$transaction(async (tx) => {
        await lockWallet(tx, w);
        await postDue(tx, w, later);
      });
    }
    const expiry = await db().walletEntry.findMany({ where: { workspaceId: w, kind: "expiry" } });
    expect(expiry.map((e) => [e.grantId, Number(e.amountMicros)])).toEqual([[next, -3_000_000]]);

    const wallet = (await api("GET", `/v1/workspaces/${w}/wallet`, { token: owner.token })).json;
    expect(wallet.balances).toEqual([
      {
        currency: "USD",
        total_micros: 9_500_000,
        paid_micros: 9_500_000,
        granted_micros: 0,
        total_minor: 950,
        held_micros: 0,
        available_micros: 9_500_000,
      },
    ]);
    expect(wallet.grants).toEqual([]);
    expect(await ledgerSums(w)).toEqual({ USD: 9_500_000 });
    const audits = await db().auditRecord.count({ where: { workspaceId: w, action: "billing.granted" } });
    expect(audits).toBe(4);
  });

  it("refuses bad input, unknown workspaces and non-platform callers", async () => {
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const post = (body: unknown, token = platformToken, w = otherWs) =>
      api("POST", `/v1/platform/wallets/${w}/grants`, { token, body });
    for (const b of [
      { amount_minor: -5, currency: "USD", expires_at: future },
      { amount_minor: 0, currency: "USD", expires_at: future },
      { amount_minor: 10, currency: "ABC", expires_at: future },
      { amount_minor: 10, currency: "USD", expires_at: new Date(Date.now() - 1000).toISOString() },
      { amount_minor: 10, currency: "USD", expires_at: future, priority: 101 },
    ])
      expect((await post(b)).status, JSON.stringify(b)).toBe(422);
    expect((await post({ amount_minor: 10, currency: "USD", expires_at: future }, outsider.token)).status).toBe(403);
    expect(
      (
        await post(
          { amount_minor: 10, currency: "USD", expires_at: future },
          platformToken,
          "ws_00000000000000000000000000",
        )
      ).status,
    ).toBe(404);
    expect(await db().walletGrant.count({ where: { workspaceId: otherWs } })).toBe(0);
  });
});

describe("adjustments", () => {
  it("credit or debit paid balance with a reason, audited; zero, bad currency and non-platform callers are refused", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const post = (body: unknown, token = platformToken) =>
      api("POST", `/v1/platform/wallets/${w}/adjustments`, { token, body });
    const up = await post({ amount_minor: 500, currency: "EUR", reason: "goodwill" });
    expect(up.status, up.text).toBe(201);
    expect(up.json.id).toMatch(/^adj_/);
    expect((await post({ amount_minor: -200, currency: "EUR", reason: "correction" })).status).toBe(201);
    for (const b of [
      { amount_minor: 0, currency: "EUR", reason: "x" },
      { amount_minor: 5, currency: "EURO", reason: "x" },
      { amount_minor: 5, currency: "EUR" },
      { amount_minor: 0.5, currency: "EUR", reason: "x" },
    ]) {
      expect((await post(b)).status, JSON.stringify(b)).toBe(422);
    }
    expect((await post({ amount_minor: 5, currency: "EUR", reason: "x" }, owner.token)).status).toBe(403);
    expect(await ledgerSums(w)).toEqual({ EUR: 3_000_000 });
    const audits = await db().auditRecord.findMany({ where: { workspaceId: w, action: "billing.adjusted" } });
    expect(audits.map((a) => (a.details as { reason: string }).reason).sort()).toEqual(["correction", "goodwill"]);
  });
});

describe("manual-gateway top-ups", () => {
  it("a signed callback credits once even when delivered 5 times concurrently, or as 5 different events", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const o = await order(w, 2500);
    expect(o).toMatchObject({
      status: "pending",
      gateway: "manual",
      amount_minor: 2500,
      currency: "USD",
      payment_url: null,
    });
    const ev = succeeded(o);
    const same = await Promise.all(Array.from({ length: 5 }, () => callback(ev)));
    expect(same.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(same.filter((r) => r.json.duplicate === false)).toHaveLength(1);
    const distinct = await Promise.all(Array.from({ length: 5 }, () => callback(succeeded(o))));
    expect(distinct.every((r) => r.status === 200 && r.json.order_status === "succeeded")).toBe(true);
    const credits = await db().walletEntry.findMany({ where: { workspaceId: w, kind: "top_up" } });
    expect(credits.map((e) => Number(e.amountMicros))).toEqual([25_000_000]);
    expect((await api("GET", `/v1/workspaces/${w}/wallet/orders/${o.id}`, { token: owner.token })).json).toMatchObject({
      status: "succeeded",
    });
    expect(await db().auditRecord.count({ where: { workspaceId: w, action: "billing.payment_succeeded" } })).toBe(1);
    expect(await ledgerSums(w)).toEqual({ USD: 25_000_000 });
    expect((await api("GET", `/v1/workspaces/${w}/wallet`, { token: owner.token })).json.balances[0].total_minor).toBe(
      2500,
    );
  });

  it("refuses unsigned, badly signed, stale and mismatched callbacks without changing anything", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const o = await order(w, 700, "EUR");
    const ev = succeeded(o);
    const unsigned = await callback(ev, { signature: null });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get("www-authenticate")).toBe('CapstanSignature realm="payments"');
    expect((await callback(ev, { secret: `${SECRET}x` })).status).toBe(401);
    expect((await callback(ev, { signature: "t=1,v1=zz" })).status).toBe(401);
    const stale = await callback(ev, { t: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(401);
    expect(stale.json.reason).toBe("signature_stale");
    expect((await callback({ ...ev, amount_minor: 701 })).status).toBe(422);
    expect((await callback({ ...ev, currency: "USD" })).status).toBe(422);
    expect((await callback({ ...ev, amount_minor: -700 })).status).toBe(422);
    expect((await callback({ ...ev, order_id: "pay_00000000000000000000000000" })).status).toBe(404);
    expect(
      (
        await api("POST", "/v1/payments/callbacks/stripe", {
          rawBody: JSON.stringify(ev),
          headers: { "capstan-signature": signCallback(SECRET, JSON.stringify(ev)) },
        })
      ).status,
    ).toBe(404);
    expect(await db().walletEntry.count({ where: { workspaceId: w } })).toBe(0);
    expect(await db().paymentEvent.count({ where: { orderId: o.id } })).toBe(0);
    // The same event, properly signed, is then applied (none of the refusals consumed its id).
    expect((await callback(ev)).json).toMatchObject({ duplicate: false, order_status: "succeeded" });
  });

  it("out of order: a failure after a success changes nothing; a success after a failure credits", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const a = await order(w, 100);
    await callback(succeeded(a));
    expect((await callback({ ...succeeded(a), type: "payment.failed" })).json.order_status).toBe("succeeded");
    const b = await order(w, 200);
    expect(
      (await callback({ ...succeeded(b), type: "payment.failed", message: "card declined" })).json.order_status,
    ).toBe("failed");
    expect((await api("GET", `/v1/workspaces/${w}/wallet/orders/${b.id}`, { token: owner.token })).json).toMatchObject({
      status: "failed",
      failure_message: "card declined",
    });
    expect((await callback(succeeded(b))).json.order_status).toBe("succeeded");
    expect(await ledgerSums(w)).toEqual({ USD: 3_000_000 });
    expect(await db().auditRecord.count({ where: { workspaceId: w, action: "billing.payment_failed" } })).toBe(1);
  });

  it("checkout needs owner/admin and valid input; orders are invisible across workspaces", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const viewer = await makeUser();
    expect(
      (
        await api("POST", `/v1/workspaces/${w}/members`, {
          token: owner.token,
          body: { email: viewer.email, role: "viewer" },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api("POST", `/v1/workspaces/${w}/wallet/checkout`, {
          token: viewer.token,
          body: { amount_minor: 100, currency: "USD" },
        })
      ).status,
    ).toBe(403);
    expect((await api("GET", `/v1/workspaces/${w}/wallet`, { token: viewer.token })).status).toBe(200);
    for (const b of [
      { amount_minor: -1, currency: "USD" },
      { amount_minor: 1.5, currency: "USD" },
      { amount_minor: 100, currency: "US" },
      { amount_minor: 100, currency: "USD", gateway: "paypal" },
    ]) {
      expect(
        (await api("POST", `/v1/workspaces/${w}/wallet/checkout`, { token: owner.token, body: b })).status,
        JSON.stringify(b),
      ).toBe(422);
    }
    const o = await order(w, 100);
    expect((await api("GET", `/v1/workspaces/${w}/wallet/orders/${o.id}`, { token: outsider.token })).status).toBe(403);
    expect(
      (await api("GET", `/v1/workspaces/${otherWs}/wallet/orders/${o.id}`, { token: outsider.token })).status,
    ).toBe(404);
    expect((await api("GET", `/v1/workspaces/${w}/wallet/transactions`, { token: outsider.token })).status).toBe(403);
    expect((await api("GET", `/v1/workspaces/${otherWs}/wallet/orders`, { token: outsider.token })).json.items).toEqual(
      [],
    );
    // Idempotency-Key: a retried checkout makes one order.
    const key = `k-${rand()}`;
    const first = await api("POST", `/v1/workspaces/${w}/wallet/checkout`, {
      token: owner.token,
      body: { amount_minor: 300, currency: "USD" },
      headers: { "idempotency-key": key },
    });
    const again = await api("POST", `/v1/workspaces/${w}/wallet/checkout`, {
      token: owner.token,
      body: { amount_minor: 300, currency: "USD" },
      headers: { "idempotency-key": key },
    });
    expect(again.json.id).toBe(first.json.id);
  });
});

describe("refunds", () => {
  it("never more than was paid (nor than the paid balance left); platform only; audited", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const o = await order(w, 1000);
    const refund = (body: Record<string, unknown>, token = platformToken, target = w) =>
      api("POST", `/v1/platform/wallets/${target}/refunds`, { token, body });
    expect((await refund({ payment_id: o.id, amount_minor: 100 })).status).toBe(409); // still pending
    await callback(succeeded(o));
    expect((await refund({ payment_id: o.id, amount_minor: 1001 })).json.reason).toBe("refund_exceeds_payment");
    expect((await refund({ payment_id: o.id, amount_minor: -1 })).status).toBe(422);
    expect((await refund({ payment_id: o.id, amount_minor: 100 }, owner.token)).status).toBe(403);
    expect((await refund({ payment_id: o.id, amount_minor: 100 }, platformToken, otherWs)).status).toBe(422);
    const r1 = await refund({ payment_id: o.id, amount_minor: 600, reason: "customer request" });
    expect(r1.status, r1.text).toBe(201);
    expect(r1.json).toMatchObject({ payment_id: o.id, amount_minor: 600, currency: "USD" });
    const r2 = await refund({ payment_id: o.id, amount_minor: 401 });
    expect(r2.status).toBe(409);
    expect(r2.json.reason).toBe("refund_exceeds_payment");
    // Every money field carries its currency, errors included (issue #36).
    expect(r2.json).toMatchObject({ refundable_minor: 400, currency: "USD" });
    // Spend 3.00 of the remaining 4.00: only 1.00 of paid balance is left to refund.
    await db().$transaction(async (tx) => {
      await lockWallet(tx, w);
      await spend(tx, w, "USD", BigInt(3_000_000), "usage", { kind: "test_usage", id: `u-${rand()}` });
    });
    expect((await refund({ payment_id: o.id, amount_minor: 200 })).json.reason).toBe("insufficient_balance");
    expect((await refund({ payment_id: o.id, amount_minor: 100 })).status).toBe(201);
    expect(
      (await api("GET", `/v1/workspaces/${w}/wallet/orders/${o.id}`, { token: owner.token })).json.refunded_minor,
    ).toBe(700);
    expect(await ledgerSums(w)).toEqual({ USD: 0 });
    expect(await db().auditRecord.count({ where: { workspaceId: w, action: "billing.refunded" } })).toBe(2);
  });

  it("concurrent refunds never exceed the payment: 5 × 300 of 1000 -> exactly 3", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const o = await order(w, 1000);
    await callback(succeeded(o));
    const rs = await Promise.all(
      Array.from({ length: 5 }, () =>
        api("POST", `/v1/platform/wallets/${w}/refunds`, {
          token: platformToken,
          body: { payment_id: o.id, amount_minor: 300 },
        }),
      ),
    );
    expect(rs.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409]);
    expect(
      (await api("GET", `/v1/workspaces/${w}/wallet/orders/${o.id}`, { token: owner.token })).json.refunded_minor,
    ).toBe(900);
    expect(await ledgerSums(w)).toEqual({ USD: 1_000_000 });
  });
});
