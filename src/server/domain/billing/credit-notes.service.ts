import type { CreditNote } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import type { TCreditNote, TCreditNoteRequest } from "./credit-notes.contract";
import { invoiceMoney, lockInvoice, nextNumber, transition } from "./invoice-lifecycle.service";
import { cardPaymentOf, refundCardPayment } from "./collection/card-refund.service";
import { fromWire, minorToMicros, toWire, type TCurrency, remainingMinor } from "./money";
import { assertWorkspace, inWallet, insertEntries } from "./wallet.service";

/**
 * Credit notes (issue #36 item 5; docs/decisions.md "Credit notes, subscriptions that end, metered pricing"),
 * after Stripe's: a correction of an open, paid or uncollectible invoice,
 * partial or whole, with a reason. The amount first reduces what is left to
 * pay; the rest refunds what was paid the way it came: a card payment back
 * to the card through Stripe (a Refund of its PaymentIntent, idempotency key
 * from the note's id, `payment.refunded`), a wallet payment to the wallet's
 * paid balance (a `credit_note` ledger entry sourced by the note). Never more than is
 * creditable (amount due minus earlier notes): each note runs under the
 * wallet lock with the invoice row locked, so concurrent notes never
 * over-credit. Numbers are gap-free in the issuer's own series (`CAP-CN-…`),
 * taken in the note's transaction. An open invoice credited down to nothing
 * left is paid (as Stripe marks it).
 */

type TCaller = { userId: string; correlationId: string };
const ZERO = BigInt(0);
const CREDITABLE = new Set(["open", "paid", "uncollectible"]);

/** The credit note series of an issuer: `CAP` -> `CAP-CN`. */
export function creditNoteSeries(issuer: string): string {
  return `${issuer}-CN`;
}

export function toCreditNote(n: CreditNote, invoiceNumber: string): TCreditNote {
  return {
    id: n.id,
    workspace_id: n.workspaceId,
    invoice_id: n.invoiceId,
    invoice_number: invoiceNumber,
    number: n.number,
    currency: n.currency as TCurrency,
    amount_minor: toWire(n.amountMinor),
    reduced_minor: toWire(n.reducedMinor),
    refunded_minor: toWire(n.refundedMinor),
    refund_to: n.refundTo as TCreditNote["refund_to"],
    reason: n.reason,
    created_by: n.createdBy,
    created_at: iso(n.createdAt),
  };
}

