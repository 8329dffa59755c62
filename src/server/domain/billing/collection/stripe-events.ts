import type Stripe from "stripe";
import { db } from "@/server/platform/db/client";
import { AppError, notFound } from "@/server/platform/errors";
import { applyTopUpOutcome } from "./auto-top-up.service";
import { applyOutcome } from "./outcome.service";
import { completeSetup, expireSetup } from "./payment-methods.service";
import { intentOutcome } from "./stripe-collection";

/**
 * Stripe's signed callbacks for collection (verified by the caller with the
 * 300 s tolerance; docs/decisions.md "Collection and dunning"):
 * setup-mode Checkout Sessions (a card saved), invoice Checkout Sessions (an
 * invoice paid by its link), PaymentIntent outcomes of off-session charges
 * (3-D Secure completed or failed later, an automatic top-up). Each event id
 * is applied once (payment_events, in the effect's transaction). Answers null
 * for events that are not about collection (the top-up checkout handles them).
 */

export type TCollectionCallback =
  | {
      received: true;
      duplicate: boolean;
      order_id: string;
      order_status: "pending" | "succeeded" | "failed" | "expired";
    }
  | { ignored: true };
const SYSTEM = { kind: "system" as const, id: null };

const STATUS: Record<string, "pending" | "succeeded" | "failed" | "expired"> = {
  processing: "pending",
  open: "pending",
  requires_action: "pending",
  succeeded: "succeeded",
  failed: "failed",
  expired: "expired",
};

function matches(
  amount: number | null,
  currency: string | null,
  want: { amountMinor: bigint; currency: string },
): void {
  if (amount === null) return;
  if (BigInt(amount) !== want.amountMinor || (currency ?? "").toUpperCase() !== want.currency) {
    throw new AppError(
      "validation_failed",
      `the event's amount ${amount} ${(currency ?? "").toUpperCase()} is not the collection's ${want.amountMinor} ${want.currency}`,
      {
        reason: "amount_mismatch",
        errors: [{ path: "/data/object/amount", message: "does not match" }],
      },
    );
  }
}

export async function handleCollectionEvent(
  event: Stripe.Event,
  correlationId: string,
): Promise<TCollectionCallback | null> {
  const who = { actor: SYSTEM, correlationId };
  const ev = { id: event.id, type: event.type };
  if (event.type.startsWith("checkout.session.")) {
    const session = event.data.object as Stripe.Checkout.Session;
    const ref = session.client_reference_id ?? "";
    if (ref.startsWith("pms_")) {
      // platform-scoped: a callback names the gateway's session before any workspace is known.
      const setup = await db().paymentMethodSetup.findUnique({ where: { gatewayReference: session.id } });
      if (!setup || setup.id !== ref) throw notFound(`Payment method setup ${ref} (Checkout Session ${session.id})`);
      if (event.type === "checkout.session.completed") {
        const si = typeof session.setup_intent === "string" ? session.setup_intent : session.setup_intent?.id;
        if (!si)
          throw new AppError("validation_failed", "the completed setup session names no SetupIntent", {
            reason: "setup_intent_missing",
          });
        const r = await completeSetup(setup, si, correlationId);
        return { received: true, duplicate: false, order_id: r.id, order_status: "succeeded" };
      }
      if (event.type === "checkout.session.expired") await expireSetup(setup);
      return {
        received: true,
        duplicate: false,
        order_id: setup.id,
        order_status: event.type === "checkout.session.expired" ? "expired" : "pending",
      };
    }
    if (!ref.startsWith("col_")) return null;
    // platform-scoped: as above, by the gateway's own reference.
    const col = await db().invoiceCollection.findUnique({ where: { gatewayReference: session.id } });
    if (!col || col.id !== ref) throw notFound(`Invoice collection ${ref} (Checkout Session ${session.id})`);
    matches(session.amount_total, session.currency, col);
    const intent =
      typeof session.payment_intent === "string" ? session.payment_intent : (session.payment_intent?.id ?? null);
    let r;
    if (
      (event.type === "checkout.session.completed" && session.payment_status !== "unpaid") ||
      event.type === "checkout.session.async_payment_succeeded"
    ) {
      r = await applyOutcome(who, col.workspaceId, col.id, { status: "succeeded", intent: intent ?? session.id }, ev);
    } else if (event.type === "checkout.session.async_payment_failed") {
      r = await applyOutcome(
        who,
        col.workspaceId,
        col.id,
        { status: "failed", intent, code: "async_payment_failed", message: "the delayed payment failed at Stripe" },
        ev,
      );
    } else if (event.type === "checkout.session.expired") {
      r = await applyOutcome(
        who,
        col.workspaceId,
        col.id,
        { status: "failed", intent, code: "expired", message: "the checkout link expired unpaid" },
        ev,
      );
    } else return { received: true, duplicate: false, order_id: col.id, order_status: STATUS[col.status]! };
    return { received: true, duplicate: r.duplicate ?? false, order_id: col.id, order_status: STATUS[r.status]! };
  }
  if (
    event.type === "payment_intent.succeeded" ||
    event.type === "payment_intent.payment_failed" ||
    event.type === "payment_intent.requires_action"
  ) {
    const pi = event.data.object;
    const outcome = intentOutcome(pi);
    const colId = pi.metadata?.collection_id;
    if (colId?.startsWith("col_")) {
      // platform-scoped: a callback names our collection before any workspace is known; the row names it.
      const col = await db().invoiceCollection.findUnique({ where: { id: colId } });
      if (!col) throw notFound(`Invoice collection ${colId}`);
      // A checkout's PaymentIntent is settled by its session's events; a card charge's by these.
      if (col.method !== "card")
        return { received: true, duplicate: false, order_id: col.id, order_status: STATUS[col.status]! };
      if (col.gatewayReference && col.gatewayReference !== pi.id)
        throw notFound(`PaymentIntent ${pi.id} of collection ${colId}`);
      matches(pi.amount, pi.currency, col);
      const r = await applyOutcome(who, col.workspaceId, col.id, outcome, ev);
      return { received: true, duplicate: r.duplicate ?? false, order_id: col.id, order_status: STATUS[r.status]! };
    }
    const orderId = pi.metadata?.order_id;
    if (orderId?.startsWith("pay_") && pi.metadata?.kind === "auto_top_up") {
      // platform-scoped: as above.
      const order = await db().paymentOrder.findUnique({ where: { id: orderId } });
      if (!order || order.kind !== "auto_top_up") throw notFound(`Payment order ${orderId}`);
      matches(pi.amount, pi.currency, order);
      const status = await applyTopUpOutcome(order.workspaceId, order.id, outcome, correlationId, ev);
      return {
        received: true,
        duplicate: false,
        order_id: order.id,
        order_status: status === "succeeded" || status === "failed" || status === "expired" ? status : "pending",
      };
    }
  }
  return null;
}
