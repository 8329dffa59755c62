import Stripe from "stripe";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import type { TCurrency } from "./money";

/**
 * The Stripe gateway (docs/decisions.md "Prepaid, Stripe, renewal")
 * through the official `stripe` package: Checkout Sessions for top-ups,
 * webhook signature verification (`stripe.webhooks.constructEvent`, 300 s
 * tolerance), refunds of the PaymentIntent that paid. The API base is
 * configurable (CAPSTAN_STRIPE_API_BASE) so tests run against a loopback
 * Stripe-compatible server.
 */

export const STRIPE_TOLERANCE_S = 300;
let cached: { key: string; base: string; client: Stripe } | null = null;

export function stripeConfigured(): boolean {
  return Boolean(env().CAPSTAN_STRIPE_SECRET_KEY);
}

export function client(): Stripe {
  const e = env();
  const key = e.CAPSTAN_STRIPE_SECRET_KEY;
  if (!key) {
    throw new AppError(
      "validation_failed",
      "the stripe gateway is not configured here (CAPSTAN_STRIPE_SECRET_KEY is unset)",
      {
        reason: "gateway_unavailable",
        errors: [{ path: "/gateway", message: "is not configured" }],
      },
    );
  }
  if (cached && cached.key === key && cached.base === e.CAPSTAN_STRIPE_API_BASE) return cached.client;
  const base = new URL(e.CAPSTAN_STRIPE_API_BASE);
  const protocol = base.protocol === "http:" ? "http" : "https";
  const port = base.port ? Number(base.port) : protocol === "http" ? 80 : 443;
  const stripe = new Stripe(key, {
    host: base.hostname,
    port,
    protocol,
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
  });
  cached = { key, base: e.CAPSTAN_STRIPE_API_BASE, client: stripe };
  return stripe;
}

export function gatewayDown(what: string, err: unknown): AppError {
  const type = (err as { type?: string }).type;
  logger.warn("billing.stripe_failed", { what, type: type ?? null, error: String((err as Error).message ?? err) });
  if (type === "StripeInvalidRequestError") {
    return new AppError("validation_failed", `Stripe refused the ${what}: ${(err as Error).message}`, {
      reason: "gateway_refused",
    });
  }
  return new AppError(
    "unavailable",
    `the payment gateway could not be reached for the ${what}; retry with the same Idempotency-Key`,
    {
      reason: "gateway_unavailable",
      headers: { "retry-after": "5" },
    },
  );
}

/** A Checkout Session (mode payment) for one top-up order; idempotent per order id at Stripe. */
export async function createCheckoutSession(order: {
  id: string;
  workspaceId: string;
  amountMinor: bigint;
  currency: TCurrency;
}): Promise<{ id: string; url: string }> {
  const stripe = client();
  const back = `${env().CAPSTAN_PUBLIC_URL}/console/w/${order.workspaceId}/billing`;
  try {
    const session = await stripe.checkout.sessions.create(
      {
        mode: "payment",
        client_reference_id: order.id,
        metadata: { order_id: order.id, workspace_id: order.workspaceId },
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: order.currency.toLowerCase(),
              unit_amount: Number(order.amountMinor),
              product_data: { name: "Capstan wallet top-up" },
            },
          },
        ],
        success_url: `${back}?checkout=success&order=${order.id}`,
        cancel_url: `${back}?checkout=cancelled&order=${order.id}`,
      },
      { idempotencyKey: `checkout-${order.id}` },
    );
    if (!session.url) throw new Error("the Checkout Session has no url");
    return { id: session.id, url: session.url };
  } catch (err) {
    throw gatewayDown("Checkout Session", err);
  }
}

const unauthenticated = (detail: string, reason: string) =>
  new AppError("unauthenticated", detail, {
    reason,
    headers: { "www-authenticate": `StripeSignature realm="payments"` },
  });

/** The event, verified by Stripe-Signature over the raw bytes; a missing/bad signature or a timestamp beyond 300 s is 401. */
export function verifyStripeEvent(rawBody: string, header: string | null): Stripe.Event {
  const secret = env().CAPSTAN_STRIPE_WEBHOOK_SECRET;
  if (!stripeConfigured() || !secret)
    throw notFound(
      "Payment gateway stripe (not configured: CAPSTAN_STRIPE_SECRET_KEY / CAPSTAN_STRIPE_WEBHOOK_SECRET unset)",
    );
  if (!header) throw unauthenticated("the callback carries no Stripe-Signature header", "signature_missing");
  try {
    return client().webhooks.constructEvent(rawBody, header, secret, STRIPE_TOLERANCE_S);
  } catch (err) {
    const message = String((err as Error).message ?? "");
    if (/tolerance/i.test(message)) {
      throw unauthenticated(
        `the callback's timestamp is more than ${STRIPE_TOLERANCE_S} s away from now (stale or replayed)`,
        "signature_stale",
      );
    }
    throw unauthenticated("the callback's Stripe-Signature does not match", "signature_invalid");
  }
}

/**
 * Refunds `amountMinor` of the PaymentIntent at Stripe. `idempotencyKey` names
 * the refund by the order's state (order, refunded so far, amount), so a retry
 * after a failure on our side gets Stripe's first refund back, not a second.
 */
export async function refundPayment(
  paymentIntent: string,
  amountMinor: bigint,
  idempotencyKey: string,
): Promise<{ id: string }> {
  try {
    const r = await client().refunds.create(
      { payment_intent: paymentIntent, amount: Number(amountMinor) },
      { idempotencyKey },
    );
    if (r.status === "failed" || r.status === "canceled")
      throw Object.assign(new Error(`refund ${r.id} is ${r.status}`), { type: "StripeInvalidRequestError" });
    return { id: r.id };
  } catch (err) {
    throw gatewayDown("refund", err);
  }
}
