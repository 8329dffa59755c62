import { createHmac, timingSafeEqual } from "node:crypto";
import type Stripe from "stripe";
import type { PaymentOrder } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { parseJsonBody } from "@/server/platform/body";
import { db } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { emitEvent } from "@/server/platform/outbox";
import { AppError, notFound, zodIssuesToErrors } from "@/server/platform/errors";
import { ZManualCallback, type TOrder } from "./billing.contract";
import { fromWire, minorToMicros, toWire, type TCurrency } from "./money";
import { handleCollectionEvent } from "./collection/stripe-events";
import { verifyStripeEvent } from "./stripe-gateway";
import { creditPaid, inWallet } from "./wallet.service";

/**
 * Payment gateway callbacks (docs/decisions.md "Billing"): verified by the
 * gateway's signature over the raw body (never a bearer), each gateway event
 * applied at most once (payment_events), each order credited at most once
 * (the ledger's unique source). Gateways: `manual` (Capstan-Signature) and
 * `stripe` (Stripe-Signature, Checkout Session events).
 */

/** Stripe's default webhook tolerance, applied to every gateway. */
export const CALLBACK_TOLERANCE_S = 300;
export const SIGNATURE_HEADER = "capstan-signature";
export const STRIPE_SIGNATURE_HEADER = "stripe-signature";

const unauthenticated = (detail: string, reason: string) =>
  new AppError("unauthenticated", detail, {
    reason,
    headers: { "www-authenticate": `CapstanSignature realm="payments"` },
  });

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>` (Stripe's scheme). */
export function signCallback(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
}

export function verifySignature(
  secret: string,
  body: string,
  header: string | null,
  nowS = Math.floor(Date.now() / 1000),
): void {
  if (!header) throw unauthenticated("the callback carries no Capstan-Signature header", "signature_missing");
  const parts = new Map<string, string[]>();
  for (const kv of header.split(",")) {
    const i = kv.indexOf("=");
    if (i <= 0) continue;
    const k = kv.slice(0, i).trim();
    parts.set(k, [...(parts.get(k) ?? []), kv.slice(i + 1).trim()]);
  }
  const t = Number(parts.get("t")?.[0]);
  if (!Number.isSafeInteger(t))
    throw unauthenticated("the Capstan-Signature header has no timestamp", "signature_invalid");
  if (Math.abs(nowS - t) > CALLBACK_TOLERANCE_S) {
    throw unauthenticated(
      `the callback's timestamp is more than ${CALLBACK_TOLERANCE_S} s away from now (stale or replayed)`,
      "signature_stale",
    );
  }
  const want = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  const ok = (parts.get("v1") ?? []).some(
    (hex) => /^[0-9a-f]{64}$/.test(hex) && timingSafeEqual(Buffer.from(hex, "hex"), want),
  );
  if (!ok) throw unauthenticated("the callback's signature does not match", "signature_invalid");
}

export type TCallbackResult = { received: true; duplicate: boolean; order_id: string; order_status: TOrder["status"] };
/** A verified event that concerns no order of ours (another product on the Stripe account, an event type we do not handle): 204. */
export type TCallbackOutcome = TCallbackResult | { ignored: true };

type TEffect =
  | { kind: "succeeded"; paymentRef?: string | null }
  | { kind: "failed"; status: "failed" | "expired"; message: string }
  | { kind: "none" };

/** POST /v1/payments/callbacks/{gateway}: verified, at most once per gateway event id. */
export async function handleCallback(
  gateway: string,
  rawBody: string,
  headers: { signature: string | null; stripeSignature?: string | null; contentType: string | null },
  correlationId: string,
): Promise<TCallbackOutcome> {
  if (gateway === "stripe") return handleStripe(rawBody, headers.stripeSignature ?? null, correlationId);
  if (gateway !== "manual") throw notFound(`Payment gateway ${gateway}`);
  const secret = env().CAPSTAN_MANUAL_GATEWAY_SECRET;
  if (!secret) throw notFound("Payment gateway manual (not configured: CAPSTAN_MANUAL_GATEWAY_SECRET is unset)");
  verifySignature(secret, rawBody, headers.signature);
  const r = ZManualCallback.safeParse(parseJsonBody(rawBody, headers.contentType));
  if (!r.success)
    throw new AppError("validation_failed", "the callback body is not a payment event", {
      errors: zodIssuesToErrors(r.error.issues),
    });
  const ev = r.data;
  // Platform-scoped by design: a gateway's callback names an order before any workspace is known; the order names it, and applyEvent runs scoped to it.
  const order = await db().paymentOrder.findUnique({ where: { id: ev.order_id } });
  if (!order || order.gateway !== gateway) throw notFound(`Payment order ${ev.order_id}`);
  matchAmount(order, ev.amount_minor, ev.currency);
  const effect: TEffect =
    ev.type === "payment.succeeded"
      ? { kind: "succeeded" }
      : { kind: "failed", status: "failed", message: ev.message ?? "the gateway reported a failed payment" };
  return applyEvent(
    gateway,
    ev.id,
    ev.type,
    order,
    effect,
    { amount_minor: ev.amount_minor, currency: ev.currency },
    correlationId,
  );
}

function matchAmount(order: PaymentOrder, amountMinor: number, cur: string): void {
  if (order.currency !== cur || order.amountMinor !== fromWire(amountMinor)) {
    throw new AppError(
      "validation_failed",
      `the event's amount ${amountMinor} ${cur} is not the order's ${order.amountMinor} ${order.currency}`,
      {
        reason: "amount_mismatch",
        errors: [{ path: "/amount_minor", message: "does not match the order" }],
      },
    );
  }
}

