import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { type TCurrency, remainingMinor } from "../money";
import { assertWorkspace } from "../wallet.service";
import type { TCollection } from "./collection.contract";
import { createInvoiceCheckout, expireCheckout } from "./stripe-collection";
import { inFlight, isUnique, payable, requireStripe, toCollection, type TWho } from "./collection-rules";

/**
 * A hosted checkout link for what is left of one invoice (a Stripe Checkout
 * Session, paid via its signed callback). At most one link of an invoice is
 * open at a time (unique partial index): asking again answers the open one
 * while its amount is still what is left.
 */
export async function checkoutInvoice(who: TWho, workspaceId: string, invoiceId: string): Promise<TCollection> {
  await assertWorkspace(workspaceId);
  const scoped = scopedDb(workspaceId);
  const row = await scoped.invoice.findFirst({ where: { id: invoiceId } });
  if (!row) throw notFound(`Invoice ${invoiceId}`);
  requireStripe();
  payable(row);
  const remaining = remainingMinor(row);
  if (remaining <= BigInt(0))
    throw new AppError("conflict", `Invoice ${row.number} has nothing left to pay`, { reason: "invoice_not_payable" });
  const open = await scoped.invoiceCollection.findFirst({ where: { invoiceId, method: "checkout", status: "open" } });
  if (open && open.amountMinor === remaining) return toCollection(open);
  if (open) {
    await expireCheckout(open.gatewayReference!);
    await scoped.invoiceCollection.updateMany({
      where: { id: open.id, status: "open" },
      data: { status: "expired", actionUrl: null, updatedAt: new Date() },
    });
  }
  const customer =
    (await scoped.billingAccount.findFirst({ select: { stripeCustomerId: true } }))?.stripeCustomerId ?? null;
  const id = newId("col");
  const session = await createInvoiceCheckout({
    collectionId: id,
    workspaceId,
    invoiceId,
    number: row.number!,
    customer,
    amountMinor: remaining,
    currency: row.currency as TCurrency,
  });
  const attempt = (await scoped.invoiceCollection.count({ where: { invoiceId } })) + 1;
  const now = new Date();
  try {
    const col = await scoped.invoiceCollection.create({
      data: {
        id,
        workspaceId,
        invoiceId,
        method: "checkout",
        trigger: "owner",
        attempt,
        gatewayReference: session.id,
        idempotencyKey: `invoice-checkout-${id}`,
        status: "open",
        amountMinor: remaining,
        currency: row.currency,
        actionUrl: session.url,
        createdBy: who.actor.id,
        createdAt: now,
        updatedAt: now,
      },
    });
    return toCollection(col);
  } catch (err) {
    if (!isUnique(err)) throw err;
    // Another request opened a link meanwhile: that one is the link; this session is closed at Stripe.
    await expireCheckout(session.id);
    const winner = await scoped.invoiceCollection.findFirst({
      where: { invoiceId, method: "checkout", status: "open" },
    });
    if (!winner) throw inFlight(invoiceId);
    return toCollection(winner);
  }
}

export async function listCollections(workspaceId: string, invoiceId: string): Promise<{ data: TCollection[] }> {
  const scoped = scopedDb(workspaceId);
  if (!(await scoped.invoice.findFirst({ where: { id: invoiceId }, select: { id: true } })))
    throw notFound(`Invoice ${invoiceId}`);
  const rows = await scoped.invoiceCollection.findMany({
    where: { invoiceId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 100,
  });
  return { data: rows.map(toCollection) };
}
