import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, type TTestUser } from "./support/api";
import { billedWorkspace, deliver, saveCard, WEBHOOK_SECRET, type TBilled } from "./support/billing-collection";
import { startStripeServer, type TStripeServer } from "./support/stripe-server";

/**
 * A credit note on a card-paid invoice refunds to the card (docs/decisions.md
 * "Credit notes, subscriptions that end, metered pricing"), against a loopback
 * Stripe-compatible server: a Refund of the PaymentIntent that paid (an
 * off-session charge or a checkout link) with idempotency key
 * `credit-note-<id>`, never more than was paid (409 `refund_exceeds_payment`
 * with its currency), `payment.refunded` beside `credit_note.issued`; a wallet
 * payment is still refunded to the wallet; Stripe unreachable or refusing
 * leaves nothing written (no note, no number used, invoice and events as before).
 */
let stripe: TStripeServer;
let owner: TTestUser;
let platformToken: string;

beforeAll(async () => {
  stripe = await startStripeServer();
  Object.assign(process.env, {
    CAPSTAN_STRIPE_SECRET_KEY: stripe.secretKey,
    CAPSTAN_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CAPSTAN_STRIPE_API_BASE: stripe.base,
    CAPSTAN_TEST_CLOCKS: "1",
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
  ])
    delete process.env[k];
  resetEnvCache();
  await stripe?.close();
});

const credit = (ws: string, ivc: string, amount: number, reason = "correction") =>
  api("POST", `/v1/platform/wallets/${ws}/invoices/${ivc}/credit-notes`, {
    token: platformToken,
    body: { amount_minor: amount, reason },
  });
const invoice = async (ws: string, ivc: string) =>
  (await api("GET", `/v1/workspaces/${ws}/invoices/${ivc}`, { token: owner.token })).json;
const paidMicros = async (ws: string) =>
  ((await api("GET", `/v1/workspaces/${ws}/wallet`, { token: owner.token })).json.balances[0]?.paid_micros ??
    0) as number;
const refundRequests = (pi: string) =>
  stripe.requests.filter((q) => q.path === "/v1/refunds" && q.form.payment_intent === pi);
const eventsOf = async (ws: string, type: string) =>
  (await db().outboxEvent.findMany({ where: { workspaceId: ws, type }, orderBy: { seq: "asc" } })).map(
    (e) => e.data as Record<string, unknown>,
  );
const billed = () =>
  billedWorkspace(owner, platformToken, { frozen: "2026-12-05T09:00:00.000Z", to: "2027-01-02T00:00:00.000Z" });

