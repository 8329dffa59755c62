import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { addMonth } from "@/server/domain/billing/subscriptions.service";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { db } from "@/server/platform/db/client";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";

/**
 * Billing profile, subscription tiers and subscriptions (docs/decisions.md
 * "Billing"): a first subscription sets the plan, starts a period at the
 * tier's price and grants its included credit once per tier and month; a
 * cheaper tier waits for the period's end (billing-proration.int.test.ts has
 * the rules); roles and bad input are refused with nothing written.
 */
let owner: TTestUser;
let viewer: TTestUser;
let outsider: TTestUser;
let platformToken: string;
let ws: string;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  viewer = await makeUser();
  outsider = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  ws = (await makeWorkspace(owner.token)).id;
  expect(
    (
      await api("POST", `/v1/workspaces/${ws}/members`, {
        token: owner.token,
        body: { email: viewer.email, role: "viewer" },
      })
    ).status,
  ).toBe(201);
});

const rand = () => randomBytes(3).toString("hex");
const PROFILE = {
  legal_name: "Acme GmbH",
  email: "billing@acme.example",
  address: { line1: "Hauptstr. 1", city: "Berlin", postal_code: "10115", country: "DE" },
  tax_id: "DE123456789",
};

describe("billing profile", () => {
  it("is unconfigured until set; owner/admin set it, audited by field name; viewers and outsiders cannot", async () => {
    const empty = await api("GET", `/v1/workspaces/${ws}/billing-profile`, { token: viewer.token });
    expect(empty.json).toMatchObject({ configured: false, legal_name: null, address: null });
    expect(
      (await api("PUT", `/v1/workspaces/${ws}/billing-profile`, { token: viewer.token, body: PROFILE })).status,
    ).toBe(403);
    expect(
      (await api("PUT", `/v1/workspaces/${ws}/billing-profile`, { token: outsider.token, body: PROFILE })).status,
    ).toBe(403);
    for (const bad of [
      { ...PROFILE, email: "nope" },
      { ...PROFILE, address: { ...PROFILE.address, country: "Germany" } },
      { ...PROFILE, legal_name: "" },
      { ...PROFILE, extra: 1 },
    ]) {
      expect(
        (await api("PUT", `/v1/workspaces/${ws}/billing-profile`, { token: owner.token, body: bad })).status,
        JSON.stringify(bad),
      ).toBe(422);
    }
    expect(await db().billingProfile.count({ where: { workspaceId: ws } })).toBe(0);
    const set = await api("PUT", `/v1/workspaces/${ws}/billing-profile`, { token: owner.token, body: PROFILE });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toMatchObject({
      configured: true,
      legal_name: "Acme GmbH",
      address: { country: "DE", line2: null },
      tax_id: "DE123456789",
    });
    await api("PUT", `/v1/workspaces/${ws}/billing-profile`, { token: owner.token, body: PROFILE }); // unchanged: no audit
    await api("PUT", `/v1/workspaces/${ws}/billing-profile`, {
      token: owner.token,
      body: { ...PROFILE, legal_name: "Acme AG" },
    });
    const audits = await db().auditRecord.findMany({
      where: { workspaceId: ws, action: "billing.profile_changed" },
      orderBy: { seq: "asc" },
    });
    expect(audits.map((a) => (a.details as { changed_fields: string[] }).changed_fields.includes("legalName"))).toEqual(
      [true, true],
    );
    expect(JSON.stringify(audits.map((a) => a.details))).not.toContain("Hauptstr");
  });
});

