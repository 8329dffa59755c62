import type { Invoice } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { env } from "@/server/platform/env";
import { notFound } from "@/server/platform/errors";
import { emitEvent } from "@/server/platform/outbox";
import { iso } from "@/server/platform/time";
import { invoiceMoney, lockInvoice, transition } from "../invoice-lifecycle.service";
import { minorToMicros, toWire, type TCurrency, remainingMinor } from "../money";
import { creditPaid, inWallet } from "../wallet.service";
import type { TCollection } from "./collection.contract";
import { onCollectionFailed, standingChanged, type TDunningMail } from "./dunning.service";
import { sendDunningMail } from "./dunning-mail";
import { expireCheckout, type TChargeOutcome } from "./stripe-collection";
import { toCollection, type TTx, type TWho } from "./collection-rules";

/**
 * Applies a gateway outcome to a collection once (its status moves only from
 * processing, requires_action or open). Success pays the invoice (what exceeds
 * what is left, or all of it when the invoice was paid another way meanwhile,
 * is credited to the wallet's paid balance: money received is never lost);
 * failure is audited, evented and, for automatic collections, a dunning step.
 * `eventId`: the Stripe event applied (stored once in payment_events, in this transaction).
 */
export async function applyOutcome(
  who: TWho,
  workspaceId: string,
  collectionId: string,
  outcome: TChargeOutcome,
  eventId: { id: string; type: string } | null,
): Promise<TCollection & { duplicate?: boolean }> {
  let mail: TDunningMail | null = null;
  let changed = false;
  let expire: string | null = null;
  const result = await inWallet(workspaceId, async (tx) => {
    const found = await tx.invoiceCollection.findFirst({ where: { id: collectionId } });
    if (!found) throw notFound(`Collection ${collectionId}`);
    const row = (await lockInvoice(tx, workspaceId, found.invoiceId))!;
    const col = (await tx.invoiceCollection.findFirst({ where: { id: collectionId } }))!;
    if (eventId) {
      // payment_events is platform-global (keyed by the gateway's event id): raw SQL.
      const seen = await tx.$queryRaw<{ event_id: string }[]>`
        INSERT INTO payment_events (gateway, event_id, order_id, type) VALUES ('stripe', ${eventId.id}, ${col.id}, ${eventId.type})
        ON CONFLICT (gateway, event_id) DO NOTHING RETURNING event_id`;
      if (!seen.length) return { ...toCollection(col), duplicate: true };
    }
    if (!["processing", "requires_action", "open"].includes(col.status)) return toCollection(col);
    const now = new Date();
    const currency = col.currency as TCurrency;
    if (outcome.status === "succeeded") {
      const remaining = payableNow(row) ? remainingMinor(row) : BigInt(0);
      const applied = remaining < col.amountMinor ? remaining : col.amountMinor;
      const excess = col.amountMinor - applied;
      // A checkout keeps its Checkout Session id (what its callbacks name); the PaymentIntent is in the audit and the event.
      const next = await tx.invoiceCollection.update({
        where: { id: col.id },
        data: {
          status: "succeeded",
          gatewayReference: col.method === "card" ? outcome.intent : col.gatewayReference,
          actionUrl: null,
          failureCode: null,
          failureMessage: null,
          appliedTo: applied > BigInt(0) ? "invoice" : "wallet",
          updatedAt: now,
        },
      });
      if (excess > BigInt(0))
        await creditPaid(tx, workspaceId, currency, minorToMicros(excess, currency), {
          kind: "invoice_collection",
          id: col.id,
        });
      const details = {
        method: col.method,
        collection_id: col.id,
        gateway: "stripe",
        payment_intent: outcome.intent,
        amount_minor: toWire(applied),
        credited_to_wallet_minor: toWire(excess),
      };
      if (applied > BigInt(0)) {
        // A checkout link still open for this invoice is closed: the invoice is paid.
        const open = await tx.invoiceCollection.findFirst({
          where: { invoiceId: row.id, method: "checkout", status: "open", id: { not: col.id } },
        });
        if (open) {
          await tx.invoiceCollection.update({
            where: { id: open.id },
            data: { status: "expired", actionUrl: null, updatedAt: now },
          });
          expire = open.gatewayReference;
        }
        await transition(
          tx,
          row,
          "pay",
          { actor: who.actor, correlationId: who.correlationId, details },
          { amountPaidMinor: row.amountPaidMinor + applied, paidAt: now },
        );
        changed = true;
      } else {
        await writeAudit(tx, {
          workspaceId,
          actor: who.actor,
          action: "billing.payment_succeeded",
          target: { kind: "invoice_collection", id: col.id },
          correlationId: who.correlationId,
          details: {
            ...details,
            invoice_status: row.status,
            note: "the invoice was already settled: the payment was credited to the wallet",
          },
        });
      }
      await emitEvent(tx, {
        workspaceId,
        type: "payment.succeeded",
        correlationId: who.correlationId,
        subject: col.id,
        data: {
          payment_id: col.id,
          kind: "invoice",
          invoice_id: row.id,
          number: row.number,
          method: col.method,
          gateway: "stripe",
          gateway_reference: outcome.intent,
          amount_minor: toWire(col.amountMinor),
          applied_to_invoice_minor: toWire(applied),
          credited_to_wallet_minor: toWire(excess),
          currency,
        },
      });
      return toCollection(next);
    }
    const code = outcome.status === "requires_action" ? "authentication_required" : outcome.code;
    // 3-D Secure: the page Stripe names, else the invoice's page in the console (Pay now, checkout link).
    const actionUrl =
      outcome.status === "requires_action"
        ? (outcome.actionUrl ?? `${env().CAPSTAN_PUBLIC_URL}/console/w/${workspaceId}/billing/invoices/${row.id}`)
        : null;
    const next = await tx.invoiceCollection.update({
      where: { id: col.id },
      data: {
        status: outcome.status === "requires_action" ? "requires_action" : code === "expired" ? "expired" : "failed",
        gatewayReference: col.method === "card" ? (outcome.intent ?? col.gatewayReference) : col.gatewayReference,
        failureCode: code,
        failureMessage: outcome.message,
        actionUrl,
        updatedAt: now,
      },
    });
    if (code === "expired") return toCollection(next);
    let nextAttemptAt: Date | null = null;
    if (col.trigger !== "owner" && payableNow(row)) {
      const step = await onCollectionFailed(
        tx,
        row,
        await billingNowIn(tx, now),
        { code, message: outcome.message, actionUrl },
        who.correlationId,
      );
      mail = step.mail;
      nextAttemptAt = step.nextAttemptAt;
      changed = step.standingChanged;
    }
    const why = {
      method: col.method,
      trigger: col.trigger,
      attempt: col.attempt,
      collection_id: col.id,
      failure_code: code,
      message: outcome.message,
      action_url: actionUrl,
      next_attempt_at: nextAttemptAt ? iso(nextAttemptAt) : null,
    };
    await writeAudit(tx, {
      workspaceId,
      actor: who.actor,
      action: "billing.payment_failed",
      target: { kind: "invoice", id: row.id },
      correlationId: who.correlationId,
      details: { ...invoiceMoney(row), ...why },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "invoice.payment_failed",
      correlationId: who.correlationId,
      subject: row.id,
      data: { ...invoiceMoney(row), ...why },
    });
    return toCollection(next);
  });
  if (mail) await sendDunningMail(mail);
  if (changed) standingChanged(workspaceId);
  if (expire) await expireCheckout(expire);
  return result;
}

function payableNow(row: Invoice): boolean {
  return (row.status === "open" || row.status === "uncollectible") && remainingMinor(row) > BigInt(0);
}

async function billingNowIn(tx: TTx, wall: Date): Promise<Date> {
  return (await tx.billingTestClock.findFirst({ select: { frozenTime: true } }))?.frozenTime ?? wall;
}