/** Issues a credit note against an invoice of the workspace (ws_platform owner/admin: the issuer corrects its own invoice). */
export async function issueCreditNote(
  caller: TCaller,
  workspaceId: string,
  invoiceId: string,
  input: TCreditNoteRequest,
): Promise<TCreditNote> {
  await assertWorkspace(workspaceId);
  const amount = fromWire(input.amount_minor);
  return inWallet(workspaceId, async (tx) => {
    const row = await lockInvoice(tx, workspaceId, invoiceId);
    if (!row) throw notFound(`Invoice ${invoiceId}`);
    if (!CREDITABLE.has(row.status)) {
      throw new AppError(
        "conflict",
        `Invoice ${row.number ?? row.id} is ${row.status}: only an open, paid or uncollectible invoice can be credited`,
        {
          reason: "invoice_not_creditable",
          extensions: { invoice_status: row.status },
        },
      );
    }
    const creditable = row.amountDueMinor - row.creditedMinor;
    if (amount > creditable) {
      throw new AppError(
        "conflict",
        `A credit note of ${amount} exceeds the ${creditable} ${row.currency} minor units still creditable on invoice ${row.number}`,
        {
          reason: "credit_exceeds_creditable",
          extensions: {
            creditable_minor: toWire(creditable),
            requested_minor: input.amount_minor,
            currency: row.currency,
          },
        },
      );
    }
    const currency = row.currency as TCurrency;
    const remaining = remainingMinor(row);
    const reduced = amount < remaining ? amount : remaining > ZERO ? remaining : ZERO;
    const refunded = amount - reduced;
    // What was paid goes back the way it came: a card payment to the card (through Stripe), else to the wallet.
    const card = refunded > ZERO ? await cardPaymentOf(tx, row) : null;
    const refundTo = refunded > ZERO ? (card ? "card" : "wallet") : null;
    const now = new Date();
    const note = await tx.creditNote.create({
      data: {
        id: newId("crn"),
        workspaceId,
        invoiceId: row.id,
        issuer: row.issuer,
        number: await nextNumber(tx, creditNoteSeries(row.issuer)),
        currency,
        amountMinor: amount,
        reducedMinor: reduced,
        refundedMinor: refunded,
        refundTo,
        reason: input.reason,
        createdBy: caller.userId,
        createdAt: now,
      },
    });
    if (refundTo === "wallet") {
      await insertEntries(
        tx,
        workspaceId,
        currency,
        { kind: "credit_note", id: note.id },
        [{ kind: "credit_note", amount: minorToMicros(refunded, currency), grantId: null }],
        now,
      );
    }
    // Credited grows by the whole note; paid shrinks by what went back. The row is locked: the conditional update cannot lose.
    const moved = await tx.invoice.updateMany({
      where: { id: row.id, status: row.status, creditedMinor: row.creditedMinor, amountPaidMinor: row.amountPaidMinor },
      data: { creditedMinor: row.creditedMinor + amount, amountPaidMinor: row.amountPaidMinor - refunded },
    });
    if (moved.count !== 1)
      throw new AppError("conflict", `Invoice ${row.id} changed meanwhile`, { reason: "concurrent_change" });
    let invoice = await tx.invoice.findFirstOrThrow({ where: { id: row.id } });
    // Stripe last, once everything else of the note is written (a refusal or an outage rolls all of it back);
    // only the audit, the events and the commit follow it.
    const refund = card
      ? await refundCardPayment(card, { creditNoteId: note.id, amountMinor: refunded, currency })
      : null;
    const details = {
      credit_note_id: note.id,
      credit_note_number: note.number,
      amount_minor: input.amount_minor,
      reduced_minor: toWire(reduced),
      refunded_minor: toWire(refunded),
      refund_to: note.refundTo,
      reason: input.reason,
      currency,
      ...(refund && card
        ? {
            gateway: "stripe",
            payment_id: card.collectionId,
            payment_intent: refund.paymentIntent,
            gateway_reference: refund.refund,
          }
        : {}),
    };
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "billing.adjusted",
      target: { kind: "invoice", id: row.id },
      correlationId: caller.correlationId,
      details: { event: "credit_note", ...details },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "credit_note.issued",
      correlationId: caller.correlationId,
      subject: note.id,
      data: { ...details, id: note.id, number: note.number, invoice: invoiceMoney(invoice), created_at: iso(now) },
    });
    if (refund && card) {
      await emitEvent(tx, {
        workspaceId,
        type: "payment.refunded",
        correlationId: caller.correlationId,
        subject: note.id,
        data: {
          refund_id: note.id,
          credit_note_id: note.id,
          invoice_id: row.id,
          payment_id: card.collectionId,
          amount_minor: toWire(refunded),
          refunded_minor: toWire(card.amountMinor - card.refundableMinor + refunded),
          payment_amount_minor: toWire(card.amountMinor),
          currency,
          reason: input.reason,
          gateway: "stripe",
          gateway_reference: refund.refund,
          payment_intent: refund.paymentIntent,
        },
      });
    }
    if ((invoice.status === "open" || invoice.status === "uncollectible") && remainingMinor(invoice) === ZERO) {
      invoice = await transition(
        tx,
        invoice,
        "pay",
        {
          actor: { kind: "user", id: caller.userId },
          correlationId: caller.correlationId,
          details: { method: "credit_note", amount_minor: 0 },
        },
        { paidAt: now },
      );
    }
    return toCreditNote(note, invoice.number ?? invoice.id);
  });
}

/** The credit notes of an invoice of the workspace (a scoped read: another workspace's invoice is 404). */
export async function listCreditNotes(
  workspaceId: string,
  invoiceId: string,
  q: TListQuery,
): Promise<TPage<TCreditNote>> {
  const scoped = scopedDb(workspaceId);
  const invoice = await scoped.invoice.findFirst({ where: { id: invoiceId }, select: { id: true, number: true } });
  if (!invoice) throw notFound(`Invoice ${invoiceId}`);
  const args = keysetArgs(q);
  const rows = await scoped.creditNote.findMany({ ...args, where: { ...args.where, invoiceId } });
  return toPage(rows, q, (n) => toCreditNote(n, invoice.number ?? invoice.id));
}

/** Every credit note of an invoice, oldest first (the invoice page and PDF). */
export async function creditNotesOf(
  workspaceId: string,
  invoiceId: string,
  invoiceNumber: string,
): Promise<TCreditNote[]> {
  const rows = await scopedDb(workspaceId).creditNote.findMany({
    where: { invoiceId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((n) => toCreditNote(n, invoiceNumber));
}
