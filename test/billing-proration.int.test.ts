import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { issueInvoices } from "@/server/domain/billing/invoices.service";
import { prorate } from "@/server/domain/billing/proration";
import { renewSubscription } from "@/server/domain/billing/renewals.service";
import { addMonth } from "@/server/domain/billing/subscriptions.service";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { db } from "@/server/platform/db/client";
import { utcMonth } from "@/server/platform/time";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Subscription changes (docs/decisions.md "Billing: proration"): an upgrade is
 * immediate, keeps the period and bills the price difference for the time
 * left (half up, once) with the included-credit difference prorated down; a
 * downgrade or a currency change is scheduled for the period's end, can be
 * cancelled, and renewal applies it.
 */
let owner: TTestUser;
let viewer: TTestUser;
let platformToken: string;

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  viewer = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

const rand = () => randomBytes(4).toString("hex");
const DAY = 86_400_000;

async function tier(plan: string, currency: string, price: number, credit: number): Promise<string> {
  const name = `p-${rand()}`;
  const r = await api("PUT", `/v1/platform/subscription-tiers/${name}`, {
    token: platformToken,
    body: { name, plan, currency, monthly_price_minor: price, included_credit_minor: credit },
  });
  expect(r.status, r.text).toBe(200);
  return name;
}

const subscribe = (ws: string, t: string, token = owner.token) =>
  api("PUT", `/v1/workspaces/${ws}/subscription`, { token, body: { tier: t } });

/** A workspace on `basic` whose current period started 20 days ago and ends in 10 (so the share left is known). */
async function midPeriod(basic: string) {
  const ws = (await makeWorkspace(owner.token)).id;
  expect(
    (
      await api("POST", `/v1/workspaces/${ws}/members`, {
        token: owner.token,
        body: { email: viewer.email, role: "viewer" },
      })
    ).status,
  ).toBe(201);
  expect((await subscribe(ws, basic)).status).toBe(200);
  const now = Date.now();
  const start = new Date(now - 20 * DAY);
  const end = new Date(now + 10 * DAY);
  await db().subscription.update({
    where: { workspaceId: ws },
    data: { currentPeriodStart: start, currentPeriodEnd: end },
  });
  return { ws, start, end };
}

