import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { collectDue } from "@/server/domain/billing/collection/collection-worker";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { renewDueSubscriptions } from "@/server/domain/billing/renewals.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { saveCard, WEBHOOK_SECRET } from "./support/billing-collection";
import { startSmtpSink, type TSmtpSink } from "./support/smtp-sink";
import { startStripeServer, type TStripeServer } from "./support/stripe-server";
import type { TCardBehaviour } from "./support/stripe-server";

/**
 * A trial converts on a saved card (docs/decisions.md "Credit notes,
 * subscriptions that end, metered pricing", Trials), against a loopback
 * Stripe-compatible server: with an empty wallet and a default card the trial
 * converts (`first_period_paid_by: "card"`), the invoice that bills the first
 * period is charged to that card off-session by the collection worker; a
 * declining card converts too and walks the dunning schedule to the tier's
 * policy (restricted), lifted when the card pays; no card (or a removed one)
 * and no wallet: the trial lapses.
 */
let stripe: TStripeServer;
let smtp: TSmtpSink;
let owner: TTestUser;
let platformToken: string;
const DAY = 86_400_000;

beforeAll(async () => {
  stripe = await startStripeServer();
  smtp = await startSmtpSink();
  Object.assign(process.env, {
    CAPSTAN_STRIPE_SECRET_KEY: stripe.secretKey,
    CAPSTAN_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CAPSTAN_STRIPE_API_BASE: stripe.base,
    CAPSTAN_TEST_CLOCKS: "1",
    CAPSTAN_SMTP_URL: smtp.url,
  });
  resetEnvCache();
  await bootApp();
  owner = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

afterAll(async () => {
  for (const k of [
    "CAPSTAN_STRIPE_SECRET_KEY",
    "CAPSTAN_STRIPE_WEBHOOK_SECRET",
    "CAPSTAN_STRIPE_API_BASE",
    "CAPSTAN_TEST_CLOCKS",
    "CAPSTAN_SMTP_URL",
  ])
    delete process.env[k];
  resetEnvCache();
  await stripe?.close();
  await smtp?.stop();
});

/** A trial of 14 days at 2000 EUR/month from 2026-12-05 (test clock), with `card` saved first (none: no card). */
async function trialWith(card: TCardBehaviour | null) {
  const tier = `tc-${randomBytes(4).toString("hex")}`;
  const t = await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
    token: platformToken,
    body: {
      name: "Trial",
      plan: "team",
      currency: "EUR",
      monthly_price_minor: 2000,
      included_credit_minor: 0,
      trial_days: 14,
    },
  });
  expect(t.status, t.text).toBe(200);
  const ws = (await makeWorkspace(owner.token)).id;
  const email = `ap-${randomBytes(4).toString("hex")}@trial.example`;
  const p = await api("PUT", `/v1/workspaces/${ws}/billing-profile`, {
    token: owner.token,
    body: {
      legal_name: "Probe GmbH",
      email,
      address: { line1: "Weg 2", city: "Bonn", postal_code: "53111", country: "DE" },
    },
  });
  expect(p.status, p.text).toBe(200);
  const clock = await api("POST", "/v1/platform/billing/test-clocks", {
    token: platformToken,
    body: { workspace_id: ws, frozen_time: "2026-12-05T00:00:00.000Z" },
  });
  expect(clock.status, clock.text).toBe(201);
  const pm = card ? await saveCard(stripe, owner, ws, card) : null;
  const s = await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } });
  expect(s.json).toMatchObject({ tier, status: "trialing", trial_end: "2026-12-19T00:00:00.000Z" });
  const advance = async (to: string | Date) =>
    expect(
      (
        await api("POST", `/v1/platform/billing/test-clocks/${clock.json.id}:advance`, {
          token: platformToken,
          body: { frozen_time: typeof to === "string" ? to : to.toISOString() },
        })
      ).status,
    ).toBe(200);
  return { tier, ws, pm, advance };
}

const sub = async (ws: string) => (await api("GET", `/v1/workspaces/${ws}/subscription`, { token: owner.token })).json;
const invoices = async (ws: string) =>
  (await api("GET", `/v1/workspaces/${ws}/invoices?order=asc`, { token: owner.token })).json.items as Array<{
    id: string;
    number: string;
    status: string;
    amount_due_minor: number;
    amount_remaining_minor: number;
  }>;
const changeEvents = async (ws: string) =>
  (
    await db().outboxEvent.findMany({
      where: { workspaceId: ws, type: "subscription.changed" },
      orderBy: { seq: "asc" },
    })
  ).map((e) => e.data as { change: string } & Record<string, unknown>);
const chargesOf = (invoiceId: string) =>
  stripe.requests.filter((q) => q.path === "/v1/payment_intents" && q.form["metadata[invoice_id]"] === invoiceId);

