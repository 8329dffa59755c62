import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { reserveUsage, settleReservation } from "@/server/domain/usage/reservations.service";
import { db } from "@/server/platform/db/client";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { aiCapability, bootBridgeApp, bridge, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * Prepaid tiers (docs/decisions.md "Billing: prepaid, Stripe, renewal"): a
 * prepaid workspace's call holds its price from the wallet in the statement
 * that reserves its budget, pays the actual price when it settles, and is
 * refused usage_denied when the wallet cannot cover it. Never overspent.
 */
let owner: TTestUser;
let platformToken: string;
let provider: TOpenAiServer;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  provider = await startOpenAiServer(`sk-prepaid-${randomBytes(8).toString("hex")}`, { tokens: "max_tokens" });
});

afterAll(async () => {
  await provider?.close();
});

const rand = () => randomBytes(4).toString("hex");
// 1 micro per token in and out, 9 960 per call: a 40-token call (20 in, 20 out) costs exactly 10 000 micros (1 cent).
const CARD = {
  currency: "USD",
  prices: { input_tokens_per_million: 1_000_000, output_tokens_per_million: 1_000_000, per_call: 9_960 },
};
const CALL_MICROS = 10_000;
const body = { model_kind: "text", input: { text: "prepaid" }, max_tokens: 40 };

async function prepaidTier(mode: "prepaid" | "postpaid" = "prepaid"): Promise<string> {
  const tier = `pre-${rand()}`;
  const r = await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
    token: platformToken,
    body: {
      name: "Prepaid",
      plan: "team",
      currency: "USD",
      monthly_price_minor: 0,
      included_credit_minor: 0,
      billing_mode: mode,
    },
  });
  expect(r.status, r.text).toBe(200);
  expect(r.json.billing_mode).toBe(mode);
  return tier;
}

async function subscribe(ws: string, tier: string): Promise<void> {
  const r = await api("PUT", `/v1/platform/wallets/${ws}/subscription`, { token: platformToken, body: { tier } });
  expect(r.status, r.text).toBe(200);
}

async function aiWorkspace(): Promise<TBridgeSetup & { model: string }> {
  const model = `pp-${rand()}`;
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
  expect(
    (await api("PUT", `/v1/platform/rate-cards/openai/${model}`, { token: platformToken, body: CARD })).status,
  ).toBe(200);
  return { ...s, model };
}

type TSample = { balance: bigint; held: bigint };

/** Reads the wallet row on its own connection every few ms while the calls run. */
function sampleWallet(ws: string) {
  let running = true;
  const seen: TSample[] = [];
  const done = (async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      while (running) {
        const row = (
          await client.query<{ balance_micros: string; held_micros: string }>(
            "SELECT balance_micros, held_micros FROM wallet_balances WHERE workspace_id = $1 AND currency = 'USD'",
            [ws],
          )
        ).rows[0];
        if (row) seen.push({ balance: BigInt(row.balance_micros), held: BigInt(row.held_micros) });
        await new Promise((r) => setTimeout(r, 2));
      }
    } finally {
      await client.end();
    }
  })();
  return { stop: async () => ((running = false), await done, seen) };
}

