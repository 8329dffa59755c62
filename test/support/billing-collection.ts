import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { expect } from "vitest";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { api, makeWorkspace, type TTestUser } from "./api";
import type { TCardBehaviour, TStripeEvent, TStripeServer } from "./stripe-server";

/**
 * Shared steps of the collection and dunning tests (docs/decisions.md
 * "Billing: collection and dunning"): a workspace on a test clock with an open
 * invoice, a card saved through a setup-mode Checkout Session and Stripe's
 * signed callback, Stripe events signed with the webhook secret.
 */
export const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString("hex")}`;
const signer = new Stripe("sk_test_signer");

export function deliver(ev: TStripeEvent<unknown>, opts: { timestamp?: number } = {}) {
  const payload = JSON.stringify(ev);
  const header = signer.webhooks.generateTestHeaderString({
    payload,
    secret: WEBHOOK_SECRET,
    ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
  });
  return api("POST", "/v1/payments/callbacks/stripe", {
    rawBody: payload,
    headers: { "content-type": "application/json", "stripe-signature": header },
  });
}

export type TBilled = {
  ws: string;
  email: string;
  clock: string;
  invoice: { id: string; number: string; amount_remaining_minor: number; currency: string };
};

/** A workspace (new unless given) on a test clock, subscribed at `frozen`, the month closed at `to`: one open invoice of the tier's fee. */
export async function billedWorkspace(
  owner: TTestUser,
  platformToken: string,
  opts: { frozen: string; to: string; ws?: string; tier?: string; price?: number },
): Promise<TBilled> {
  const tier = opts.tier ?? `c-${randomBytes(4).toString("hex")}`;
  if (!opts.tier) {
    const t = await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
      token: platformToken,
      body: {
        name: "Collect",
        plan: "team",
        currency: "EUR",
        monthly_price_minor: opts.price ?? 1500,
        included_credit_minor: 0,
      },
    });
    expect(t.status, t.text).toBe(200);
  }
  const ws = opts.ws ?? (await makeWorkspace(owner.token)).id;
  const email = `ap-${randomBytes(4).toString("hex")}@billing.example`;
  const p = await api("PUT", `/v1/workspaces/${ws}/billing-profile`, {
    token: owner.token,
    body: {
      legal_name: "Einzug GmbH",
      email,
      address: { line1: "Weg 1", city: "Köln", postal_code: "50667", country: "DE" },
      payment_terms_days: 14,
    },
  });
  expect(p.status, p.text).toBe(200);
  const clock = await api("POST", "/v1/platform/billing/test-clocks", {
    token: platformToken,
    body: { workspace_id: ws, frozen_time: opts.frozen },
  });
  expect(clock.status, clock.text).toBe(201);
  expect((await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).status).toBe(
    200,
  );
  expect(
    (
      await api("POST", `/v1/platform/billing/test-clocks/${clock.json.id}:advance`, {
        token: platformToken,
        body: { frozen_time: opts.to },
      })
    ).status,
  ).toBe(200);
  await closeDueMonths();
  const list = await api("GET", `/v1/workspaces/${ws}/invoices`, { token: owner.token });
  expect(list.json.items).toHaveLength(1);
  expect(list.json.items[0].status).toBe("open");
  return { ws, email, clock: clock.json.id, invoice: list.json.items[0] };
}

/** Saves a card (test behaviour) through a setup-mode Checkout Session and Stripe's signed callback; answers the saved method. */
export async function saveCard(
  stripe: TStripeServer,
  owner: TTestUser,
  ws: string,
  behaviour: TCardBehaviour = "ok",
): Promise<{ id: string; gateway_reference: string; last4: string; default: boolean }> {
  const setup = await api("POST", `/v1/workspaces/${ws}/payment-methods/setups`, {
    token: owner.token,
    body: { currency: "EUR" },
  });
  expect(setup.status, setup.text).toBe(201);
  expect(setup.json).toMatchObject({ status: "open", url: expect.stringContaining("https://checkout.stripe.test/") });
  const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === setup.json.id)!;
  expect(session).toMatchObject({ mode: "setup", customer: expect.stringMatching(/^cus_/) });
  const cb = await deliver(stripe.completeSetup(session.id, behaviour));
  expect(cb.status, cb.text).toBe(200);
  const done = await api("GET", `/v1/workspaces/${ws}/payment-methods/setups/${setup.json.id}`, { token: owner.token });
  expect(done.json).toMatchObject({ status: "complete", url: null, payment_method_id: expect.stringMatching(/^pmt_/) });
  const list = await api("GET", `/v1/workspaces/${ws}/payment-methods`, { token: owner.token });
  return list.json.items.find((m: { id: string }) => m.id === done.json.payment_method_id);
}
