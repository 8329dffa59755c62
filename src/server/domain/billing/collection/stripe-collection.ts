import type Stripe from "stripe";
import { env } from "@/server/platform/env";
import type { TCurrency } from "../money";
import { client, gatewayDown } from "../stripe-gateway";

/**
 * The Stripe calls of collection (issue #36 item 3; docs/decisions.md
 * "Collection and dunning"): a customer per workspace, a Checkout
 * Session in setup mode to save a card (the card stays at Stripe: we keep its
 * id, brand, last 4 and expiry), off-session PaymentIntents, a Checkout
 * Session that pays one invoice. Every POST carries an idempotency key.
 */

const console = (workspaceId: string, tail = "") =>
  `${env().CAPSTAN_PUBLIC_URL}/console/w/${workspaceId}/billing${tail}`;

export async function createCustomer(workspaceId: string, name: string, email: string | null): Promise<string> {
  try {
    const c = await client().customers.create(
      { name, ...(email ? { email } : {}), metadata: { workspace_id: workspaceId } },
      { idempotencyKey: `customer-${workspaceId}` },
    );
    return c.id;
  } catch (err) {
    throw gatewayDown("customer", err);
  }
}

/** A Checkout Session in setup mode: the owner saves a card on Stripe's page; the callback names its SetupIntent. */
export async function createSetupSession(setup: {
  id: string;
  workspaceId: string;
  customer: string;
  currency: TCurrency | null;
}): Promise<{ id: string; url: string }> {
  try {
    const s = await client().checkout.sessions.create(
      {
        mode: "setup",
        customer: setup.customer,
        client_reference_id: setup.id,
        ...(setup.currency ? { currency: setup.currency.toLowerCase() } : {}),
        metadata: { setup_id: setup.id, workspace_id: setup.workspaceId },
        success_url: console(setup.workspaceId, `?setup=success&id=${setup.id}`),
        cancel_url: console(setup.workspaceId, `?setup=cancelled&id=${setup.id}`),
      },
      { idempotencyKey: `setup-${setup.id}` },
    );
    if (!s.url) throw new Error("the Checkout Session has no url");
    return { id: s.id, url: s.url };
  } catch (err) {
    throw gatewayDown("setup Checkout Session", err);
  }
}

export type TCardDetails = {
  id: string;
  customer: string | null;
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
};

/** The payment method a completed SetupIntent saved, with what can be shown of it (never the number). */
export async function setupPaymentMethod(setupIntent: string): Promise<TCardDetails> {
  try {
    const si = await client().setupIntents.retrieve(setupIntent);
    const pmId = typeof si.payment_method === "string" ? si.payment_method : si.payment_method?.id;
    if (!pmId)
      throw Object.assign(new Error(`SetupIntent ${setupIntent} saved no payment method`), {
        type: "StripeInvalidRequestError",
      });
    const pm = await client().paymentMethods.retrieve(pmId);
    return {
      id: pm.id,
      customer: typeof pm.customer === "string" ? pm.customer : (pm.customer?.id ?? null),
      brand: pm.card?.brand ?? null,
      last4: pm.card?.last4 ?? null,
      expMonth: pm.card?.exp_month ?? null,
      expYear: pm.card?.exp_year ?? null,
    };
  } catch (err) {
    throw gatewayDown("setup intent", err);
  }
}

export async function detachPaymentMethod(paymentMethod: string): Promise<void> {
  try {
    await client().paymentMethods.detach(paymentMethod, {}, { idempotencyKey: `detach-${paymentMethod}` });
  } catch (err) {
    // Already detached or deleted at Stripe: nothing left to remove there.
    if ((err as { code?: string }).code === "resource_missing") return;
    throw gatewayDown("payment method removal", err);
  }
}

export type TChargeOutcome =
  | { status: "succeeded"; intent: string }
  | { status: "requires_action"; intent: string; actionUrl: string | null; message: string }
  | { status: "failed"; intent: string | null; code: string; message: string };

/**
 * Charges a saved card off-session (confirm now). A decline is an outcome, not
 * an error: Stripe answers 402 with the PaymentIntent; 3-D Secure required is
 * `requires_action` with the page the owner completes it on. An outage or a
 * refused request throws (503/422): the caller retries with the same key, and
 * Stripe answers a repeated key with its first answer, so a card is charged
 * at most once per key.
 */
