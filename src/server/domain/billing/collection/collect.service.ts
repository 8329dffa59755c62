import type { InvoiceCollection } from "@/generated/prisma/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { lockInvoice } from "../invoice-lifecycle.service";
import { type TCurrency, remainingMinor } from "../money";
import { assertWorkspace, inWallet } from "../wallet.service";
import type { TCollection } from "./collection.contract";
import { defaultMethod, ensureCustomer } from "./payment-methods.service";
import { chargeOffSession, type TChargeOutcome } from "./stripe-collection";
import { inFlight, isUnique, payable, requireStripe, type TTrigger, type TTx, type TWho } from "./collection-rules";
import { applyOutcome } from "./outcome.service";

/**
 * Collecting an invoice through the gateway (issue #36 item 3; docs/decisions.md
 * "Collection and dunning"): a saved card charged off-session, or a
 * hosted checkout link. A card charge is claimed first (a `processing`
 * collection, at most one per invoice: a unique partial index), so two
 * collections of one invoice never both charge; paying from the wallet is
 * refused while one is in flight. The PaymentIntent's idempotency key is the
 * invoice number and the attempt (`CAP-000042/1`): a retry of the same attempt
 * is answered by Stripe with its first answer, a later dunning retry is a new
 * charge. Outcomes (the answer, or Stripe's signed callback for asynchronous
 * ones) are applied once, under the wallet lock with the invoice row locked.
 */

/** Refuses a payment while a card charge of the invoice is in flight (its outcome could pay it a second time). */
export async function assertNoChargeInFlight(tx: TTx, invoiceId: string): Promise<void> {
  const busy = await tx.invoiceCollection.findFirst({
    where: { invoiceId, status: "processing" },
    select: { id: true },
  });
  if (busy) throw inFlight(invoiceId);
}

/**
 * Charges a saved card for what is left of an open invoice. Answers the
 * collection: `succeeded` (the invoice is paid), `failed` (declined: the
 * invoice stays open; an automatic collection enters dunning) or
 * `requires_action` (3-D Secure: the invoice stays open, `url` is where the
 * owner completes it; Stripe's callback settles it).
 */
export async function chargeInvoice(
  who: TWho,
  workspaceId: string,
  invoiceId: string,
  opts: { paymentMethodId?: string; trigger: TTrigger },
): Promise<TCollection> {
  await assertWorkspace(workspaceId);
  // Another workspace's invoice is 404 before anything is said about this platform's gateway.
  if (!(await scopedDb(workspaceId).invoice.findFirst({ where: { id: invoiceId }, select: { id: true } })))
    throw notFound(`Invoice ${invoiceId}`);
  requireStripe();
  if (!(await scopedDb(workspaceId).billingAccount.findFirst({ select: { stripeCustomerId: true } }))?.stripeCustomerId)
    await ensureCustomer(workspaceId);
  let claim: { col: InvoiceCollection; customer: string; pm: string; number: string };
  try {
    claim = await inWallet(workspaceId, async (tx) => {
      const row = await lockInvoice(tx, workspaceId, invoiceId);
      if (!row) throw notFound(`Invoice ${invoiceId}`);
      payable(row);
      const remaining = remainingMinor(row);
      if (remaining <= BigInt(0))
        throw new AppError("conflict", `Invoice ${row.number} has nothing left to pay`, {
          reason: "invoice_not_payable",
        });
      await assertNoChargeInFlight(tx, row.id);
      const acc = await tx.billingAccount.findFirst();
      let pm;
      if (opts.paymentMethodId) {
        pm = await tx.paymentMethod.findFirst({ where: { id: opts.paymentMethodId, status: "active" } });
        if (!pm)
          throw new AppError(
            "validation_failed",
            `${opts.paymentMethodId} is not a saved payment method of this workspace`,
            { errors: [{ path: "/payment_method_id", message: "is not a saved payment method of this workspace" }] },
          );
      } else {
        pm = (await defaultMethod(tx))?.method;
        if (!pm)
          throw new AppError(
            "conflict",
            "The workspace has no saved payment method: add a card on the Billing page first",
            { reason: "no_payment_method" },
          );
      }
      const attempt = (await tx.invoiceCollection.count({ where: { invoiceId: row.id, method: "card" } })) + 1;
      const now = new Date();
      const col = await tx.invoiceCollection.create({
        data: {
          id: newId("col"),
          workspaceId,
          invoiceId: row.id,
          method: "card",
          trigger: opts.trigger,
          attempt,
          paymentMethodId: pm.id,
          idempotencyKey: `${row.number}/${attempt}`,
          status: "processing",
          amountMinor: remaining,
          currency: row.currency,
          createdBy: who.actor.kind === "user" ? who.actor.id : null,
          createdAt: now,
          updatedAt: now,
        },
      });
      return { col, customer: acc!.stripeCustomerId!, pm: pm.gatewayReference, number: row.number! };
    });
  } catch (err) {
    if (isUnique(err)) throw inFlight(invoiceId);
    throw err;
  }
  return sendCharge(who, claim);
}

/** Sends (or re-sends, with the same idempotency key) the claimed charge and applies its outcome. */
async function sendCharge(
  who: TWho,
  c: { col: InvoiceCollection; customer: string; pm: string; number: string },
): Promise<TCollection> {
  let outcome: TChargeOutcome;
  try {
    outcome = await chargeOffSession({
      customer: c.customer,
      paymentMethod: c.pm,
      amountMinor: c.col.amountMinor,
      currency: c.col.currency as TCurrency,
      idempotencyKey: c.col.idempotencyKey,
      description: `Invoice ${c.number}`,
      metadata: { collection_id: c.col.id, invoice_id: c.col.invoiceId, workspace_id: c.col.workspaceId },
    });
  } catch (err) {
    // Refused by Stripe (not an outage): the attempt failed. An outage leaves the claim in flight: the
    // collection worker re-sends it with the same key (Stripe answers a key once), so nothing is charged twice.
    if (err instanceof AppError && err.reason === "gateway_refused")
      outcome = { status: "failed", intent: null, code: "gateway_refused", message: err.message };
    else throw err;
  }
  return applyOutcome(who, c.col.workspaceId, c.col.id, outcome, null);
}

/** Re-sends a card charge left in flight (a crash or an outage between the claim and the answer). Worker. */
export async function resendCharge(col: InvoiceCollection): Promise<void> {
  const scoped = scopedDb(col.workspaceId);
  const [acc, pm, inv] = await Promise.all([
    scoped.billingAccount.findFirst(),
    scoped.paymentMethod.findFirst({ where: { id: col.paymentMethodId ?? "" } }),
    scoped.invoice.findFirst({ where: { id: col.invoiceId } }),
  ]);
  if (!acc?.stripeCustomerId || !pm || !inv) return;
  await sendCharge(
    { actor: { kind: "system", id: null }, correlationId: newId("evt") },
    { col, customer: acc.stripeCustomerId, pm: pm.gatewayReference, number: inv.number! },
  );
}
