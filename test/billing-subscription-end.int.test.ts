import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { renewDueSubscriptions } from "@/server/domain/billing/renewals.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Subscriptions that end (issue #36 item 7; docs/decisions.md "Billing:
 * subscriptions that end"), moved by test clocks: cancel at the period's end
 * and resume before it, cancel at the end (nothing more billed), cancel at
 * once (the unused time credited on the invoice to the minor unit, included
 * credit written off), trials that convert (the first paid period on the
 * invoice) or lapse (no way to pay: free plan, nothing billed, no second
 * trial). Each change is one audit record and one subscription.changed event.
 */
let owner: TTestUser;
let outsider: TTestUser;
let platformToken: string;

beforeAll(async () => {
  process.env.CAPSTAN_TEST_CLOCKS = "1";
  resetEnvCache();
  await bootApp();
  owner = await makeUser();
  outsider = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

afterAll(async () => {
  delete process.env.CAPSTAN_TEST_CLOCKS;
  resetEnvCache();
});

async function setup(tierBody: Record<string, unknown>, frozen: string) {
  const tier = `se-${randomBytes(4).toString("hex")}`;
  const t = await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
    token: platformToken,
    body: {
      name: "Ending",
      plan: "team",
      currency: "EUR",
      monthly_price_minor: 3100,
      included_credit_minor: 0,
      ...tierBody,
    },
  });
  expect(t.status, t.text).toBe(200);
  const ws = (await makeWorkspace(owner.token)).id;
  const clock = (
    await api("POST", "/v1/platform/billing/test-clocks", {
      token: platformToken,
      body: { workspace_id: ws, frozen_time: frozen },
    })
  ).json as { id: string };
  const advance = async (to: string) =>
    expect(
      (
        await api("POST", `/v1/platform/billing/test-clocks/${clock.id}:advance`, {
          token: platformToken,
          body: { frozen_time: to },
        })
      ).status,
    ).toBe(200);
  return { tier, ws, advance };
}

const sub = (ws: string) => api("GET", `/v1/workspaces/${ws}/subscription`, { token: owner.token });
const cancel = (ws: string, when?: string, token = owner.token) =>
  api("DELETE", `/v1/workspaces/${ws}/subscription${when ? `?when=${when}` : ""}`, { token });
const resume = (ws: string, token = owner.token) =>
  api("POST", `/v1/workspaces/${ws}/subscription:resume`, { token, body: {} });
const invoices = async (ws: string) =>
  (await api("GET", `/v1/workspaces/${ws}/invoices?order=asc`, { token: owner.token })).json.items as Array<
    Record<string, unknown>
  >;
async function changes(ws: string): Promise<string[]> {
  const events = await db().outboxEvent.findMany({
    where: { workspaceId: ws, type: "subscription.changed" },
    orderBy: { seq: "asc" },
  });
  const audits = await db().auditRecord.findMany({
    where: { workspaceId: ws, action: "billing.subscription_changed" },
    orderBy: { createdAt: "asc" },
  });
  expect(audits.map((a) => (a.details as { change: string }).change)).toEqual(
    events.map((e) => (e.data as { change: string }).change),
  );
  return events.map((e) => (e.data as { change: string }).change);
}

