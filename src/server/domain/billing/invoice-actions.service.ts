import { AppError, notFound } from "@/server/platform/errors";
import { minorToMicros, toWire, type TCurrency, remainingMinor } from "./money";
import type { TInvoice } from "./invoices.contract";
import { toInvoice } from "./invoices.service";
import { lockInvoice, transition } from "./invoice-lifecycle.service";
import { assertWorkspace, inWallet, insertEntries, paidBalance } from "./wallet.service";
import { assertNoChargeInFlight } from "./collection/collect.service";
import { standingChanged } from "./collection/dunning.service";

/**
 * What a person does to an invoice (issue #36 items 2-3; docs/decisions.md
 * "Invoices as receivables"): the owner pays an open invoice from the
 * wallet's paid balance; the platform voids it or marks it uncollectible.
 * Each runs under the wallet lock with the invoice row locked, and the status
 * moves through the transition table, so two collections of one invoice can
 * never both succeed (the loser sees it paid: 409).
 */

type TCaller = { userId: string; correlationId: string };

function payable(status: string, id: string): void {
  if (status !== "open" && status !== "uncollectible") {
    throw new AppError("conflict", `Invoice ${id} is ${status}: only an open or uncollectible invoice can be paid`, {
      reason: "invoice_not_payable",
      extensions: { invoice_status: status },
    });
  }
}

/**
 * Pays what is left of an invoice from the wallet's paid balance (never from
 * granted credit): an `invoice_payment` ledger entry sourced by the invoice
 * (unique, so it can be written once) and the invoice `paid`.
 */
export async function payFromWallet(caller: TCaller, workspaceId: string, invoiceId: string): Promise<TInvoice> {
  await assertWorkspace(workspaceId);
  const result = await inWallet(workspaceId, async (tx) => {
    const row = await lockInvoice(tx, workspaceId, invoiceId);
    if (!row) throw notFound(`Invoice ${invoiceId}`);
    payable(row.status, row.id);
    // A card charge of this invoice in flight could pay it too: one collection at a time.
    await assertNoChargeInFlight(tx, row.id);
    const currency = row.currency as TCurrency;
    const remaining = remainingMinor(row);
    const need = minorToMicros(remaining, currency);
    const balance = await paidBalance(tx, workspaceId, currency);
    const held =
      (await tx.walletBalance.findFirst({ where: { currency }, select: { heldMicros: true } }))?.heldMicros ??
      BigInt(0);
    if (balance - held < need) {
      throw new AppError(
        "conflict",
        `The wallet's available paid balance does not cover the ${remaining} ${currency} minor units left on invoice ${row.number}`,
        {
          reason: "insufficient_balance",
          extensions: { amount_remaining_minor: toWire(remaining), available_micros: toWire(balance - held), currency },
        },
      );
    }
    const now = new Date();
    await insertEntries(
      tx,
      workspaceId,
      currency,
      { kind: "invoice_payment", id: row.id },
      [{ kind: "invoice_payment", amount: -need, grantId: null }],
      now,
    );
    const paid = await transition(
      tx,
      row,
      "pay",
      {
        actor: { kind: "user", id: caller.userId },
        correlationId: caller.correlationId,
        details: { method: "wallet", amount_minor: toWire(remaining) },
      },
      {
        amountPaidMinor: row.amountPaidMinor + remaining,
        paidAt: now,
      },
    );
    return toInvoice(paid);
  });
  standingChanged(workspaceId); // a dunning standing it lifted reaches every process's caches now
  return result;
}

/** Voids an open or uncollectible invoice (never owed; a debt it carried is forgiven), with a reason. Platform owner/admin. */
export async function voidInvoice(
  caller: TCaller,
  workspaceId: string,
  invoiceId: string,
  reason: string,
): Promise<TInvoice> {
  await assertWorkspace(workspaceId);
  return inWallet(workspaceId, async (tx) => {
    const row = await lockInvoice(tx, workspaceId, invoiceId);
    if (!row) throw notFound(`Invoice ${invoiceId}`);
    if (row.amountPaidMinor > BigInt(0)) {
      throw new AppError(
        "conflict",
        `Invoice ${row.number} is partly paid: issue a credit note instead of voiding it`,
        {
          reason: "invoice_partly_paid",
          extensions: { amount_paid_minor: toWire(row.amountPaidMinor), currency: row.currency },
        },
      );
    }
    const next = await transition(
      tx,
      row,
      "void",
      { actor: { kind: "user", id: caller.userId }, correlationId: caller.correlationId, details: { reason } },
      { voidedAt: new Date() },
    );
    return toInvoice(next);
  });
}

/** Marks an open invoice uncollectible (still owed, written off in the books; it can still be paid or voided). Platform owner/admin. */
export async function markUncollectible(
  caller: TCaller,
  workspaceId: string,
  invoiceId: string,
  reason: string,
): Promise<TInvoice> {
  await assertWorkspace(workspaceId);
  return inWallet(workspaceId, async (tx) => {
    const row = await lockInvoice(tx, workspaceId, invoiceId);
    if (!row) throw notFound(`Invoice ${invoiceId}`);
    const next = await transition(
      tx,
      row,
      "mark_uncollectible",
      { actor: { kind: "user", id: caller.userId }, correlationId: caller.correlationId, details: { reason } },
      {
        uncollectibleAt: new Date(),
      },
    );
    return toInvoice(next);
  });
}