describe("a trial with a saved card", () => {
  it("converts with an empty wallet; the invoice of its first period is charged to the card off-session", async () => {
    const { tier, ws, pm, advance } = await trialWith("ok");
    await advance("2026-12-20T00:00:00.000Z");
    expect(await renewDueSubscriptions()).toBe(1);
    expect(await sub(ws)).toMatchObject({
      tier,
      plan: "team",
      status: "active",
      current_period_start: "2026-12-19T00:00:00.000Z",
      current_period_end: "2027-01-19T00:00:00.000Z",
    });
    const changes = await changeEvents(ws);
    expect(changes.map((c) => c.change)).toEqual(["trial_started", "trial_converted"]);
    expect(changes[1]).toMatchObject({ first_period_paid_by: "card", monthly_price_minor: 2000 });

    await advance("2027-01-02T00:00:00.000Z");
    await closeDueMonths();
    const [inv] = await invoices(ws);
    expect(inv).toMatchObject({ status: "open", amount_due_minor: 2000, amount_remaining_minor: 2000 });
    await collectDue();
    const charges = chargesOf(inv!.id);
    expect(charges.map((q) => [q.idempotencyKey, q.form.amount, q.form.payment_method, q.form.off_session])).toEqual([
      [`${inv!.number}/1`, "2000", pm!.gateway_reference, "true"],
    ]);
    expect((await invoices(ws))[0]).toMatchObject({ status: "paid", amount_remaining_minor: 0 });
    // Paid: later ticks charge nothing more.
    await collectDue();
    expect(chargesOf(inv!.id)).toHaveLength(1);
  });

  it("a declining card converts too, then walks the dunning schedule to restriction, lifted when the card pays", async () => {
    const { ws, pm, advance } = await trialWith("decline");
    await advance("2026-12-20T00:00:00.000Z");
    await renewDueSubscriptions();
    expect(await sub(ws)).toMatchObject({ status: "active", plan: "team" });
    await advance("2027-01-02T00:00:00.000Z");
    await closeDueMonths();
    const [inv] = await invoices(ws);
    await collectDue();
    expect(await db().invoiceDunning.findUniqueOrThrow({ where: { invoiceId: inv!.id } })).toMatchObject({
      status: "active",
      step: 0,
      nextAttemptAt: new Date("2027-01-03T00:00:00.000Z"),
    });
    const standing = async () =>
      (await api("GET", `/v1/workspaces/${ws}/billing-standing`, { token: owner.token })).json;
    expect(await standing()).toMatchObject({ standing: "past_due" });
    for (const day of [1, 3, 5, 7]) {
      await advance(new Date(Date.parse("2027-01-02T00:00:00.000Z") + day * DAY + 60_000));
      await collectDue();
    }
    expect(await db().invoiceDunning.findUniqueOrThrow({ where: { invoiceId: inv!.id } })).toMatchObject({
      status: "exhausted",
      policy: "restrict",
    });
    expect(await standing()).toMatchObject({ standing: "restricted" });
    expect(chargesOf(inv!.id).map((q) => q.idempotencyKey)).toEqual([1, 2, 3, 4, 5].map((k) => `${inv!.number}/${k}`));
    const failed = await db().outboxEvent.count({ where: { workspaceId: ws, type: "invoice.payment_failed" } });
    expect(failed).toBe(5);

    // The owner fixes the card and pays: the invoice is paid, the restriction lifted.
    stripe.setCard(pm!.gateway_reference, "ok");
    const paid = await api("POST", `/v1/workspaces/${ws}/invoices/${inv!.id}:charge`, { token: owner.token, body: {} });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.json).toMatchObject({ status: "succeeded" });
    expect(await standing()).toMatchObject({ standing: "good" });
  });

  it("no card and no wallet, or a card removed before the end: the trial lapses to the free plan, nothing charged", async () => {
    for (const removed of [false, true]) {
      const { ws, pm, advance } = await trialWith(removed ? "ok" : null);
      if (pm)
        expect(
          (await api("DELETE", `/v1/workspaces/${ws}/payment-methods/${pm.id}`, { token: owner.token })).status,
        ).toBe(204);
      await advance("2026-12-20T00:00:00.000Z");
      await renewDueSubscriptions();
      expect(await sub(ws)).toMatchObject({ tier: null, plan: "free" });
      const changes = await changeEvents(ws);
      expect(changes.map((c) => c.change)).toEqual(["trial_started", "trial_lapsed"]);
      expect(changes[1]!.reason).toContain("there is no saved card");
      await advance("2027-01-02T00:00:00.000Z");
      await closeDueMonths();
      expect(await invoices(ws)).toEqual([]);
      expect([...stripe.intents.values()].filter((i) => i.metadata.workspace_id === ws)).toEqual([]);
    }
  });
});