const STRIPE_TYPES = new Set([
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired",
]);

async function handleStripe(
  rawBody: string,
  signature: string | null,
  correlationId: string,
): Promise<TCallbackOutcome> {
  const event = verifyStripeEvent(rawBody, signature);
  // Saved cards, invoice checkout links, off-session charges (collection/stripe-events.ts).
  const collection = await handleCollectionEvent(event, correlationId);
  if (collection) return collection;
  if (!STRIPE_TYPES.has(event.type)) return { ignored: true };
  const session = event.data.object as Stripe.Checkout.Session;
  const ours = session.client_reference_id ?? session.metadata?.order_id ?? null;
  if (!ours || !/^pay_/.test(ours)) return { ignored: true };
  // Platform-scoped by design (as above): looked up by the gateway's own reference.
  const order = await db().paymentOrder.findUnique({
    where: { gateway_gatewayReference: { gateway: "stripe", gatewayReference: session.id } },
  });
  // An order of ours not (yet) stored: 404 so Stripe retries later.
  if (!order || order.id !== ours) throw notFound(`Payment order ${ours} (Checkout Session ${session.id})`);
  if (session.amount_total !== null) matchAmount(order, session.amount_total, (session.currency ?? "").toUpperCase());
  const paymentRef =
    typeof session.payment_intent === "string" ? session.payment_intent : (session.payment_intent?.id ?? null);
  let effect: TEffect;
  if (event.type === "checkout.session.completed") {
    // Delayed payment methods complete the session unpaid; the money arrives with async_payment_succeeded.
    effect = session.payment_status === "unpaid" ? { kind: "none" } : { kind: "succeeded", paymentRef };
  } else if (event.type === "checkout.session.async_payment_succeeded") {
    effect = { kind: "succeeded", paymentRef };
  } else if (event.type === "checkout.session.async_payment_failed") {
    effect = { kind: "failed", status: "failed", message: "the delayed payment failed at Stripe" };
  } else {
    effect = { kind: "failed", status: "expired", message: "the Stripe Checkout Session expired unpaid" };
  }
  return applyEvent(
    "stripe",
    event.id,
    event.type,
    order,
    effect,
    { amount_minor: session.amount_total, currency: order.currency, session_id: session.id },
    correlationId,
  );
}

/**
 * Applies one gateway event to its order under the wallet lock: the event id
 * is stored first (a replay changes nothing), then the order moves. Out of
 * order: `succeeded` is terminal (a later failure/expiry is recorded and
 * changes nothing); a success after a failure or expiry credits (the money arrived).
 */
async function applyEvent(
  gateway: string,
  eventId: string,
  type: string,
  order: PaymentOrder,
  effect: TEffect,
  details: Record<string, unknown>,
  correlationId: string,
): Promise<TCallbackResult> {
  return inWallet(order.workspaceId, async (tx) => {
    // payment_events is platform-global (keyed by the gateway's event id): raw SQL, which the scoped transaction does not filter.
    const seen = await tx.$queryRaw<{ event_id: string }[]>`
      INSERT INTO payment_events (gateway, event_id, order_id, type) VALUES (${gateway}, ${eventId}, ${order.id}, ${type})
      ON CONFLICT (gateway, event_id) DO NOTHING RETURNING event_id`;
    const current = await tx.paymentOrder.findUniqueOrThrow({ where: { id: order.id } });
    const result = (duplicate: boolean, status: string) => ({
      received: true as const,
      duplicate,
      order_id: order.id,
      order_status: status as TOrder["status"],
    });
    if (!seen.length) return result(true, current.status);
    const now = new Date();
    const actor = { kind: "system" as const, id: null };
    if (effect.kind === "succeeded" && current.status !== "succeeded") {
      await tx.paymentOrder.update({
        where: { id: order.id },
        data: {
          status: "succeeded",
          paidAt: now,
          failureMessage: null,
          updatedAt: now,
          ...(effect.paymentRef ? { gatewayPaymentRef: effect.paymentRef } : {}),
        },
      });
      await creditPaid(
        tx,
        order.workspaceId,
        order.currency as TCurrency,
        minorToMicros(order.amountMinor, order.currency as TCurrency),
        { kind: "payment_order", id: order.id },
      );
      await writeAudit(tx, {
        workspaceId: order.workspaceId,
        actor,
        action: "billing.payment_succeeded",
        target: { kind: "payment_order", id: order.id },
        correlationId,
        details: { gateway, event_id: eventId, event_type: type, ...details, previous_status: current.status },
      });
      await emitEvent(tx, {
        workspaceId: order.workspaceId,
        type: "payment.succeeded",
        correlationId,
        subject: order.id,
        data: {
          payment_id: order.id,
          kind: order.kind,
          gateway,
          gateway_reference: effect.paymentRef ?? order.gatewayReference,
          amount_minor: toWire(order.amountMinor),
          currency: order.currency,
        },
      });
      return result(false, "succeeded");
    }
    if (effect.kind === "failed" && current.status === "pending") {
      await tx.paymentOrder.update({
        where: { id: order.id },
        data: { status: effect.status, failureMessage: effect.message, updatedAt: now },
      });
      await writeAudit(tx, {
        workspaceId: order.workspaceId,
        actor,
        action: "billing.payment_failed",
        target: { kind: "payment_order", id: order.id },
        correlationId,
        details: { gateway, event_id: eventId, event_type: type, ...details, message: effect.message },
      });
      return result(false, effect.status);
    }
    return result(false, current.status);
  });
}
