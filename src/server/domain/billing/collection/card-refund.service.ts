import type { Invoice } from "@/generated/prisma/client";
import { AppError } from "@/server/platform/errors";
import { toWire } from "../money";
import { refundPayment } from "../stripe-gateway";
import type { TTx } from "./collection-rules";
import { checkoutPaymentIntent } from "./stripe-collection";

/**
 * Where the refunded part of a credit note goes (docs/decisions.md "Credit
 * notes, subscriptions that end, metered pricing"): an invoice paid by card
 * (an off-session charge or its checkout link: the succeeded collection that
 * paid it) is refunded to that card through Stripe, a Refund against the
 * collection's PaymentIntent; any other invoice (paid from the wallet) to the
 * wallet's paid balance, as before.
 */

export type TCardPayment = { collectionId: string; method: string; amountMinor: bigint; refundableMinor: bigint };

/** The card payment that paid the invoice, with what is left of it to refund; null when the wallet paid it. */
export async function cardPaymentOf(tx: TTx, invoice: Invoice): Promise<(TCardPayment & { ref: string }) | null> {
  const col = await tx.invoiceCollection.findFirst({
    where: { invoiceId: invoice.id, status: "succeeded", appliedTo: "invoice", method: { in: ["card", "checkout"] } },
    orderBy: { updatedAt: "asc" },
  });
  if (!col?.gatewayReference) return null;
  const earlier = await tx.creditNote.aggregate({
    where: { invoiceId: invoice.id, refundTo: "card" },
    _sum: { refundedMinor: true },
  });
  return {
    collectionId: col.id,
    method: col.method,
    ref: col.gatewayReference,
    amountMinor: col.amountMinor,
    refundableMinor: col.amountMinor - (earlier._sum.refundedMinor ?? BigInt(0)),
  };
}

/**
 * Refunds `amountMinor` of the card payment at Stripe, never more than is left
 * of it (409 `refund_exceeds_payment` with its currency, before Stripe is
 * asked). The Stripe idempotency key is the credit note's id: a retry of the
 * same note gets Stripe's first refund back. Stripe unreachable: 503, refusing:
 * 422 — the caller's transaction then writes nothing.
 */
export async function refundCardPayment(
  pay: TCardPayment & { ref: string },
  c: { creditNoteId: string; amountMinor: bigint; currency: string },
): Promise<{ paymentIntent: string; refund: string }> {
  if (c.amountMinor > pay.refundableMinor) {
    throw new AppError(
      "conflict",
      `a refund of ${c.amountMinor} exceeds what is left of card payment ${pay.collectionId} (${pay.refundableMinor} ${c.currency} of ${pay.amountMinor})`,
      {
        reason: "refund_exceeds_payment",
        extensions: { refundable_minor: toWire(pay.refundableMinor), currency: c.currency },
      },
    );
  }
  // A charge keeps its PaymentIntent id; a checkout link keeps its Checkout Session id (the intent is asked of Stripe).
  const paymentIntent = pay.method === "card" ? pay.ref : await checkoutPaymentIntent(pay.ref);
  const refund = await refundPayment(paymentIntent, c.amountMinor, `credit-note-${c.creditNoteId}`);
  return { paymentIntent, refund: refund.id };
}