/** An open 1500 EUR invoice paid off-session by a saved card; answers the PaymentIntent. */
async function paidByCard(): Promise<TBilled & { pi: string; collection: string }> {
  const b = await billed();
  await saveCard(stripe, owner, b.ws);
  const c = await api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:charge`, {
    token: owner.token,
    body: {},
  });
  expect(c.status, c.text).toBe(200);
  expect(c.json).toMatchObject({ status: "succeeded", gateway_reference: expect.stringMatching(/^pi_/) });
  expect(await invoice(b.ws, b.invoice.id)).toMatchObject({ status: "paid", amount_paid_minor: 1500 });
  return { ...b, pi: c.json.gateway_reference, collection: c.json.id };
}

/** Every `*_minor` field of an event is a safe integer, and the event names its currency. */
function moneyIsExact(data: Record<string, unknown>): void {
  const money = Object.entries(data).filter(([k]) => k.endsWith("_minor"));
  expect(money.length).toBeGreaterThan(0);
  for (const [k, v] of money) expect(Number.isSafeInteger(v), `${k}=${String(v)}`).toBe(true);
  expect(data.currency).toBe("EUR");
}

describe("a credit note on a card-paid invoice", () => {
  it("refunds the card through Stripe (the PaymentIntent, key from the note), never the wallet, up to what was paid", async () => {
    const b = await paidByCard();
    const first = await credit(b.ws, b.invoice.id, 500, "two seats too many");
    expect(first.status, first.text).toBe(201);
    expect(first.json).toMatchObject({ amount_minor: 500, reduced_minor: 0, refunded_minor: 500, refund_to: "card" });
    expect(refundRequests(b.pi).map((q) => [q.idempotencyKey, q.form.amount])).toEqual([
      [`credit-note-${first.json.id}`, "500"],
    ]);
    expect(stripe.refundedOf(b.pi)).toBe(500);
    // The money went back to the card: the wallet has nothing new, the ledger no credit_note entry.
    expect(await paidMicros(b.ws)).toBe(0);
    expect(await db().walletEntry.count({ where: { workspaceId: b.ws, kind: "credit_note" } })).toBe(0);
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({
      status: "paid",
      amount_paid_minor: 1000,
      credited_minor: 500,
      amount_remaining_minor: 0,
    });
    const issued = await eventsOf(b.ws, "credit_note.issued");
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({
      refund_to: "card",
      refunded_minor: 500,
      gateway: "stripe",
      payment_intent: b.pi,
      gateway_reference: expect.stringMatching(/^re_/),
    });
    const refunded = await eventsOf(b.ws, "payment.refunded");
    expect(refunded).toEqual([
      expect.objectContaining({
        credit_note_id: first.json.id,
        invoice_id: b.invoice.id,
        payment_id: b.collection,
        amount_minor: 500,
        refunded_minor: 500,
        payment_amount_minor: 1500,
        currency: "EUR",
        gateway: "stripe",
        payment_intent: b.pi,
        gateway_reference: issued[0]!.gateway_reference,
      }),
    ]);
    moneyIsExact(refunded[0]!);
    const audit = await db().auditRecord.findFirstOrThrow({
      where: { workspaceId: b.ws, action: "billing.adjusted", targetId: b.invoice.id },
    });
    expect(audit.details).toMatchObject({ event: "credit_note", refund_to: "card", payment_intent: b.pi });

    // The rest, then nothing more: the card got back exactly what it paid.
    const second = await credit(b.ws, b.invoice.id, 1000);
    expect(second.json).toMatchObject({ refunded_minor: 1000, refund_to: "card" });
    expect(stripe.refundedOf(b.pi)).toBe(1500);
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({ amount_paid_minor: 0, credited_minor: 1500 });
    const third = await credit(b.ws, b.invoice.id, 1);
    expect(third.status).toBe(409);
    expect(third.json).toMatchObject({ reason: "credit_exceeds_creditable", creditable_minor: 0, currency: "EUR" });
    expect(refundRequests(b.pi)).toHaveLength(2);
    expect((await eventsOf(b.ws, "payment.refunded")).map((e) => e.refunded_minor)).toEqual([500, 1500]);
  });

  it("a checkout-paid invoice is refunded against the session's PaymentIntent", async () => {
    const b = await billed();
    const link = await api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:checkout`, { token: owner.token });
    expect(link.status, link.text).toBe(200);
    const cb = await deliver(stripe.complete(link.json.gateway_reference));
    expect(cb.status, cb.text).toBe(200);
    const pi = stripe.sessions.get(link.json.gateway_reference)!.payment_intent!;
    const n = await credit(b.ws, b.invoice.id, 1500);
    expect(n.status, n.text).toBe(201);
    expect(n.json).toMatchObject({ refunded_minor: 1500, refund_to: "card" });
    expect(refundRequests(pi).map((q) => q.idempotencyKey)).toEqual([`credit-note-${n.json.id}`]);
    expect(stripe.refundedOf(pi)).toBe(1500);
    expect(await paidMicros(b.ws)).toBe(0);
  });

  it("a wallet-paid invoice is still refunded to the wallet, and Stripe is not asked", async () => {
    const b = await billed();
    expect(
      (
        await api("POST", `/v1/platform/wallets/${b.ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 1500, currency: "EUR", reason: "transfer" },
        })
      ).status,
    ).toBe(201);
    const before = stripe.requests.filter((q) => q.path === "/v1/refunds").length;
    expect(
      (
        await api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:pay`, {
          token: owner.token,
          body: { method: "wallet" },
        })
      ).json.status,
    ).toBe("paid");
    const n = await credit(b.ws, b.invoice.id, 300);
    expect(n.json).toMatchObject({ refunded_minor: 300, refund_to: "wallet" });
    expect(await paidMicros(b.ws)).toBe(3_000_000);
    expect(stripe.requests.filter((q) => q.path === "/v1/refunds").length).toBe(before);
    expect(await eventsOf(b.ws, "payment.refunded")).toEqual([]);
  });

  it("Stripe unreachable (503) or refusing (422): nothing is written, and the retry uses the next number", async () => {
    const b = await paidByCard();
    const first = await credit(b.ws, b.invoice.id, 100);
    expect(first.status, first.text).toBe(201);
    const snapshot = async () => ({
      invoice: await invoice(b.ws, b.invoice.id),
      notes: await db().creditNote.count({ where: { invoiceId: b.invoice.id } }),
      events: await db().outboxEvent.count({ where: { workspaceId: b.ws } }),
      audits: await db().auditRecord.count({ where: { workspaceId: b.ws } }),
      entries: await db().walletEntry.count({ where: { workspaceId: b.ws } }),
    });
    const before = await snapshot();

    stripe.failNext(3); // every attempt of the SDK (two retries) answers 500
    const down = await credit(b.ws, b.invoice.id, 200);
    stripe.failNext(0);
    expect(down.status, down.text).toBe(503);
    expect(down.json).toMatchObject({ reason: "gateway_unavailable" });
    expect(await snapshot()).toEqual(before);
    expect(stripe.refundedOf(b.pi)).toBe(100);

    // Refunded at Stripe out of band (the dashboard): Stripe refuses more than is left there; nothing written.
    const outOfBand = await fetch(`${stripe.base}/v1/refunds`, {
      method: "POST",
      headers: { authorization: `Bearer ${stripe.secretKey}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ payment_intent: b.pi, amount: "1300" }).toString(),
    });
    expect(outOfBand.status).toBe(200);
    const refused = await credit(b.ws, b.invoice.id, 200);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json).toMatchObject({ reason: "gateway_refused" });
    expect(await snapshot()).toEqual(before);

    const retry = await credit(b.ws, b.invoice.id, 100);
    expect(retry.status, retry.text).toBe(201);
    const seq = (n: string) => Number(n.split("-").pop());
    expect(seq(retry.json.number)).toBe(seq(first.json.number) + 1);
    expect(stripe.refundedOf(b.pi)).toBe(1500);
  });

  it("never refunds more to the card than the card payment left (409 refund_exceeds_payment with its currency)", async () => {
    const b = await paidByCard();
    // A collection record of a smaller charge than the invoice's paid amount (records that disagree): the guard
    // compares the refund with the card payment itself, so Stripe is never asked for more than it took.
    await db().invoiceCollection.update({ where: { id: b.collection }, data: { amountMinor: BigInt(400) } });
    const n = await credit(b.ws, b.invoice.id, 401);
    expect(n.status, n.text).toBe(409);
    expect(n.json).toMatchObject({ reason: "refund_exceeds_payment", refundable_minor: 400, currency: "EUR" });
    expect(refundRequests(b.pi)).toEqual([]);
    expect(await db().creditNote.count({ where: { invoiceId: b.invoice.id } })).toBe(0);
    expect((await credit(b.ws, b.invoice.id, 400)).status).toBe(201);
    expect(stripe.refundedOf(b.pi)).toBe(400);
  });
});