describe("subscription changes", () => {
  it("an upgrade is immediate: same period, prorated charge half up, prorated credit down, billed on the invoice", async () => {
    const basic = await tier("free", "USD", 900, 300);
    const pro = await tier("team", "USD", 2900, 1000);
    const { ws, start, end } = await midPeriod(basic);
    const t0 = new Date();
    const up = await subscribe(ws, pro);
    const t1 = new Date();
    expect(up.status, up.text).toBe(200);
    expect(up.json).toMatchObject({
      tier: pro,
      plan: "team",
      monthly_price_minor: 2900,
      current_period_start: start.toISOString(),
      current_period_end: end.toISOString(),
      scheduled_tier: null,
      scheduled_at: null,
    });
    expect((await api("GET", `/v1/workspaces/${ws}/plan`, { token: owner.token })).json.plan).toBe("team");

    const row = await db().subscriptionPeriod.findFirstOrThrow({ where: { workspaceId: ws, kind: "proration" } });
    expect(row.periodEnd.toISOString()).toBe(end.toISOString());
    expect(row.periodStart >= t0 && row.periodStart <= t1).toBe(true);
    // Exactly the difference (2 000) for the share left at the moment of the change, rounded half up once.
    const period = { start, end };
    expect(row.priceMinor).toBe(prorate(BigInt(2000), period, row.periodStart, "half_up"));
    expect(Number(row.priceMinor)).toBeGreaterThanOrEqual(666);
    expect(Number(row.priceMinor)).toBeLessThanOrEqual(667);
    const audit = await db().auditRecord.findFirstOrThrow({
      where: { workspaceId: ws, action: "billing.subscription_changed", targetId: ws },
      orderBy: { seq: "desc" },
    });
    expect(audit.details).toMatchObject({
      from: basic,
      to: pro,
      effective: "immediate",
      proration_minor: Number(row.priceMinor),
    });

    // Credit: basic's 300 at subscribing, then (1000 - 300) for the share left, rounded down, expiring with the period.
    const grants = await db().walletGrant.findMany({ where: { workspaceId: ws }, orderBy: { createdAt: "asc" } });
    expect(grants).toHaveLength(2);
    expect(grants[1]!.amountMicros).toBe(prorate(BigInt(700), period, row.periodStart, "down") * BigInt(10_000));
    expect(grants[1]!.expiresAt.toISOString()).toBe(end.toISOString());

    // The invoice of this month bills basic's period and the proration, each once.
    const month = utcMonth(row.periodStart);
    const [inv] = await issueInvoices(ws, month, new Date());
    const fees = inv!.lines.filter((l) => l.kind === "subscription");
    expect(fees.map((l) => [l.tier, l.amount_minor, "proration" in l ? l.proration : undefined])).toEqual(
      expect.arrayContaining([
        [basic, 900, undefined],
        [pro, Number(row.priceMinor), true],
      ]),
    );
    expect(inv!.subscription_minor).toBe(fees.reduce((s, l) => s + l.amount_minor, 0));
    const listed = await api("GET", `/v1/workspaces/${ws}/invoices`, { token: owner.token });
    expect(listed.status, listed.text).toBe(200);
  });

  it("a downgrade waits for the period's end, can be cancelled, and renewal applies it with the plan", async () => {
    const pro = await tier("team", "USD", 2900, 1000);
    const cheap = await tier("free", "USD", 500, 0);
    const { ws, end } = await midPeriod(pro);
    const down = await subscribe(ws, cheap);
    expect(down.status, down.text).toBe(200);
    expect(down.json).toMatchObject({
      tier: pro,
      plan: "team",
      monthly_price_minor: 2900,
      scheduled_tier: cheap,
      scheduled_at: end.toISOString(),
    });
    expect(await db().subscriptionPeriod.count({ where: { workspaceId: ws } })).toBe(1);
    expect((await api("GET", `/v1/workspaces/${ws}/subscription`, { token: viewer.token })).json).toMatchObject({
      tier: pro,
      scheduled_tier: cheap,
    });
    // Asking again for the scheduled tier changes nothing; asking for the current tier cancels it.
    expect((await subscribe(ws, cheap)).json.scheduled_tier).toBe(cheap);
    const cancel = await subscribe(ws, pro);
    expect(cancel.json).toMatchObject({ tier: pro, scheduled_tier: null, scheduled_at: null });
    const audits = await db().auditRecord.findMany({
      where: { workspaceId: ws, action: "billing.subscription_changed" },
      orderBy: { seq: "asc" },
    });
    expect(audits.map((a) => (a.details as { effective?: string }).effective)).toEqual([
      "immediate",
      "period_end",
      "immediate",
    ]);
    expect(audits[2]!.details).toMatchObject({ cancelled_scheduled_tier: cheap });
    // A viewer cannot schedule one.
    expect((await subscribe(ws, cheap, viewer.token)).status).toBe(403);
    expect((await db().subscription.findUniqueOrThrow({ where: { workspaceId: ws } })).scheduledTier).toBeNull();

    await subscribe(ws, cheap);
    expect(await renewSubscription(ws, new Date(end.getTime() - 1000))).toBe(0);
    expect((await api("GET", `/v1/workspaces/${ws}/plan`, { token: owner.token })).json.plan).toBe("team");
    expect(await renewSubscription(ws, new Date(end.getTime() + 1000))).toBe(1);
    const after = (await api("GET", `/v1/workspaces/${ws}/subscription`, { token: owner.token })).json;
    expect(after).toMatchObject({
      tier: cheap,
      plan: "free",
      monthly_price_minor: 500,
      current_period_start: end.toISOString(),
      current_period_end: addMonth(end).toISOString(),
      scheduled_tier: null,
    });
    const next = await db().subscriptionPeriod.findUniqueOrThrow({
      where: { workspaceId_periodStart: { workspaceId: ws, periodStart: end } },
    });
    expect({ tier: next.tier, price: Number(next.priceMinor), kind: next.kind }).toEqual({
      tier: cheap,
      price: 500,
      kind: "period",
    });
    const planAudit = await db().auditRecord.findFirstOrThrow({
      where: { workspaceId: ws, action: "plan.changed" },
      orderBy: { seq: "desc" },
    });
    expect(planAudit.details).toMatchObject({ from: "team", to: "free" });
    expect(planAudit.actorKind).toBe("system");
  });

  it("a same-price change is immediate with nothing to prorate; a currency change is scheduled", async () => {
    const a = await tier("team", "USD", 1000, 0);
    const b = await tier("enterprise", "USD", 1000, 0);
    const eur = await tier("enterprise", "EUR", 5000, 0);
    const { ws, end } = await midPeriod(a);
    const same = await subscribe(ws, b);
    expect(same.json).toMatchObject({ tier: b, plan: "enterprise", scheduled_tier: null });
    const row = await db().subscriptionPeriod.findFirstOrThrow({ where: { workspaceId: ws, kind: "proration" } });
    expect(row.priceMinor).toBe(BigInt(0));
    const cur = await subscribe(ws, eur);
    expect(cur.json).toMatchObject({ tier: b, currency: "USD", scheduled_tier: eur, scheduled_at: end.toISOString() });
    // Not a tier: 422 with nothing scheduled.
    expect((await subscribe(ws, `nope-${rand()}`)).status).toBe(422);
    expect((await db().subscription.findUniqueOrThrow({ where: { workspaceId: ws } })).scheduledTier).toBe(eur);
  });
});