describe("a prepaid wallet that covers exactly 50 calls", () => {
  it("200 concurrent ai.generate calls: exactly 50 succeed, the rest usage_denied; never below zero; the ledger adds up", async () => {
    const s = await aiWorkspace();
    await subscribe(s.ws, await prepaidTier());
    // 20 cents granted + 30 cents paid = 50 calls at 1 cent.
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const grant = await api("POST", `/v1/platform/wallets/${s.ws}/grants`, {
      token: platformToken,
      body: { amount_minor: 20, currency: "USD", expires_at: future },
    });
    expect(grant.status, grant.text).toBe(201);
    expect(
      (
        await api("POST", `/v1/platform/wallets/${s.ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 30, currency: "USD", reason: "prepaid test" },
        })
      ).status,
    ).toBe(201);

    const before = provider.authorizedCalls();
    const sampler = sampleWallet(s.ws);
    const calls = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const r = await bridge(s.token, "ai.generate", "generate", body);
        return { status: r.status, json: r.json };
      }),
    );
    const samples = await sampler.stop();

    expect(
      calls.filter((c) => c.status !== 200 && c.status !== 429),
      JSON.stringify(calls.find((c) => c.status !== 200 && c.status !== 429)),
    ).toEqual([]);
    const ok = calls.filter((c) => c.status === 200);
    expect(ok).toHaveLength(50);
    expect(calls.filter((c) => c.status === 429 && c.json.reason === "usage_denied")).toHaveLength(150);
    expect(provider.authorizedCalls() - before).toBe(50);

    // Never below zero, never more held than there was.
    expect(samples.length).toBeGreaterThan(3);
    expect(samples.filter((x) => x.balance < BigInt(0) || x.balance - x.held < BigInt(0))).toEqual([]);

    // Settled: nothing held, nothing reserved, the balance row is the ledger's sum, each completed call debited once at its price.
    const row = await db().walletBalance.findUniqueOrThrow({
      where: { workspaceId_currency: { workspaceId: s.ws, currency: "USD" } },
    });
    expect(row.heldMicros).toBe(BigInt(0));
    expect(row.balanceMicros).toBe(BigInt(0));
    const sum = await db().walletEntry.aggregate({
      where: { workspaceId: s.ws, currency: "USD" },
      _sum: { amountMicros: true },
    });
    expect(sum._sum.amountMicros).toBe(BigInt(0));
    expect(await db().budgetReservation.count({ where: { budgetId: { startsWith: `bgt_${s.ws}_` } } })).toBe(0);
    const completed = await db().capabilityInvocation.findMany({ where: { workspaceId: s.ws, outcome: "completed" } });
    expect(completed).toHaveLength(50);
    expect(completed.every((c) => c.chargeMicros === BigInt(CALL_MICROS))).toBe(true);
    const usage = await db().walletEntry.findMany({ where: { workspaceId: s.ws, kind: "usage" } });
    expect(new Set(usage.map((e) => e.sourceId))).toEqual(new Set(completed.map((c) => c.id)));
    expect(usage.reduce((a, e) => a + e.amountMicros, BigInt(0))).toBe(BigInt(-50 * CALL_MICROS));
    // The grant was spent first: all of it, then the paid balance.
    const grantSpent = usage.filter((e) => e.grantId === grant.json.id).reduce((a, e) => a + e.amountMicros, BigInt(0));
    expect(grantSpent).toBe(BigInt(-200_000));
    const denied = await db().capabilityInvocation.count({
      where: { workspaceId: s.ws, outcome: "denied", reason: "usage_denied" },
    });
    expect(denied).toBe(150);

    // The wallet API says the same; a top-up (adjustment) lets calls through again.
    const wallet = (await api("GET", `/v1/workspaces/${s.ws}/wallet`, { token: owner.token })).json;
    expect(wallet.balances).toEqual([
      {
        currency: "USD",
        total_micros: 0,
        paid_micros: 0,
        granted_micros: 0,
        total_minor: 0,
        held_micros: 0,
        available_micros: 0,
      },
    ]);
    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(429);
    await api("POST", `/v1/platform/wallets/${s.ws}/adjustments`, {
      token: platformToken,
      body: { amount_minor: 1, currency: "USD", reason: "one more" },
    });
    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(200);
  });
});

describe("holds", () => {
  it("a call that fails at the provider releases its hold and is not charged", async () => {
    const s = await aiWorkspace();
    await subscribe(s.ws, await prepaidTier());
    await api("POST", `/v1/platform/wallets/${s.ws}/adjustments`, {
      token: platformToken,
      body: { amount_minor: 5, currency: "USD", reason: "t" },
    });
    provider.behave({ mode: "500" });
    try {
      const r = await bridge(s.token, "ai.generate", "generate", body);
      expect(r.status).toBeGreaterThanOrEqual(500);
    } finally {
      provider.behave({ mode: "ok", tokens: "max_tokens", delayMs: 0 });
    }
    const row = await db().walletBalance.findUniqueOrThrow({
      where: { workspaceId_currency: { workspaceId: s.ws, currency: "USD" } },
    });
    expect({ balance: row.balanceMicros, held: row.heldMicros }).toEqual({ balance: BigInt(50_000), held: BigInt(0) });
    expect(await db().walletEntry.count({ where: { workspaceId: s.ws, kind: "usage" } })).toBe(0);
  });

  it("the hold is the call's maximum price (dearer token price, per-call price); a postpaid tier holds nothing and may go below zero", async () => {
    const s = await aiWorkspace();
    // A card with a dearer output price: 40 tokens at 3 micros + 9 960 = 10 080 held; 20×1 + 20×3 + 9 960 = 10 040 charged.
    await api("PUT", `/v1/platform/rate-cards/openai/${s.model}`, {
      token: platformToken,
      body: {
        currency: "USD",
        prices: { input_tokens_per_million: 1_000_000, output_tokens_per_million: 3_000_000, per_call: 9_960 },
      },
    });
    await subscribe(s.ws, await prepaidTier());
    await api("POST", `/v1/platform/wallets/${s.ws}/adjustments`, {
      token: platformToken,
      body: { amount_minor: 1, currency: "USD", reason: "t" },
    });
    // 10 000 available < 10 080 held: refused although the actual price (10 040) would also not fit.
    const refused = await bridge(s.token, "ai.generate", "generate", body);
    expect(refused.status).toBe(429);
    expect(refused.json.reason).toBe("usage_denied");
    await api("POST", `/v1/platform/wallets/${s.ws}/adjustments`, {
      token: platformToken,
      body: { amount_minor: 1, currency: "USD", reason: "t" },
    });
    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(200);
    const row = await db().walletBalance.findUniqueOrThrow({
      where: { workspaceId_currency: { workspaceId: s.ws, currency: "USD" } },
    });
    expect({ balance: row.balanceMicros, held: row.heldMicros }).toEqual({
      balance: BigInt(20_000 - 10_040),
      held: BigInt(0),
    });

    // The same workspace on a postpaid tier: calls go through with an empty wallet and are owed.
    await subscribe(s.ws, await prepaidTier("postpaid"));
    await api("POST", `/v1/platform/wallets/${s.ws}/adjustments`, {
      token: platformToken,
      body: { amount_minor: -1, currency: "USD", reason: "t" },
    });
    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(200);
    const wallet = (await api("GET", `/v1/workspaces/${s.ws}/wallet`, { token: owner.token })).json;
    expect(wallet.balances[0].total_micros).toBe(20_000 - 10_040 - 10_000 - 10_040);
  });

  it("runtime admission and other capabilities: a prepaid wallet at zero admits nothing; the hold is released on settle", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    await subscribe(ws, await prepaidTier());
    const refused = await reserveUsage(ws, "runtime", 1_000, { hold: { currency: "USD", micros: BigInt(0) } });
    expect(refused).toEqual({ ok: false, why: "wallet" });
    // Nothing was left reserved on the budget by the refusal.
    const budget = await db().budget.findFirstOrThrow({ where: { workspaceId: ws, usageCategory: "runtime" } });
    expect(budget.reservedUnits).toBe(0);
    await api("POST", `/v1/platform/wallets/${ws}/adjustments`, {
      token: platformToken,
      body: { amount_minor: 1, currency: "USD", reason: "t" },
    });
    const held = await reserveUsage(ws, "runtime", 1_000, { hold: { currency: "USD", micros: BigInt(4_000) } });
    expect(held.ok).toBe(true);
    const during = await db().walletBalance.findUniqueOrThrow({
      where: { workspaceId_currency: { workspaceId: ws, currency: "USD" } },
    });
    expect(during.heldMicros).toBe(BigInt(4_000));
    // Another hold larger than what is left (10 000 - 4 000) is refused.
    expect(await reserveUsage(ws, "runtime", 1, { hold: { currency: "USD", micros: BigInt(6_001) } })).toEqual({
      ok: false,
      why: "wallet",
    });
    if (held.ok) await settleReservation(held.reservation.id, 500, null, BigInt(2_500));
    const after = await db().walletBalance.findUniqueOrThrow({
      where: { workspaceId_currency: { workspaceId: ws, currency: "USD" } },
    });
    expect({ balance: after.balanceMicros, held: after.heldMicros }).toEqual({
      balance: BigInt(7_500),
      held: BigInt(0),
    });
    if (held.ok) {
      const debit = await db().walletEntry.findMany({
        where: { sourceKind: "budget_reservation", sourceId: held.reservation.id },
      });
      expect(debit.map((e) => e.amountMicros)).toEqual([BigInt(-2_500)]);
      // A retried settle finds no reservation and charges nothing more.
      await settleReservation(held.reservation.id, 500, null, BigInt(2_500));
      expect(
        await db().walletEntry.count({ where: { sourceKind: "budget_reservation", sourceId: held.reservation.id } }),
      ).toBe(1);
    }
  });

  it("an unfinished call's hold is charged in full by recovery, never released for free", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    await subscribe(ws, await prepaidTier());
    await api("POST", `/v1/platform/wallets/${ws}/adjustments`, {
      token: platformToken,
      body: { amount_minor: 1, currency: "USD", reason: "t" },
    });
    const held = await reserveUsage(ws, "runtime", 10, {
      hold: { currency: "USD", micros: BigInt(3_000) },
      invocationId: `cap_gone${rand()}`,
    });
    expect(held.ok).toBe(true);
    if (!held.ok) return;
    await db()
      .$executeRaw`UPDATE budget_reservations SET expires_at = now() - interval '1 second' WHERE id = ${held.reservation.id}`;
    const { sweepExpiredReservations } = await import("@/server/domain/usage/reservations.service");
    expect(await sweepExpiredReservations()).toBeGreaterThanOrEqual(1);
    const after = await db().walletBalance.findUniqueOrThrow({
      where: { workspaceId_currency: { workspaceId: ws, currency: "USD" } },
    });
    expect({ balance: after.balanceMicros, held: after.heldMicros }).toEqual({
      balance: BigInt(7_000),
      held: BigInt(0),
    });
  });
});
