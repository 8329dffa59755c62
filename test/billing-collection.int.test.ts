import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { checkWorkspace } from "@/server/domain/billing/collection/auto-top-up.service";
import { collectDue } from "@/server/domain/billing/collection/collection-worker";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { billedWorkspace, deliver, saveCard, WEBHOOK_SECRET } from "./support/billing-collection";
import { startSmtpSink, type TSmtpSink } from "./support/smtp-sink";
import { startStripeServer, type TStripeServer } from "./support/stripe-server";

/**
 * Collection (issue #36 items 3, 6; docs/decisions.md "Billing: collection and
 * dunning") against a loopback Stripe-compatible server over real HTTP: a card
 * saved through a setup-mode Checkout Session (by reference only), an open
 * invoice charged off-session (success, decline, 3-D Secure required and then
 * completed through a signed callback), paid by a checkout link, two
 * collections racing, automatic top-up claimed once, and the payment events
 * with every money field an integer beside its currency.
 */
let stripe: TStripeServer;
let smtp: TSmtpSink;
let owner: TTestUser;
let outsider: TTestUser;
let platformToken: string;

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
  outsider = await makeUser();
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

const charge = (ws: string, ivc: string, body: Record<string, unknown> = {}, token = owner.token) =>
  api("POST", `/v1/workspaces/${ws}/invoices/${ivc}:charge`, { token, body });
const invoice = async (ws: string, ivc: string) =>
  (await api("GET", `/v1/workspaces/${ws}/invoices/${ivc}`, { token: owner.token })).json;
const intentsOf = (ws: string) => [...stripe.intents.values()].filter((p) => p.metadata.workspace_id === ws);
const eventsOf = async (ws: string, types: string[]) =>
  db().outboxEvent.findMany({ where: { workspaceId: ws, type: { in: types } }, orderBy: { seq: "asc" } });

/** Every `*_minor` / `*_micros` field of an event is an integer and the event names its currency. */
function moneyIsExact(data: Record<string, unknown>): void {
  const money = Object.entries(data).filter(([k]) => k.endsWith("_minor") || k.endsWith("_micros"));
  expect(money.length).toBeGreaterThan(0);
  for (const [k, v] of money) expect(Number.isSafeInteger(v), `${k}=${String(v)}`).toBe(true);
  expect(data.currency).toMatch(/^[A-Z]{3}$/);
}

describe("saved payment methods", () => {
  it("a card is saved by reference through a setup session, listed, and removed (detached at Stripe)", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const pm = await saveCard(stripe, owner, ws);
    expect(pm).toMatchObject({
      id: expect.stringMatching(/^pmt_/),
      gateway_reference: expect.stringMatching(/^pm_/),
      last4: "4242",
      brand: "visa",
      default: true,
      exp_month: 12,
      exp_year: 2030,
    });
    const row = await db().paymentMethod.findUniqueOrThrow({ where: { id: pm.id } });
    expect(Object.keys(row).sort()).toEqual([
      "brand",
      "createdAt",
      "createdBy",
      "expMonth",
      "expYear",
      "gateway",
      "gatewayReference",
      "id",
      "last4",
      "removedAt",
      "status",
      "workspaceId",
    ]);
    // One Stripe customer per workspace, created once.
    const second = await saveCard(stripe, owner, ws, "decline");
    expect(second.default).toBe(false);
    expect(
      new Set([...stripe.sessions.values()].filter((s) => s.metadata.workspace_id === ws).map((s) => s.customer)).size,
    ).toBe(1);
    // Viewers and other workspaces see none of it.
    expect((await api("GET", `/v1/workspaces/${ws}/payment-methods`, { token: outsider.token })).status).toBe(403);
    const other = (await makeWorkspace(outsider.token)).id;
    expect(
      (await api("DELETE", `/v1/workspaces/${other}/payment-methods/${pm.id}`, { token: outsider.token })).status,
    ).toBe(404);
    // Removing the default detaches it at Stripe and makes the other the default.
    expect((await api("DELETE", `/v1/workspaces/${ws}/payment-methods/${pm.id}`, { token: owner.token })).status).toBe(
      204,
    );
    expect(stripe.detached.has(pm.gateway_reference)).toBe(true);
    const left = (await api("GET", `/v1/workspaces/${ws}/payment-methods`, { token: owner.token })).json.items;
    expect(left.map((m: { id: string; default: boolean }) => [m.id, m.default])).toEqual([[second.id, true]]);
    expect((await api("DELETE", `/v1/workspaces/${ws}/payment-methods/${pm.id}`, { token: owner.token })).status).toBe(
      404,
    );
    const audits = await db().auditRecord.findMany({
      where: { workspaceId: ws, action: "billing.profile_changed", targetKind: "payment_method" },
    });
    expect(audits.map((a) => (a.details as { payment_method: string }).payment_method).sort()).toEqual([
      "added",
      "added",
      "removed",
    ]);
  });
});

