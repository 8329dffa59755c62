import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { deliverDue, dispatchOutbox } from "@/server/domain/webhooks/delivery.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { checkWorkspace } from "@/server/domain/billing/collection/auto-top-up.service";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { billedWorkspace, saveCard, WEBHOOK_SECRET } from "./support/billing-collection";
import { startStripeServer, type TStripeServer } from "./support/stripe-server";

/**
 * Billing events for webhook subscribers (issue #36 item 6, the events built
 * so far; docs/decisions.md "Billing: invoices as receivables"): a month close,
 * a payment from the wallet and a void reach a real HTTP receiver on loopback,
 * each exactly once, each verified with the standardwebhooks library, with
 * the event's version and every money field an integer beside its currency.
 * Collection's events (a declined and a successful card charge, an automatic
 * top-up below the threshold, a refund) go through a loopback Stripe server.
 */
/** Every billing event type that is emitted today (issue #36 item 6). */
const COLLECTION_EVENTS = ["invoice.payment_failed", "payment.succeeded", "payment.refunded", "wallet.low_balance"];
const BILLING_EVENTS = [
  "invoice.issued",
  "invoice.paid",
  "invoice.voided",
  "credit_note.issued",
  "subscription.changed",
];
let owner: TTestUser;
let platformToken: string;
type TGot = { id: string; eventId: string; type: string; data: Record<string, unknown> };
const got: TGot[] = [];
let secret = "";
let server: http.Server;
let url = "";
let stripe: TStripeServer;
const STRIPE_ENV = ["CAPSTAN_STRIPE_SECRET_KEY", "CAPSTAN_STRIPE_WEBHOOK_SECRET", "CAPSTAN_STRIPE_API_BASE"];

beforeAll(async () => {
  process.env.CAPSTAN_TEST_CLOCKS = "1";
  process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
  stripe = await startStripeServer();
  Object.assign(process.env, {
    CAPSTAN_STRIPE_SECRET_KEY: stripe.secretKey,
    CAPSTAN_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CAPSTAN_STRIPE_API_BASE: stripe.base,
  });
  resetEnvCache();
  await bootApp();
  owner = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        // Throws unless the signature, id and timestamp verify with the subscription's secret.
        const event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as {
          id: string;
          type: string;
          data: Record<string, unknown>;
        };
        got.push({ id: String(req.headers["webhook-id"]), eventId: event.id, type: event.type, data: event.data });
        res.writeHead(204).end();
      } catch {
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  delete process.env.CAPSTAN_TEST_CLOCKS;
  delete process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE;
  for (const k of STRIPE_ENV) delete process.env[k];
  resetEnvCache();
  await stripe?.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** Counts the `*_minor` / `*_micros` fields at any depth, each an integer with a currency beside it. */
function moneyChecked(o: Record<string, unknown>, path: string): number {
  let n = 0;
  for (const [k, v] of Object.entries(o)) {
    if ((k.endsWith("_minor") || k.endsWith("_micros")) && v !== null) {
      expect(Number.isSafeInteger(v), `${path}.${k}`).toBe(true);
      expect(o.currency, `${path}.${k} has a currency`).toMatch(/^[A-Z]{3}$/);
      n++;
    }
    if (v && typeof v === "object" && !Array.isArray(v))
      n += moneyChecked(v as Record<string, unknown>, `${path}.${k}`);
  }
  return n;
}

async function pumpUntil(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await dispatchOutbox();
    await deliverDue();
    if (done()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25)); // poll interval
  }
}

