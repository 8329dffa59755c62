import type { Invoice, Prisma } from "@/generated/prisma/client";
import { writeAudit, type TActor, type TAuditAction } from "@/server/platform/audit";
import { env } from "@/server/platform/env";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent, type TEventType } from "@/server/platform/outbox";
import { iso } from "@/server/platform/time";
import { CURRENCIES, divRoundHalfUp, toWire, type TCurrency, remainingMinor } from "./money";
import { resolveIn } from "./collection/dunning.service";
import { INVOICE, type TInvoiceEvent, type TInvoiceStatus } from "./invoices.states";
import { insertEntries, paidBalance } from "./wallet.service";

/**
 * Invoices as receivables (issue #36 item 2; docs/decisions.md "Billing:
 * invoices as receivables"). The one writer of an invoice's `status`: each
 * change goes through the transition table (invoices.states.ts) inside the
 * caller's transaction, with its audit record and its billing event.
 */

type TTx = Prisma.TransactionClient;
const ZERO = BigInt(0);
const DAY_MS = 86_400_000;
export const DEFAULT_PAYMENT_TERMS_DAYS = 14;

const AUDIT: Record<Exclude<TInvoiceEvent, "create">, TAuditAction> = {
  finalize: "billing.invoice_issued",
  pay: "billing.payment_succeeded",
  void: "billing.adjusted",
  mark_uncollectible: "billing.adjusted",
};
const EVENT: Partial<Record<TInvoiceEvent, TEventType>> = {
  finalize: "invoice.issued",
  pay: "invoice.paid",
  void: "invoice.voided",
};

export type TTransitionCtx = { actor: TActor; correlationId: string; details?: Record<string, unknown> };

/** The money part of every invoice event and audit: integers, each with the currency. */
export function invoiceMoney(i: Invoice): Record<string, unknown> {
  return {
    invoice_id: i.id,
    number: i.number,
    status: i.status,
    month: i.month,
    currency: i.currency,
    total_minor: toWire(i.totalMinor),
    amount_due_minor: toWire(i.amountDueMinor),
    amount_paid_minor: toWire(i.amountPaidMinor),
    credited_minor: toWire(i.creditedMinor),
    amount_remaining_minor: toWire(remainingMinor(i)),
    due_at: i.dueAt ? iso(i.dueAt) : null,
  };
}

/** Applies `event` to the invoice (row as read under its lock): status + `data` in one conditional update, audit, event. */
export async function transition(
  tx: TTx,
  row: Invoice,
  event: Exclude<TInvoiceEvent, "create">,
  ctx: TTransitionCtx,
  data: Prisma.InvoiceUpdateInput = {},
): Promise<Invoice> {
  const to = INVOICE.next(row.status as TInvoiceStatus, event);
  const moved = await tx.invoice.updateMany({
    where: { id: row.id, status: row.status },
    data: { ...data, status: to },
  });
  if (moved.count !== 1)
    throw new AppError("conflict", `Invoice ${row.id} changed meanwhile`, { reason: "concurrent_change" });
  const next = await tx.invoice.findFirstOrThrow({ where: { id: row.id } });
  await writeAudit(tx, {
    workspaceId: row.workspaceId,
    actor: ctx.actor,
    action: AUDIT[event],
    target: { kind: "invoice", id: row.id },
    correlationId: ctx.correlationId,
    details: { event, from: row.status, to, ...invoiceMoney(next), ...ctx.details },
  });
  const type = EVENT[event];
  if (type)
    await emitEvent(tx, {
      workspaceId: row.workspaceId,
      type,
      correlationId: ctx.correlationId,
      subject: row.id,
      data: { ...invoiceMoney(next), ...ctx.details },
    });
  // Paid or voided: its dunning ends and the workspace's standing is recomputed (lifted) in this transaction.
  if (event === "pay" || event === "void") await resolveIn(tx, next, ctx.correlationId);
  return next;
}

/** Reads an invoice of the workspace with its row locked (the transaction's raw SQL names the workspace itself). */
export async function lockInvoice(tx: TTx, workspaceId: string, id: string): Promise<Invoice | null> {
  const rows = await tx.$queryRaw<
    { id: string }[]
  >`SELECT id FROM invoices WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`;
  return rows.length ? tx.invoice.findFirst({ where: { id } }) : null;
}

/**
 * The next number of an issuer, gap-free: one statement whose row lock is held
 * until the finalizing transaction ends, so a rolled-back finalization gives
 * its number back and parallel closes take turns.
 */
export async function nextNumber(tx: TTx, issuer: string): Promise<string> {
  const [row] = await tx.$queryRaw<{ n: bigint }[]>`
    INSERT INTO invoice_number_sequences (issuer, last_number) VALUES (${issuer}, 1)
    ON CONFLICT (issuer) DO UPDATE SET last_number = invoice_number_sequences.last_number + 1 RETURNING last_number AS n`;
  return `${issuer}-${String(row!.n).padStart(6, "0")}`;
}

/**
 * Finalizes a draft at month close (`tx`: the workspace's wallet transaction):
 * the debt the month's usage left on the wallet moves onto the invoice (an
 * `invoice_transfer` entry brings the paid balance back up by it, so a debt is
 * in exactly one place), amount due = subscription fee + that debt, a number,
 * a due date from the billing profile's terms. Nothing due: paid at once.
 */
export async function finalizeIn(tx: TTx, draft: Invoice, now: Date): Promise<Invoice> {
  const currency = draft.currency as TCurrency;
  const microsPerMinor = BigInt(10) ** BigInt(6 - CURRENCIES[currency]);
  const balance = await paidBalance(tx, draft.workspaceId, currency);
  const fromPaidBucket = draft.usageMicros - draft.grantedMicros;
  const debt = balance < ZERO ? -balance : ZERO;
  const transfer = fromPaidBucket > ZERO ? (debt < fromPaidBucket ? debt : fromPaidBucket) : ZERO;
  const debtMinor = divRoundHalfUp(transfer, microsPerMinor);
  if (transfer > ZERO) {
    await insertEntries(
      tx,
      draft.workspaceId,
      currency,
      { kind: "invoice", id: draft.id },
      [{ kind: "invoice_transfer", amount: transfer, grantId: null }],
      now,
    );
  }
  // A cancellation's credit larger than the fees and debt (a negative amount due): nothing is due, the excess goes to the wallet's paid balance.
  let due = draft.subscriptionMinor + debtMinor;
  if (due < ZERO) {
    await insertEntries(
      tx,
      draft.workspaceId,
      currency,
      { kind: "invoice_credit", id: draft.id },
      [{ kind: "adjustment", amount: -due * microsPerMinor, grantId: null }],
      now,
    );
    due = ZERO;
  }
  const profile = await tx.billingProfile.findFirst({ select: { paymentTermsDays: true } });
  const terms = profile?.paymentTermsDays ?? DEFAULT_PAYMENT_TERMS_DAYS;
  const ctx = { actor: { kind: "system" as const, id: null }, correlationId: newId("evt") };
  const open = await transition(
    tx,
    draft,
    "finalize",
    { ...ctx, details: { payment_terms_days: terms, debt_transferred_micros: toWire(transfer) } },
    {
      number: await nextNumber(tx, env().CAPSTAN_INVOICE_ISSUER),
      debtMinor,
      amountDueMinor: due,
      finalizedAt: now,
      dueAt: new Date(now.getTime() + terms * DAY_MS),
    },
  );
  if (remainingMinor(open) > ZERO) return open;
  return transition(tx, open, "pay", { ...ctx, details: { method: "none", amount_minor: 0 } }, { paidAt: now });
}
