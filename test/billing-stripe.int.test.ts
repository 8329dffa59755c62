import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { startStripeServer, type TStripeEvent, type TStripeServer } from "./support/stripe-server";

/**
 * The Stripe gateway (docs/decisions.md "Billing: prepaid, Stripe, renewal")
 * against a loopback Stripe-compatible server: checkout creates a Checkout
 * Session, Stripe-signed callbacks credit once however often they arrive,
 * unsigned/badly signed/stale ones are refused, refunds go through Stripe and
 * never exceed what was paid.
 */
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString("hex")}`;
const signer = new Stripe("sk_test_signer");
let stripe: TStripeServer;
let owner: TTestUser;
let outsider: TTestUser;
let platformToken: string;

beforeAll(async () => {
  stripe = await startStripeServer();
  process.env.CAPSTAN_STRIPE_SECRET_KEY = stripe.secretKey;
  process.env.CAPSTAN_STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET;
  process.env.CAPSTAN_STRIPE_API_BASE = stripe.base;
  resetEnvCache();
  await bootBridgeApp();
  owner = await makeUser();
  outsider = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

afterAll(async () => {
  delete process.env.CAPSTAN_STRIPE_SECRET_KEY;
  delete process.env.CAPSTAN_STRIPE_WEBHOOK_SECRET;
  delete process.env.CAPSTAN_STRIPE_API_BASE;
  resetEnvCache();
  await stripe?.close();
});

function deliver(
  ev: TStripeEvent | Record<string, unknown>,
  opts: { secret?: string; timestamp?: number; header?: string | null } = {},
) {
  const payload = JSON.stringify(ev);
  const header =
    opts.header === undefined
      ? signer.webhooks.generateTestHeaderString({
          payload,
          secret: opts.secret ?? WEBHOOK_SECRET,
          ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
        })
      : opts.header;
  return api("POST", "/v1/payments/callbacks/stripe", {
    rawBody: payload,
    headers: { "content-type": "application/json", ...(header === null ? {} : { "stripe-signature": header }) },
  });
}

async function checkout(ws: string, amount: number, currency = "EUR", headers: Record<string, string> = {}) {
  const r = await api("POST", `/v1/workspaces/${ws}/wallet/checkout`, {
    token: owner.token,
    body: { amount_minor: amount, currency },
    headers,
  });
  expect(r.status, r.text).toBe(201);
  return r.json as {
    id: string;
    gateway: string;
    payment_url: string;
    gateway_reference: string;
    status: string;
    amount_minor: number;
  };
}

const paidMicros = async (ws: string) =>
  (await db().walletEntry.aggregate({ where: { workspaceId: ws, grantId: null }, _sum: { amountMicros: true } }))._sum
    .amountMicros ?? BigInt(0);

describe("checkout through Stripe", () => {
  it("creates a Checkout Session for the order and says where to pay; idempotent by Idempotency-Key; an outage leaves no order", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const key = `ck-${randomBytes(6).toString("hex")}`;
    const o = await checkout(ws, 2500, "EUR", { "idempotency-key": key });
    expect(o).toMatchObject({ gateway: "stripe", status: "pending", amount_minor: 2500 });
    const session = stripe.sessions.get(o.gateway_reference)!;
    expect(session).toMatchObject({
      amount_total: 2500,
      currency: "eur",
      client_reference_id: o.id,
      metadata: { order_id: o.id, workspace_id: ws },
      mode: "payment",
    });
    expect(o.payment_url).toBe(session.url);
    expect(stripe.requests.find((r) => r.form.client_reference_id === o.id)?.idempotencyKey).toBe(`checkout-${o.id}`);
    const again = await checkout(ws, 2500, "EUR", { "idempotency-key": key });
    expect(again.id).toBe(o.id);
    expect([...stripe.sessions.values()].filter((s) => s.metadata.workspace_id === ws)).toHaveLength(1);

    // Stripe unreachable (every retry of the SDK fails): 503, nothing written.
    stripe.failNext(3);
    const down = await api("POST", `/v1/workspaces/${ws}/wallet/checkout`, {
      token: owner.token,
      body: { amount_minor: 100, currency: "EUR" },
    });
    expect(down.status, down.text).toBe(503);
    expect(down.json.reason).toBe("gateway_unavailable");
    expect(await db().paymentOrder.count({ where: { workspaceId: ws } })).toBe(1);
    // The manual gateway can still be asked for explicitly.
    const manual = await api("POST", `/v1/workspaces/${ws}/wallet/checkout`, {
      token: owner.token,
      body: { amount_minor: 100, currency: "EUR", gateway: "manual" },
    });
    expect(manual.json).toMatchObject({ gateway: "manual", payment_url: null, gateway_reference: null });
  });

  it("viewers and developers cannot start a top-up; outsiders cannot see orders", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    for (const role of ["viewer", "developer"]) {
      const u = await makeUser();
      expect(
        (await api("POST", `/v1/workspaces/${ws}/members`, { token: owner.token, body: { email: u.email, role } }))
          .status,
      ).toBe(201);
      expect(
        (
          await api("POST", `/v1/workspaces/${ws}/wallet/checkout`, {
            token: u.token,
            body: { amount_minor: 100, currency: "EUR" },
          })
        ).status,
      ).toBe(403);
    }
    const o = await checkout(ws, 100);
    expect((await api("GET", `/v1/workspaces/${ws}/wallet/orders/${o.id}`, { token: outsider.token })).status).toBe(
      403,
    );
    const other = (await makeWorkspace(outsider.token)).id;
    expect((await api("GET", `/v1/workspaces/${other}/wallet/orders/${o.id}`, { token: outsider.token })).status).toBe(
      404,
    );
    expect(await db().paymentOrder.count({ where: { workspaceId: ws } })).toBe(1);
  });
});

describe("Stripe callbacks", () => {
  it("a Stripe-signed checkout.session.completed delivered 5 times concurrently credits once", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const o = await checkout(ws, 2500);
    const ev = stripe.complete(o.gateway_reference);
    const results = await Promise.all(Array.from({ length: 5 }, () => deliver(ev)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.filter((r) => !r.json.duplicate)).toHaveLength(1);
    expect(results.every((r) => r.json.order_status === "succeeded" && r.json.order_id === o.id)).toBe(true);
    expect(await paidMicros(ws)).toBe(BigInt(25_000_000));
    expect(await db().walletEntry.count({ where: { workspaceId: ws, kind: "top_up" } })).toBe(1);
    expect(
      await db().auditRecord.count({ where: { workspaceId: ws, action: "billing.payment_succeeded", targetId: o.id } }),
    ).toBe(1);
    const order = (await api("GET", `/v1/workspaces/${ws}/wallet/orders/${o.id}`, { token: owner.token })).json;
    expect(order).toMatchObject({ status: "succeeded", gateway_reference: o.gateway_reference });
    // A later expiry of the same session changes nothing: succeeded is terminal.
    expect((await deliver(stripe.expire(o.gateway_reference))).json.order_status).toBe("succeeded");
  });

  it("refuses a bad signature, a 10-minute-old timestamp and a missing header with 401, changing nothing", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const o = await checkout(ws, 700);
    const ev = stripe.complete(o.gateway_reference);
    const bad = await deliver(ev, { secret: `whsec_${randomBytes(24).toString("hex")}` });
    expect(bad.status).toBe(401);
    expect(bad.json.reason).toBe("signature_invalid");
    const stale = await deliver(ev, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(401);
    expect(stale.json.reason).toBe("signature_stale");
    const missing = await deliver(ev, { header: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/StripeSignature/);
    // A signed body that was altered after signing.
    const payload = JSON.stringify(ev);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const tampered = await api("POST", "/v1/payments/callbacks/stripe", {
      rawBody: payload.replace('"amount_total":700', '"amount_total":70000'),
      headers: { "content-type": "application/json", "stripe-signature": header },
    });
    expect(tampered.status).toBe(401);
    expect(await paidMicros(ws)).toBe(BigInt(0));
    expect(await db().paymentEvent.count({ where: { gateway: "stripe", eventId: ev.id } })).toBe(0);
    expect((await deliver(ev)).json).toMatchObject({ duplicate: false, order_status: "succeeded" });
  });

  it("delayed payments credit on async_payment_succeeded; failures and expiries mark the order; other events are 204", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const slow = await checkout(ws, 300);
    expect((await deliver(stripe.complete(slow.gateway_reference, { delayed: true }))).json.order_status).toBe(
      "pending",
    );
    expect(await paidMicros(ws)).toBe(BigInt(0));
    expect((await deliver(stripe.asyncResult(slow.gateway_reference, true))).json.order_status).toBe("succeeded");
    expect(await paidMicros(ws)).toBe(BigInt(3_000_000));

    const failing = await checkout(ws, 400);
    await deliver(stripe.complete(failing.gateway_reference, { delayed: true }));
    expect((await deliver(stripe.asyncResult(failing.gateway_reference, false))).json.order_status).toBe("failed");
    const expiring = await checkout(ws, 500);
    expect((await deliver(stripe.expire(expiring.gateway_reference))).json.order_status).toBe("expired");
    expect(await db().auditRecord.count({ where: { workspaceId: ws, action: "billing.payment_failed" } })).toBe(2);
    expect(await paidMicros(ws)).toBe(BigInt(3_000_000));

    const other = await deliver({
      id: `evt_${randomBytes(6).toString("hex")}`,
      object: "event",
      type: "customer.created",
      data: { object: { id: "cus_1" } },
    });
    expect(other.status).toBe(204);
    // A session of our own order that this database does not hold: 404, so Stripe retries.
    const ghost = stripe.complete((await checkout(ws, 600)).gateway_reference);
    ghost.data.object.id = "cs_test_unknown";
    expect((await deliver(ghost)).status).toBe(404);
  });
});

describe("refunds through Stripe", () => {
  it("refund a Stripe payment at Stripe; never more than was paid; platform owner/admin only", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const o = await checkout(ws, 2500);
    const ev = stripe.complete(o.gateway_reference);
    await deliver(ev);
    const pi = ev.data.object.payment_intent!;
    const refund = (body: Record<string, unknown>, token = platformToken, headers: Record<string, string> = {}) =>
      api("POST", `/v1/platform/wallets/${ws}/refunds`, { token, body, headers });

    const key = `rf-${randomBytes(6).toString("hex")}`;
    const first = await refund({ payment_id: o.id, amount_minor: 1000, reason: "customer asked" }, platformToken, {
      "idempotency-key": key,
    });
    expect(first.status, first.text).toBe(201);
    expect(first.json.gateway_reference).toMatch(/^re_test_/);
    expect(
      (
        await refund({ payment_id: o.id, amount_minor: 1000, reason: "customer asked" }, platformToken, {
          "idempotency-key": key,
        })
      ).json.id,
    ).toBe(first.json.id);
    expect(stripe.refundedOf(pi)).toBe(1000);
    const refundRequests = () => stripe.requests.filter((r) => r.path === "/v1/refunds").length;
    const before = refundRequests();
    const tooMuch = await refund({ payment_id: o.id, amount_minor: 1501 });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.json.reason).toBe("refund_exceeds_payment");
    expect(refundRequests()).toBe(before);
    expect((await refund({ payment_id: o.id, amount_minor: 10 }, owner.token)).status).toBe(403);
    expect((await refund({ payment_id: o.id, amount_minor: 1500 })).status).toBe(201);
    expect(stripe.refundedOf(pi)).toBe(2500);
    expect(await paidMicros(ws)).toBe(BigInt(0));
    expect(await db().auditRecord.count({ where: { workspaceId: ws, action: "billing.refunded" } })).toBe(2);
    // Refunding a payment of another workspace through this one's wallet: refused, nothing written.
    const other = (await makeWorkspace(outsider.token)).id;
    const cross = await api("POST", `/v1/platform/wallets/${other}/refunds`, {
      token: platformToken,
      body: { payment_id: o.id, amount_minor: 1 },
    });
    expect(cross.status).toBe(422);
    expect(await db().paymentRefund.count({ where: { orderId: o.id } })).toBe(2);
  });
});