describe("subscriptions that end", () => {
  it("cancel at the period's end, resume, cancel again: it ends at the period's end and nothing more is billed", async () => {
    const { tier, ws, advance } = await setup({}, "2026-12-05T09:00:00.000Z");
    expect(
      (await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).json,
    ).toMatchObject({ tier, status: "active", cancel_at_period_end: false, trial_end: null });
    expect((await cancel(ws, undefined, outsider.token)).status).toBe(403);
    const c = await cancel(ws);
    expect(c.status, c.text).toBe(200);
    expect(c.json).toMatchObject({
      tier,
      plan: "team",
      cancel_at_period_end: true,
      cancel_at: "2027-01-05T09:00:00.000Z",
    });
    expect((await cancel(ws)).json.cancel_at_period_end).toBe(true); // idempotent: no second record
    const r = await resume(ws);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ tier, cancel_at_period_end: false, cancel_at: null });
    expect((await cancel(ws, "period_end")).json.cancel_at_period_end).toBe(true);
    expect((await cancel(ws, "sometimes")).status).toBe(400);

    // December closes with its fee; the period ends on January 5 and is not renewed.
    await advance("2027-01-06T00:00:00.000Z");
    await closeDueMonths();
    expect((await sub(ws)).json).toMatchObject({ tier: null, plan: "free", status: null, cancel_at_period_end: false });
    expect((await resume(ws)).status).toBe(404);
    await advance("2027-02-02T00:00:00.000Z");
    await closeDueMonths();
    const list = await invoices(ws);
    expect(list.map((i) => [i.month, i.subscription_minor])).toEqual([["2026-12", 3100]]);
    expect(await db().subscriptionPeriod.count({ where: { workspaceId: ws } })).toBe(1);
    expect(await changes(ws)).toEqual(["created", "cancel_scheduled", "resumed", "cancel_scheduled", "ended"]);
    const ended = await db().outboxEvent.findFirstOrThrow({
      where: { workspaceId: ws, type: "subscription.changed" },
      orderBy: { seq: "desc" },
    });
    expect(ended.data).toMatchObject({ change: "ended", from: tier, subscription: { status: "ended", tier: null } });
  });

  it("resume after the period is over but before renewal ran is refused", async () => {
    const { tier, ws, advance } = await setup({}, "2026-12-05T09:00:00.000Z");
    expect((await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).status).toBe(
      200,
    );
    expect((await cancel(ws)).status).toBe(200);
    await advance("2027-01-05T10:00:00.000Z");
    const late = await resume(ws);
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ reason: "subscription_ended", ended_at: "2027-01-05T09:00:00.000Z" });
  });

  it("cancel at once: the plan drops now, the unused time is credited on the month's invoice to the minor unit, included credit is written off", async () => {
    const { tier, ws, advance } = await setup({ included_credit_minor: 500 }, "2026-12-01T00:00:00.000Z");
    expect(
      (await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).json
        .current_period_end,
    ).toBe("2027-01-01T00:00:00.000Z");
    await advance("2026-12-11T00:00:00.000Z"); // 10 of 31 days used
    const c = await cancel(ws, "immediately");
    expect(c.status, c.text).toBe(200);
    expect(c.json).toMatchObject({ tier: null, plan: "free", status: null });
    expect((await api("GET", `/v1/workspaces/${ws}/plan`, { token: owner.token })).json.plan).toBe("free");
    const wallet = (await api("GET", `/v1/workspaces/${ws}/wallet`, { token: owner.token })).json;
    expect(wallet.grants).toEqual([]);
    expect(await db().walletEntry.count({ where: { workspaceId: ws, kind: "expiry" } })).toBe(1);
    await advance("2027-01-02T00:00:00.000Z");
    await closeDueMonths();
    const [inv] = await invoices(ws);
    // 3100 × 21/31 = 2100 exactly credited; 1000 due for the ten days used.
    expect(inv).toMatchObject({
      month: "2026-12",
      subscription_minor: 1000,
      amount_due_minor: 1000,
      status: "open",
      currency: "EUR",
    });
    expect(inv!.lines).toEqual([
      {
        kind: "subscription",
        tier,
        amount_minor: 3100,
        period_start: "2026-12-01T00:00:00.000Z",
        period_end: "2027-01-01T00:00:00.000Z",
      },
      {
        kind: "subscription",
        tier,
        amount_minor: -2100,
        period_start: "2026-12-11T00:00:00.000Z",
        period_end: "2027-01-01T00:00:00.000Z",
        cancellation: true,
      },
    ]);
    const ev = await db().outboxEvent.findFirstOrThrow({
      where: { workspaceId: ws, type: "subscription.changed" },
      orderBy: { seq: "desc" },
    });
    expect(ev.data).toMatchObject({
      change: "canceled",
      effective: "immediate",
      credited_minor: 2100,
      currency: "EUR",
    });
    expect((await cancel(ws)).status).toBe(404);
  });

  it("a trial converts at its end when the wallet can pay: the first paid period is on the invoice after the trial line", async () => {
    const { tier, ws, advance } = await setup(
      { monthly_price_minor: 2000, trial_days: 14 },
      "2026-12-05T00:00:00.000Z",
    );
    expect(
      (
        await api("POST", `/v1/platform/wallets/${ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 2000, currency: "EUR", reason: "prepaid" },
        })
      ).status,
    ).toBe(201);
    const s = await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } });
    expect(s.json).toMatchObject({
      tier,
      plan: "team",
      status: "trialing",
      trial_end: "2026-12-19T00:00:00.000Z",
      current_period_end: "2026-12-19T00:00:00.000Z",
    });
    await advance("2026-12-20T00:00:00.000Z");
    expect(await renewDueSubscriptions()).toBe(1);
    expect((await sub(ws)).json).toMatchObject({
      tier,
      status: "active",
      trial_end: null,
      current_period_start: "2026-12-19T00:00:00.000Z",
      current_period_end: "2027-01-19T00:00:00.000Z",
    });
    await advance("2027-01-02T00:00:00.000Z");
    await closeDueMonths();
    const [inv] = await invoices(ws);
    expect(inv!.lines).toEqual([
      {
        kind: "subscription",
        tier,
        amount_minor: 0,
        period_start: "2026-12-05T00:00:00.000Z",
        period_end: "2026-12-19T00:00:00.000Z",
        trial: true,
      },
      {
        kind: "subscription",
        tier,
        amount_minor: 2000,
        period_start: "2026-12-19T00:00:00.000Z",
        period_end: "2027-01-19T00:00:00.000Z",
      },
    ]);
    expect(inv).toMatchObject({ subscription_minor: 2000, amount_due_minor: 2000 });
    expect(await changes(ws)).toEqual(["trial_started", "trial_converted"]);
  });

  it("a trial lapses at its end without a way to pay: free plan, nothing billed, and no second trial", async () => {
    const { tier, ws, advance } = await setup({ monthly_price_minor: 2000, trial_days: 7 }, "2026-12-05T00:00:00.000Z");
    expect(
      (await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).json.status,
    ).toBe("trialing");
    await advance("2026-12-13T00:00:00.000Z");
    await renewDueSubscriptions();
    expect((await sub(ws)).json).toMatchObject({ tier: null, plan: "free" });
    await advance("2027-01-02T00:00:00.000Z");
    await closeDueMonths();
    expect(await invoices(ws)).toEqual([]);
    const again = await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } });
    expect(again.json).toMatchObject({ tier, status: "active", trial_end: null });
    expect(await changes(ws)).toEqual(["trial_started", "trial_lapsed", "created"]);
    const lapsed = await db().outboxEvent.findMany({
      where: { workspaceId: ws, type: "subscription.changed" },
      orderBy: { seq: "asc" },
    });
    expect(lapsed[1]!.data).toMatchObject({ change: "trial_lapsed", subscription: { status: "ended" } });
  });
});