describe("subscription tiers and subscriptions", () => {
  it("a tier change is audited; a subscription sets the plan and grants included credit once per tier and month", async () => {
    const team = `team-${rand()}`;
    const free = `free-${rand()}`;
    const put = (tier: string, body: unknown, token = platformToken) =>
      api("PUT", `/v1/platform/subscription-tiers/${tier}`, { token, body });
    expect(
      (
        await put(team, {
          name: "Team",
          plan: "team",
          currency: "USD",
          monthly_price_minor: 2900,
          included_credit_minor: 1000,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await put(free, {
          name: "Free",
          plan: "free",
          currency: "USD",
          monthly_price_minor: 0,
          included_credit_minor: 0,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await put(team, {
          name: "Team",
          plan: "team",
          currency: "USD",
          monthly_price_minor: 2900,
          included_credit_minor: 1000,
        })
      ).status,
    ).toBe(200);
    expect(
      await db().auditRecord.count({
        where: { workspaceId: "ws_platform", action: "billing.tier_changed", targetId: team },
      }),
    ).toBe(1);
    const tiers = await api("GET", "/v1/platform/subscription-tiers", { token: owner.token });
    expect(tiers.json.items.map((t: { tier: string }) => t.tier)).toEqual(expect.arrayContaining([team, free]));
    expect((await api("GET", `/v1/platform/subscription-tiers/${team}`, { token: owner.token })).json).toMatchObject({
      plan: "team",
      monthly_price_minor: 2900,
    });
    expect((await api("GET", "/v1/platform/subscription-tiers/nope", { token: owner.token })).status).toBe(404);

    const w = (await makeWorkspace(owner.token)).id;
    expect((await api("GET", `/v1/workspaces/${w}/subscription`, { token: owner.token })).json).toMatchObject({
      tier: null,
      plan: "free",
    });
    const sub = await api("PUT", `/v1/workspaces/${w}/subscription`, { token: owner.token, body: { tier: team } });
    expect(sub.status, sub.text).toBe(200);
    expect(sub.json).toMatchObject({ tier: team, plan: "team", currency: "USD", monthly_price_minor: 2900 });
    expect(sub.json.current_period_end).toBe(addMonth(new Date(sub.json.current_period_start)).toISOString());
    expect((await api("GET", `/v1/workspaces/${w}/plan`, { token: owner.token })).json.plan).toBe("team");
    // Same tier again: nothing changes.
    expect(
      (await api("PUT", `/v1/workspaces/${w}/subscription`, { token: owner.token, body: { tier: team } })).json
        .current_period_start,
    ).toBe(sub.json.current_period_start);
    // Back and forth: a cheaper tier waits for the period's end (docs/decisions.md "Billing: proration"), the same tier
    // again cancels it, and the included credit is granted once.
    expect(
      (await api("PUT", `/v1/workspaces/${w}/subscription`, { token: owner.token, body: { tier: free } })).json,
    ).toMatchObject({ tier: team, scheduled_tier: free });
    expect((await api("GET", `/v1/workspaces/${w}/plan`, { token: owner.token })).json.plan).toBe("team");
    await api("PUT", `/v1/workspaces/${w}/subscription`, { token: owner.token, body: { tier: team } });
    const wallet = (await api("GET", `/v1/workspaces/${w}/wallet`, { token: owner.token })).json;
    expect(wallet.balances).toEqual([
      {
        currency: "USD",
        total_micros: 10_000_000,
        paid_micros: 0,
        granted_micros: 10_000_000,
        total_minor: 1000,
        held_micros: 0,
        available_micros: 10_000_000,
      },
    ]);
    expect(wallet.grants).toHaveLength(1);
    expect(wallet.grants[0]).toMatchObject({ priority: 50, expires_at: sub.json.current_period_end });
    const actions = (
      await db().auditRecord.findMany({
        where: { workspaceId: w, action: { in: ["billing.subscription_changed", "plan.changed", "billing.granted"] } },
      })
    ).map((a) => a.action);
    expect(actions.filter((a) => a === "billing.subscription_changed")).toHaveLength(3);
    expect(actions.filter((a) => a === "plan.changed")).toHaveLength(1);
    expect(actions.filter((a) => a === "billing.granted")).toHaveLength(1);

    // Platform override.
    const over = await api("PUT", `/v1/platform/wallets/${w}/subscription`, {
      token: platformToken,
      body: { tier: free },
    });
    expect(over.json).toMatchObject({ tier: team, plan: "team", scheduled_tier: free });
  });

  it("refuses bad input, unknown tiers, viewers and outsiders with nothing written", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    const tier = `t-${rand()}`;
    for (const bad of [
      { name: "X", plan: "gold", currency: "USD", monthly_price_minor: 1, included_credit_minor: 0 },
      { name: "X", plan: "team", currency: "XXX", monthly_price_minor: 1, included_credit_minor: 0 },
      { name: "X", plan: "team", currency: "USD", monthly_price_minor: -1, included_credit_minor: 0 },
      { name: "X", plan: "team", currency: "USD", monthly_price_minor: 1.5, included_credit_minor: 0 },
    ])
      expect(
        (await api("PUT", `/v1/platform/subscription-tiers/${tier}`, { token: platformToken, body: bad })).status,
        JSON.stringify(bad),
      ).toBe(422);
    expect(
      (
        await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
          token: owner.token,
          body: { name: "X", plan: "team", currency: "USD", monthly_price_minor: 1, included_credit_minor: 0 },
        })
      ).status,
    ).toBe(403);
    expect(await db().subscriptionTier.count({ where: { tier } })).toBe(0);
    expect((await api("PUT", `/v1/workspaces/${w}/subscription`, { token: owner.token, body: { tier } })).status).toBe(
      422,
    );
    expect(
      (await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: viewer.token, body: { tier } })).status,
    ).toBe(403);
    expect(
      (await api("PUT", `/v1/workspaces/${w}/subscription`, { token: outsider.token, body: { tier } })).status,
    ).toBe(403);
    expect((await api("GET", `/v1/workspaces/${w}/subscription`, { token: outsider.token })).status).toBe(403);
    expect(
      (await api("PUT", `/v1/platform/wallets/${w}/subscription`, { token: owner.token, body: { tier } })).status,
    ).toBe(403);
    expect(
      (
        await api("PUT", `/v1/platform/wallets/ws_00000000000000000000000000/subscription`, {
          token: platformToken,
          body: { tier },
        })
      ).status,
    ).toBe(404);
    expect(await db().subscription.count({ where: { workspaceId: w } })).toBe(0);
  });

  it("adds a month on the same day, clamped to the month's end", () => {
    expect(addMonth(new Date("2026-01-31T10:00:00.000Z")).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(addMonth(new Date("2028-01-31T00:00:00.000Z")).toISOString()).toBe("2028-02-29T00:00:00.000Z");
    expect(addMonth(new Date("2026-12-15T23:59:59.999Z")).toISOString()).toBe("2027-01-15T23:59:59.999Z");
  });
});