describe("billing events", () => {
  it("every billing event (invoices, credit notes, subscription changes) is delivered once, verified with standardwebhooks", async () => {
    const tier = `e-${randomBytes(4).toString("hex")}`;
    expect(
      (
        await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
          token: platformToken,
          body: { name: "Events", plan: "team", currency: "EUR", monthly_price_minor: 700, included_credit_minor: 0 },
        })
      ).status,
    ).toBe(200);
    const ws = (await makeWorkspace(owner.token)).id;
    const sub = await api("POST", `/v1/workspaces/${ws}/event-subscriptions`, {
      token: owner.token,
      body: { url, event_types: BILLING_EVENTS, description: "billing" },
    });
    expect(sub.status, sub.text).toBe(201);
    secret = sub.json.secret;
    const clock = (
      await api("POST", "/v1/platform/billing/test-clocks", {
        token: platformToken,
        body: { workspace_id: ws, frozen_time: "2026-12-03T00:00:00.000Z" },
      })
    ).json;
    expect((await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).status).toBe(
      200,
    );
    expect(
      (
        await api("POST", `/v1/platform/billing/test-clocks/${clock.id}:advance`, {
          token: platformToken,
          body: { frozen_time: "2027-02-05T00:00:00.000Z" },
        })
      ).status,
    ).toBe(200);
    await Promise.all([closeDueMonths(), closeDueMonths()]);
    const [dec, jan] = (await api("GET", `/v1/workspaces/${ws}/invoices?order=asc`, { token: owner.token })).json.items;
    expect(
      (
        await api("POST", `/v1/platform/wallets/${ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 700, currency: "EUR", reason: "transfer" },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api("POST", `/v1/workspaces/${ws}/invoices/${dec.id}:pay`, {
          token: owner.token,
          body: { method: "wallet" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api("POST", `/v1/platform/wallets/${ws}/invoices/${jan.id}:void`, {
          token: platformToken,
          body: { reason: "goodwill" },
        })
      ).status,
    ).toBe(200);

    // A credit note on the paid invoice (refunded to the wallet) and a cancellation at the period's end.
    const cn = await api("POST", `/v1/platform/wallets/${ws}/invoices/${dec.id}/credit-notes`, {
      token: platformToken,
      body: { amount_minor: 200, reason: "late fee waived" },
    });
    expect(cn.status, cn.text).toBe(201);
    expect(
      (await api("DELETE", `/v1/workspaces/${ws}/subscription`, { token: owner.token })).json.cancel_at_period_end,
    ).toBe(true);

    const expected = [
      `invoice.issued ${dec.id}`,
      `invoice.issued ${jan.id}`,
      `invoice.paid ${dec.id}`,
      `invoice.voided ${jan.id}`,
      `credit_note.issued ${cn.json.id}`,
      `subscription.changed ${ws} created`,
      `subscription.changed ${ws} renewed`,
      `subscription.changed ${ws} cancel_scheduled`,
    ];
    await pumpUntil("every billing event", () => got.length >= expected.length);
    // A few more rounds: nothing is delivered twice.
    for (let i = 0; i < 3; i++) await pumpUntil("quiet", () => true);
    expect(new Set(got.map((g) => g.id)).size).toBe(got.length);
    const key = (g: TGot) =>
      g.type === "subscription.changed"
        ? `${g.type} ${g.data.workspace_id as string} ${g.data.change as string}`
        : g.type === "credit_note.issued"
          ? `${g.type} ${g.data.id as string}`
          : `${g.type} ${g.data.invoice_id as string}`;
    expect(got.map(key).sort()).toEqual(expected.sort());
    // Every billing type of this first flow was delivered (collection's four: the next test).
    expect(new Set(got.map((g) => g.type))).toEqual(
      new Set(["invoice.issued", "invoice.paid", "invoice.voided", "credit_note.issued", "subscription.changed"]),
    );
    const rows = await db().outboxEvent.findMany({ where: { id: { in: got.map((g) => g.eventId) } } });
    expect(rows.map((r) => r.version)).toEqual(rows.map(() => "1.0.0"));
    // Every money field, however deep, is an integer with a currency beside it.
    for (const g of got) expect(moneyChecked(g.data, g.type), g.type).toBeGreaterThan(0);
    expect(got.find((g) => g.type === "invoice.paid")!.data).toMatchObject({
      number: dec.number,
      amount_paid_minor: 700,
      amount_remaining_minor: 0,
      method: "wallet",
    });
    expect(got.find((g) => g.type === "invoice.voided")!.data).toMatchObject({ status: "void", reason: "goodwill" });
    expect(got.find((g) => g.type === "credit_note.issued")!.data).toMatchObject({
      number: cn.json.number,
      amount_minor: 200,
      refunded_minor: 200,
      refund_to: "wallet",
      currency: "EUR",
      invoice: { invoice_id: dec.id, amount_paid_minor: 500, credited_minor: 200 },
    });
  });

  it("collection's events (payment failed, payment succeeded, wallet low balance, payment refunded) are delivered once, verified with standardwebhooks", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const sub = await api("POST", `/v1/workspaces/${ws}/event-subscriptions`, {
      token: owner.token,
      body: { url, event_types: COLLECTION_EVENTS, description: "collection" },
    });
    expect(sub.status, sub.text).toBe(201);
    got.length = 0;
    secret = sub.json.secret;
    const b = await billedWorkspace(owner, platformToken, {
      ws,
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
    });
    const good = await saveCard(stripe, owner, ws);
    const declining = await saveCard(stripe, owner, ws, "decline");
    expect(good.default).toBe(true);
    // A declined charge (invoice.payment_failed), then the default card pays (payment.succeeded, kind invoice).
    const failed = await api("POST", `/v1/workspaces/${ws}/invoices/${b.invoice.id}:charge`, {
      token: owner.token,
      body: { payment_method_id: declining.id },
    });
    expect(failed.json, failed.text).toMatchObject({ status: "failed" });
    const paid = await api("POST", `/v1/workspaces/${ws}/invoices/${b.invoice.id}:charge`, {
      token: owner.token,
      body: {},
    });
    expect(paid.json, paid.text).toMatchObject({ status: "succeeded" });
    // The wallet is empty: below the threshold (wallet.low_balance), one automatic top-up (payment.succeeded, kind auto_top_up), then a refund of part of it.
    const atu = await api("PUT", `/v1/workspaces/${ws}/auto-top-up`, {
      token: owner.token,
      body: { enabled: true, currency: "EUR", threshold_minor: 100, amount_minor: 3000 },
    });
    expect(atu.status, atu.text).toBe(200);
    expect(await checkWorkspace(ws)).toBe("charged");
    const order = await db().paymentOrder.findFirstOrThrow({ where: { workspaceId: ws, kind: "auto_top_up" } });
    const refund = await api("POST", `/v1/platform/wallets/${ws}/refunds`, {
      token: platformToken,
      body: { payment_id: order.id, amount_minor: 1200, reason: "goodwill" },
    });
    expect(refund.status, refund.text).toBe(201);

    const expected = [
      "invoice.payment_failed invoice",
      "payment.succeeded auto_top_up",
      "payment.succeeded invoice",
      "payment.refunded -",
      "wallet.low_balance -",
    ];
    await pumpUntil("every collection event", () => got.length >= expected.length);
    for (let i = 0; i < 3; i++) await pumpUntil("quiet", () => true);
    expect(new Set(got.map((g) => g.id)).size).toBe(got.length);
    expect(
      got
        .map(
          (g) =>
            `${g.type} ${g.type === "payment.succeeded" ? (g.data.kind as string) : g.type === "invoice.payment_failed" ? "invoice" : "-"}`,
        )
        .sort(),
    ).toEqual([...expected].sort());
    const rows = await db().outboxEvent.findMany({ where: { id: { in: got.map((g) => g.eventId) } } });
    expect(rows.map((r) => r.version)).toEqual(rows.map(() => "1.0.0"));
    for (const g of got) expect(moneyChecked(g.data, g.type), g.type).toBeGreaterThan(0);
    expect(got.find((g) => g.type === "invoice.payment_failed")!.data).toMatchObject({
      invoice_id: b.invoice.id,
      failure_code: "insufficient_funds",
      trigger: "owner",
      amount_remaining_minor: 1500,
      currency: "EUR",
    });
    expect(got.find((g) => g.type === "payment.succeeded" && g.data.kind === "invoice")!.data).toMatchObject({
      payment_id: paid.json.id,
      invoice_id: b.invoice.id,
      amount_minor: 1500,
      currency: "EUR",
      method: "card",
    });
    expect(got.find((g) => g.type === "wallet.low_balance")!.data).toMatchObject({
      currency: "EUR",
      threshold_minor: 100,
      auto_top_up: true,
    });
    expect(got.find((g) => g.type === "payment.refunded")!.data).toMatchObject({
      refund_id: refund.json.id,
      payment_id: order.id,
      amount_minor: 1200,
      payment_amount_minor: 3000,
      currency: "EUR",
    });
  });
});
