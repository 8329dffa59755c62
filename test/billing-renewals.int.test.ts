import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { issueInvoices } from "@/server/domain/billing/invoices.service";
import { renewDueSubscriptions, renewSubscription } from "@/server/domain/billing/renewals.service";
import { addMonth } from "@/server/domain/billing/subscriptions.service";
import { db } from "@/server/platform/db/client";
import { utcMonth } from "@/server/platform/time";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Period renewal and default budgets per tier (docs/decisions.md "Billing:
 * prepaid, Stripe, renewal"): the worker rolls a subscription whose period
 * ended into the next one at the tier's price then, with the included credit,
 * once however many workers run; a month's invoice bills each period that
 * started in it.
 */
let owner: TTestUser;
let platformToken: string;

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

const putTier = (tier: string, body: Record<string, unknown>, token = platformToken) =>
  api("PUT", `/v1/platform/subscription-tiers/${tier}`, { token, body });
const TIER = { name: "Growth", plan: "team", currency: "EUR", monthly_price_minor: 1500, included_credit_minor: 300 };

async function subscribed(extra: Record<string, unknown> = {}) {
  const tier = `g-${randomBytes(4).toString("hex")}`;
  expect((await putTier(tier, { ...TIER, ...extra })).status).toBe(200);
  const ws = (await makeWorkspace(owner.token)).id;
  const r = await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } });
  expect(r.status, r.text).toBe(200);
  return { tier, ws, sub: r.json as { current_period_start: string; current_period_end: string } };
}

describe("period renewal", () => {
  it("rolls over at period end with the tier's price then and the included credit, once with several workers", async () => {
    const { tier, ws, sub } = await subscribed();
    // The running period keeps its price; the next one gets the new price.
    expect((await putTier(tier, { ...TIER, monthly_price_minor: 2000 })).status).toBe(200);
    const end = new Date(sub.current_period_end);
    expect(await renewSubscription(ws, new Date(end.getTime() - 1000))).toBe(0); // not due yet

    const at = new Date(end.getTime() + 1000);
    const results = await Promise.all([
      renewDueSubscriptions(at),
      renewDueSubscriptions(at),
      renewSubscription(ws, at),
      renewSubscription(ws, at),
    ]);
    expect(results.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    const periods = await db().subscriptionPeriod.findMany({
      where: { workspaceId: ws },
      orderBy: { periodStart: "asc" },
    });
    expect(periods.map((p) => [p.periodStart.toISOString(), p.periodEnd.toISOString(), Number(p.priceMinor)])).toEqual([
      [sub.current_period_start, sub.current_period_end, 1500],
      [end.toISOString(), addMonth(end).toISOString(), 2000],
    ]);
    const now = (await api("GET", `/v1/workspaces/${ws}/subscription`, { token: owner.token })).json;
    expect(now).toMatchObject({
      tier,
      current_period_start: end.toISOString(),
      current_period_end: addMonth(end).toISOString(),
      monthly_price_minor: 2000,
    });
    const grants = await db().walletGrant.findMany({ where: { workspaceId: ws }, orderBy: { createdAt: "asc" } });
    expect(grants.map((g) => [Number(g.amountMicros), g.expiresAt.toISOString()])).toEqual([
      [3_000_000, end.toISOString()],
      [3_000_000, addMonth(end).toISOString()],
    ]);
    const renewals = await db().auditRecord.findMany({
      where: { workspaceId: ws, action: "billing.subscription_changed" },
    });
    expect(renewals.filter((a) => (a.details as { via?: string }).via === "renewal")).toHaveLength(1);

    // The invoice of the month the new period started in bills it at its snapshotted price.
    const month = utcMonth(end);
    const issued = await issueInvoices(
      ws,
      month,
      new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 1, 1)),
    );
    const eur = issued.find((i) => i.currency === "EUR");
    expect(eur?.subscription_minor).toBe(month === utcMonth(new Date(sub.current_period_start)) ? 3500 : 2000);
    expect(eur?.lines.filter((l) => l.kind === "subscription").map((l) => l.amount_minor)).toContain(2000);
  });

  it("a worker that was down writes every missed period but grants credit only for the current one", async () => {
    const { ws, sub } = await subscribed();
    const end = new Date(sub.current_period_end);
    const at = new Date(end.getTime() + 70 * 86_400_000);
    expect(await renewSubscription(ws, at)).toBe(3);
    const s = await db().subscription.findUniqueOrThrow({ where: { workspaceId: ws } });
    expect(s.currentPeriodStart <= at && s.currentPeriodEnd > at).toBe(true);
    expect(await db().subscriptionPeriod.count({ where: { workspaceId: ws } })).toBe(4);
    expect(await db().walletGrant.count({ where: { workspaceId: ws } })).toBe(2);
    expect(await renewSubscription(ws, at)).toBe(0);
  });
});

describe("default budgets per tier", () => {
  it("a subscription sets the month's budget limits the tier names; others untouched; bad values refused", async () => {
    const { ws, tier } = await subscribed({ default_budgets: { ai_tokens: 5000, runtime: null } });
    const t = (await api("GET", `/v1/platform/subscription-tiers/${tier}`, { token: owner.token })).json;
    expect(t.default_budgets).toEqual({ ai_tokens: 5000, runtime: null });
    const budgets = await db().budget.findMany({ where: { workspaceId: ws, month: utcMonth() } });
    const limit = (c: string) => budgets.find((b) => b.usageCategory === c)?.limitUnits;
    expect(limit("ai_tokens")).toBe(5000);
    expect(limit("runtime")).toBeNull();
    expect(await db().auditRecord.count({ where: { workspaceId: ws, action: "budget.changed" } })).toBe(2);
    for (const bad of [{ ai_tokens: -1 }, { gpu: 5 }, { ai_tokens: "lots" }]) {
      const r = await putTier(tier, { ...TIER, default_budgets: bad });
      expect(r.status, JSON.stringify(bad)).toBe(422);
    }
    expect(
      (await api("GET", `/v1/platform/subscription-tiers/${tier}`, { token: owner.token })).json.default_budgets,
    ).toEqual({ ai_tokens: 5000, runtime: null });
    expect((await putTier(tier, { ...TIER, default_budgets: { ai_tokens: 1 } }, owner.token)).status).toBe(403);
  });
});