export async function chargeOffSession(c: {
  customer: string;
  paymentMethod: string;
  amountMinor: bigint;
  currency: TCurrency;
  idempotencyKey: string;
  description: string;
  metadata: Record<string, string>;
}): Promise<TChargeOutcome> {
  try {
    const pi = await client().paymentIntents.create(
      {
        amount: Number(c.amountMinor),
        currency: c.currency.toLowerCase(),
        customer: c.customer,
        payment_method: c.paymentMethod,
        off_session: true,
        confirm: true,
        description: c.description,
        metadata: c.metadata,
      },
      { idempotencyKey: c.idempotencyKey },
    );
    return intentOutcome(pi);
  } catch (err) {
    const e = err as {
      type?: string;
      code?: string;
      decline_code?: string;
      message?: string;
      raw?: { payment_intent?: Stripe.PaymentIntent };
    };
    if (e.type === "StripeCardError") {
      const pi = e.raw?.payment_intent;
      if (pi && (pi.status === "requires_action" || e.code === "authentication_required")) {
        return {
          status: "requires_action",
          intent: pi.id,
          actionUrl: pi.next_action?.redirect_to_url?.url ?? null,
          message: e.message ?? "the card requires authentication",
        };
      }
      return {
        status: "failed",
        intent: pi?.id ?? null,
        code: e.decline_code ?? e.code ?? "card_declined",
        message: e.message ?? "the card was declined",
      };
    }
    throw gatewayDown("off-session charge", err);
  }
}

export function intentOutcome(pi: Stripe.PaymentIntent): TChargeOutcome {
  if (pi.status === "succeeded") return { status: "succeeded", intent: pi.id };
  if (pi.status === "requires_action") {
    return {
      status: "requires_action",
      intent: pi.id,
      actionUrl: pi.next_action?.redirect_to_url?.url ?? null,
      message: "the card requires authentication (3-D Secure)",
    };
  }
  return {
    status: "failed",
    intent: pi.id,
    code: pi.last_payment_error?.decline_code ?? pi.last_payment_error?.code ?? pi.status,
    message: pi.last_payment_error?.message ?? `the payment is ${pi.status}`,
  };
}

/** A Checkout Session that pays one invoice's remaining amount (a hosted link for the owner). */
export async function createInvoiceCheckout(c: {
  collectionId: string;
  workspaceId: string;
  invoiceId: string;
  number: string;
  customer: string | null;
  amountMinor: bigint;
  currency: TCurrency;
}): Promise<{ id: string; url: string }> {
  try {
    const s = await client().checkout.sessions.create(
      {
        mode: "payment",
        client_reference_id: c.collectionId,
        ...(c.customer ? { customer: c.customer } : {}),
        metadata: { collection_id: c.collectionId, invoice_id: c.invoiceId, workspace_id: c.workspaceId },
        payment_intent_data: {
          metadata: { collection_id: c.collectionId, invoice_id: c.invoiceId, workspace_id: c.workspaceId },
        },
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: c.currency.toLowerCase(),
              unit_amount: Number(c.amountMinor),
              product_data: { name: `Invoice ${c.number}` },
            },
          },
        ],
        success_url: console(c.workspaceId, `/invoices/${c.invoiceId}?checkout=success`),
        cancel_url: console(c.workspaceId, `/invoices/${c.invoiceId}?checkout=cancelled`),
      },
      { idempotencyKey: `invoice-checkout-${c.collectionId}` },
    );
    if (!s.url) throw new Error("the Checkout Session has no url");
    return { id: s.id, url: s.url };
  } catch (err) {
    throw gatewayDown("invoice Checkout Session", err);
  }
}

/** Closes a Checkout Session that is no longer needed (its invoice was paid another way); best effort. */
export async function expireCheckout(sessionId: string): Promise<boolean> {
  try {
    await client().checkout.sessions.expire(sessionId, {}, { idempotencyKey: `expire-${sessionId}` });
    return true;
  } catch {
    return false;
  }
}

/** The PaymentIntent that paid a completed Checkout Session (what a refund of it names). */
export async function checkoutPaymentIntent(sessionId: string): Promise<string> {
  try {
    const s = await client().checkout.sessions.retrieve(sessionId);
    const pi = typeof s.payment_intent === "string" ? s.payment_intent : s.payment_intent?.id;
    if (!pi)
      throw Object.assign(new Error(`Checkout Session ${sessionId} has no PaymentIntent`), {
        type: "StripeInvalidRequestError",
      });
    return pi;
  } catch (err) {
    throw gatewayDown("checkout session", err);
  }
}