describe("an open invoice charged off-session", () => {
  it("success: the invoice is paid, the PaymentIntent's idempotency key is the invoice number and attempt, payment.succeeded is emitted", async () => {
    const b = await billedWorkspace(owner, platformToken, {
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
    });
    expect((await charge(b.ws, b.invoice.id)).json).toMatchObject({ reason: "no_payment_method" });
    const pm = await saveCard(stripe, owner, b.ws);
    expect((await charge(b.ws, b.invoice.id, {}, outsider.token)).status).toBe(403);
    const r = await charge(b.ws, b.invoice.id);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      method: "card",
      status: "succeeded",
      amount_minor: 1500,
      currency: "EUR",
      attempt: 1,
      payment_method_id: pm.id,
      applied_to: "invoice",
      gateway_reference: expect.stringMatching(/^pi_/),
    });
    const sent = stripe.requests.filter(
      (q) => q.path === "/v1/payment_intents" && q.form["metadata[workspace_id]"] === b.ws,
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      idempotencyKey: `${b.invoice.number}/1`,
      form: {
        amount: "1500",
        currency: "eur",
        off_session: "true",
        confirm: "true",
        payment_method: pm.gateway_reference,
      },
    });
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({
      status: "paid",
      amount_paid_minor: 1500,
      amount_remaining_minor: 0,
    });
    expect((await charge(b.ws, b.invoice.id)).json).toMatchObject({ reason: "invoice_not_payable" });
    const [ev] = await eventsOf(b.ws, ["payment.succeeded"]);
    expect(ev!.data).toMatchObject({
      payment_id: r.json.id,
      kind: "invoice",
      invoice_id: b.invoice.id,
      amount_minor: 1500,
      currency: "EUR",
      method: "card",
    });
    moneyIsExact(ev!.data as Record<string, unknown>);
    const paid = (await eventsOf(b.ws, ["invoice.paid"]))[0]!.data as Record<string, unknown>;
    expect(paid).toMatchObject({ method: "card", collection_id: r.json.id, amount_paid_minor: 1500 });
  });

  it("decline: the collection failed with Stripe's reason, the invoice stays open, invoice.payment_failed is emitted; the owner's own attempt starts no dunning", async () => {
    const b = await billedWorkspace(owner, platformToken, {
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
    });
    await saveCard(stripe, owner, b.ws, "decline");
    const r = await charge(b.ws, b.invoice.id);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      status: "failed",
      failure_code: "insufficient_funds",
      failure_message: "Your card has insufficient funds.",
      applied_to: null,
    });
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({ status: "open", amount_remaining_minor: 1500 });
    const [failed] = await eventsOf(b.ws, ["invoice.payment_failed"]);
    expect(failed!.data).toMatchObject({
      invoice_id: b.invoice.id,
      failure_code: "insufficient_funds",
      attempt: 1,
      trigger: "owner",
      amount_remaining_minor: 1500,
      currency: "EUR",
    });
    moneyIsExact(failed!.data as Record<string, unknown>);
    expect(await db().invoiceDunning.count({ where: { invoiceId: b.invoice.id } })).toBe(0);
    expect(
      await db().auditRecord.count({
        where: { workspaceId: b.ws, action: "billing.payment_failed", targetId: b.invoice.id },
      }),
    ).toBe(1);
    // The second attempt is a new charge (a new key), not Stripe's replay of the first answer.
    await charge(b.ws, b.invoice.id);
    expect(
      stripe.requests
        .filter((q) => q.path === "/v1/payment_intents" && q.form["metadata[invoice_id]"] === b.invoice.id)
        .map((q) => q.idempotencyKey),
    ).toEqual([`${b.invoice.number}/1`, `${b.invoice.number}/2`]);
  });

  it("3-D Secure required: requires_action with the owner's link, the invoice stays open; Stripe's signed callback settles it once", async () => {
    const b = await billedWorkspace(owner, platformToken, {
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
    });
    await saveCard(stripe, owner, b.ws, "authenticate");
    const r = await charge(b.ws, b.invoice.id);
    expect(r.json).toMatchObject({
      status: "requires_action",
      failure_code: "authentication_required",
      url: expect.stringContaining("https://hooks.stripe.test/3d_secure_2/"),
    });
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({ status: "open", amount_remaining_minor: 1500 });
    const list = await api("GET", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}/collections`, {
      token: owner.token,
    });
    expect(list.json.data.map((c: { status: string }) => c.status)).toEqual(["requires_action"]);
    // A callback older than 300 s is refused and changes nothing.
    const ev = stripe.authenticate(r.json.gateway_reference, true);
    const stale = await deliver(ev, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.status).toBe(401);
    expect(stale.json.reason).toBe("signature_stale");
    expect((await invoice(b.ws, b.invoice.id)).status).toBe("open");
    // The owner passed 3-D Secure: delivered five times at once, paid once.
    const deliveries = await Promise.all(Array.from({ length: 5 }, () => deliver(ev)));
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
    expect(deliveries.filter((d) => !d.json.duplicate)).toHaveLength(1);
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({ status: "paid", amount_paid_minor: 1500 });
    expect(await eventsOf(b.ws, ["payment.succeeded"])).toHaveLength(1);
    expect(
      (await api("GET", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}/collections`, { token: owner.token })).json
        .data[0],
    ).toMatchObject({ status: "succeeded", url: null });
  });

  it("two collections of one invoice never both succeed (card charges and the wallet racing)", async () => {
    const b = await billedWorkspace(owner, platformToken, {
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
    });
    await saveCard(stripe, owner, b.ws);
    expect(
      (
        await api("POST", `/v1/platform/wallets/${b.ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 5000, currency: "EUR", reason: "bank transfer" },
        })
      ).status,
    ).toBe(201);
    const racing = await Promise.all([
      charge(b.ws, b.invoice.id),
      charge(b.ws, b.invoice.id),
      charge(b.ws, b.invoice.id),
      api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:pay`, {
        token: owner.token,
        body: { method: "wallet" },
      }),
      api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:pay`, {
        token: owner.token,
        body: { method: "wallet" },
      }),
    ]);
    const won = racing.filter((r) => r.status === 200 && (r.json.status === "succeeded" || r.json.status === "paid"));
    expect(won).toHaveLength(1);
    for (const r of racing.filter((x) => !won.includes(x))) {
      expect(r.status).toBe(409);
      expect(["collection_in_progress", "invoice_not_payable"]).toContain(r.json.reason);
    }
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({ status: "paid", amount_paid_minor: 1500 });
    const charged = intentsOf(b.ws)
      .filter((p) => p.status === "succeeded")
      .reduce((s, p) => s + p.amount, 0);
    const fromWallet = await db().walletEntry.count({ where: { workspaceId: b.ws, kind: "invoice_payment" } });
    expect(charged / 1500 + fromWallet).toBe(1);
  });
});

describe("a hosted checkout link for one invoice", () => {
  it("opens once, is paid through Stripe's signed callback, and a paid invoice has no link", async () => {
    const b = await billedWorkspace(owner, platformToken, {
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
    });
    const [a, c] = await Promise.all([
      api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:checkout`, { token: owner.token }),
      api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:checkout`, { token: owner.token }),
    ]);
    expect(a.status, a.text).toBe(200);
    expect(a.json).toMatchObject({
      method: "checkout",
      status: "open",
      amount_minor: 1500,
      currency: "EUR",
      url: expect.stringContaining("https://checkout.stripe.test/"),
    });
    expect(c.json.id).toBe(a.json.id);
    const session = stripe.sessions.get(a.json.gateway_reference)!;
    expect(session).toMatchObject({
      mode: "payment",
      amount_total: 1500,
      currency: "eur",
      client_reference_id: a.json.id,
    });
    const cb = await deliver(stripe.complete(session.id));
    expect(cb.status, cb.text).toBe(200);
    expect(cb.json).toMatchObject({ order_id: a.json.id, order_status: "succeeded", duplicate: false });
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({ status: "paid", amount_paid_minor: 1500 });
    expect((await eventsOf(b.ws, ["invoice.paid"]))[0]!.data).toMatchObject({
      method: "checkout",
      collection_id: a.json.id,
    });
    expect(
      (await api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:checkout`, { token: owner.token })).json
        .reason,
    ).toBe("invoice_not_payable");
  });

  it("money that arrives for an invoice already paid is credited to the wallet, never lost or applied twice", async () => {
    const b = await billedWorkspace(owner, platformToken, {
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
    });
    const link = (await api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:checkout`, { token: owner.token }))
      .json;
    expect(
      (
        await api("POST", `/v1/platform/wallets/${b.ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 1500, currency: "EUR", reason: "bank transfer" },
        })
      ).status,
    ).toBe(201);
    // The payer had the page open while the wallet paid the invoice; Stripe still completes it.
    const done = stripe.complete(link.gateway_reference);
    expect(
      (
        await api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:pay`, {
          token: owner.token,
          body: { method: "wallet" },
        })
      ).status,
    ).toBe(200);
    expect((await deliver(done)).status).toBe(200);
    const col = (
      await api("GET", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}/collections`, { token: owner.token })
    ).json.data[0];
    expect(col).toMatchObject({ status: "succeeded", applied_to: "wallet" });
    expect((await api("GET", `/v1/workspaces/${b.ws}/wallet`, { token: owner.token })).json.balances[0]).toMatchObject({
      currency: "EUR",
      paid_micros: 15_000_000,
    });
    expect(await invoice(b.ws, b.invoice.id)).toMatchObject({ status: "paid", amount_paid_minor: 1500 });
  });
});

describe("automatic top-up", () => {
  it("below the threshold: wallet.low_balance once and one off-session charge however many workers check at once", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const body = { enabled: true, currency: "EUR", threshold_minor: 1000, amount_minor: 5000 };
    expect((await api("PUT", `/v1/workspaces/${ws}/auto-top-up`, { token: owner.token, body })).json.reason).toBe(
      "no_payment_method",
    );
    await saveCard(stripe, owner, ws);
    expect((await api("PUT", `/v1/workspaces/${ws}/auto-top-up`, { token: outsider.token, body })).status).toBe(403);
    const put = await api("PUT", `/v1/workspaces/${ws}/auto-top-up`, { token: owner.token, body });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({
      enabled: true,
      currency: "EUR",
      threshold_minor: 1000,
      amount_minor: 5000,
      low_balance_since: null,
    });
    const results = await Promise.all([checkWorkspace(ws), checkWorkspace(ws), checkWorkspace(ws), collectDue()]);
    expect(results.filter((r) => r === "charged")).toHaveLength(1);
    expect(intentsOf(ws)).toHaveLength(1);
    expect((await api("GET", `/v1/workspaces/${ws}/wallet`, { token: owner.token })).json.balances[0]).toMatchObject({
      currency: "EUR",
      paid_micros: 50_000_000,
    });
    const orders = await db().paymentOrder.findMany({ where: { workspaceId: ws } });
    expect(orders.map((o) => [o.kind, o.status, Number(o.amountMinor)])).toEqual([["auto_top_up", "succeeded", 5000]]);
    // Back above the threshold: nothing more; the low-balance mark is cleared.
    expect(await checkWorkspace(ws)).toBe("ok");
    expect(intentsOf(ws)).toHaveLength(1);
    expect(
      (await api("GET", `/v1/workspaces/${ws}/auto-top-up`, { token: owner.token })).json.low_balance_since,
    ).toBeNull();
    const low = await eventsOf(ws, ["wallet.low_balance"]);
    expect(low).toHaveLength(1);
    expect(low[0]!.data).toMatchObject({
      currency: "EUR",
      available_micros: 0,
      threshold_minor: 1000,
      auto_top_up: true,
    });
    moneyIsExact(low[0]!.data as Record<string, unknown>);
    const paidEv = await eventsOf(ws, ["payment.succeeded"]);
    expect(paidEv.map((e) => (e.data as { kind: string }).kind)).toEqual(["auto_top_up"]);
    moneyIsExact(paidEv[0]!.data as Record<string, unknown>);
    expect(await db().auditRecord.count({ where: { workspaceId: ws, action: "billing.payment_succeeded" } })).toBe(1);
  });

  it("a declined top-up is recorded failed and not retried within the hour", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    await saveCard(stripe, owner, ws, "decline");
    expect(
      (
        await api("PUT", `/v1/workspaces/${ws}/auto-top-up`, {
          token: owner.token,
          body: { enabled: true, currency: "EUR", threshold_minor: 100, amount_minor: 2000 },
        })
      ).status,
    ).toBe(200);
    expect(await checkWorkspace(ws)).toBe("failed");
    expect(await checkWorkspace(ws)).toBe("low");
    expect(intentsOf(ws)).toHaveLength(1);
    const o = await db().paymentOrder.findFirstOrThrow({ where: { workspaceId: ws } });
    expect(o).toMatchObject({
      kind: "auto_top_up",
      status: "failed",
      failureMessage: "Your card has insufficient funds.",
    });
    expect(await db().auditRecord.count({ where: { workspaceId: ws, action: "billing.payment_failed" } })).toBe(1);
  });
});

describe("payment.refunded", () => {
  it("a refund of a top-up is an event with the amounts in minor units beside the currency", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    await saveCard(stripe, owner, ws);
    await api("PUT", `/v1/workspaces/${ws}/auto-top-up`, {
      token: owner.token,
      body: { enabled: true, currency: "EUR", threshold_minor: 100, amount_minor: 3000 },
    });
    expect(await checkWorkspace(ws)).toBe("charged");
    const order = await db().paymentOrder.findFirstOrThrow({ where: { workspaceId: ws } });
    const r = await api("POST", `/v1/platform/wallets/${ws}/refunds`, {
      token: platformToken,
      body: { payment_id: order.id, amount_minor: 1200, reason: "goodwill" },
    });
    expect(r.status, r.text).toBe(201);
    const [ev] = await eventsOf(ws, ["payment.refunded"]);
    expect(ev!.data).toMatchObject({
      refund_id: r.json.id,
      payment_id: order.id,
      amount_minor: 1200,
      refunded_minor: 1200,
      payment_amount_minor: 3000,
      currency: "EUR",
    });
    moneyIsExact(ev!.data as Record<string, unknown>);
  });
});
