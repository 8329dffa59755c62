import type { BillingAccount, PaymentOrder } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { isoOrNull } from "@/server/platform/time";
import { CURRENCIES, fromWire, minorToMicros, toWire, type TCurrency } from "../money";
import { assertWorkspace, creditPaid, inWallet } from "../wallet.service";
import type { TAutoTopUp } from "./collection.contract";
import { account, defaultMethod } from "./payment-methods.service";
import { chargeOffSession, type TChargeOutcome } from "./stripe-collection";

/**
 * Automatic top-up and the low-balance signal (issue #36 items 3, 6;
 * docs/decisions.md "Collection and dunning"). The owner sets a
 * threshold and an amount in one currency; when the wallet's available
 * balance (paid + granted − held) falls below the threshold, wallet.low_balance
 * is emitted once (again only after the balance was back above) and, when
 * enabled, one off-session charge of the default card tops the wallet up. The
 * charge is claimed first: an `auto_top_up` order `pending`, at most one per
 * workspace (unique partial index), so concurrent workers never charge twice.
 */

type TCaller = { userId: string; correlationId: string };
const RETRY_AFTER_FAILURE_MS = 3_600_000;
const SYSTEM = { kind: "system" as const, id: null };

function toSettings(a: BillingAccount): TAutoTopUp {
  return {
    workspace_id: a.workspaceId,
    enabled: a.autoTopUpEnabled,
    currency: a.autoTopUpCurrency as TCurrency | null,
    threshold_minor: a.autoTopUpThresholdMinor === null ? null : toWire(a.autoTopUpThresholdMinor),
    amount_minor: a.autoTopUpAmountMinor === null ? null : toWire(a.autoTopUpAmountMinor),
    low_balance_since: isoOrNull(a.lowBalanceAt),
  };
}

export async function getAutoTopUp(workspaceId: string): Promise<TAutoTopUp> {
  await assertWorkspace(workspaceId);
  return toSettings(await account(workspaceId));
}

export async function putAutoTopUp(
  caller: TCaller,
  workspaceId: string,
  input: { enabled: boolean; currency: TCurrency; threshold_minor: number; amount_minor: number },
): Promise<TAutoTopUp> {
  await assertWorkspace(workspaceId);
  await account(workspaceId);
  return scopedDb(workspaceId).$transaction(async (tx) => {
    if (input.enabled && !(await defaultMethod(tx))) {
      throw new AppError(
        "conflict",
        "Automatic top-up charges the default saved card: add a card on the Billing page first",
        { reason: "no_payment_method" },
      );
    }
    const before = (await tx.billingAccount.findFirst())!;
    const row = await tx.billingAccount.update({
      where: { workspaceId },
      data: {
        autoTopUpEnabled: input.enabled,
        autoTopUpCurrency: input.currency,
        autoTopUpThresholdMinor: fromWire(input.threshold_minor),
        autoTopUpAmountMinor: fromWire(input.amount_minor),
        // A new threshold is judged afresh: the low-balance signal fires again if the balance is under it.
        lowBalanceAt: null,
        updatedBy: caller.userId,
        updatedAt: new Date(),
      },
    });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "billing.profile_changed",
      target: { kind: "auto_top_up", id: workspaceId },
      correlationId: caller.correlationId,
      details: { auto_top_up: { from: toSettings(before), to: toSettings(row) } },
    });
    return toSettings(row);
  });
}

/** One workspace's check (worker): the low-balance signal and, when due, the claim of one top-up; then the charge. */
export async function checkWorkspace(workspaceId: string): Promise<"charged" | "failed" | "low" | "ok" | "skipped"> {
  const correlationId = newId("evt");
  const claim = await inWallet(workspaceId, async (tx) => {
    const acc = await tx.billingAccount.findFirst();
    if (!acc?.autoTopUpCurrency || acc.autoTopUpThresholdMinor === null) return null;
    const currency = acc.autoTopUpCurrency as TCurrency;
    const bal = await tx.walletBalance.findFirst({ where: { currency } });
    const available = (bal?.balanceMicros ?? BigInt(0)) - (bal?.heldMicros ?? BigInt(0));
    const threshold = minorToMicros(acc.autoTopUpThresholdMinor, currency);
    const now = new Date();
    if (available >= threshold) {
      if (acc.lowBalanceAt) await tx.billingAccount.updateMany({ where: {}, data: { lowBalanceAt: null } });
      return null;
    }
    if (!acc.lowBalanceAt) {
      await tx.billingAccount.updateMany({ where: {}, data: { lowBalanceAt: now } });
      await emitEvent(tx, {
        workspaceId,
        type: "wallet.low_balance",
        correlationId,
        subject: workspaceId,
        data: {
          currency,
          available_micros: toWire(available),
          available_minor: toWire(available / BigInt(10) ** BigInt(6 - CURRENCIES[currency])),
          threshold_minor: toWire(acc.autoTopUpThresholdMinor),
          auto_top_up: acc.autoTopUpEnabled,
          auto_top_up_amount_minor: acc.autoTopUpAmountMinor === null ? null : toWire(acc.autoTopUpAmountMinor),
        },
      });
    }
    if (!acc.autoTopUpEnabled || !acc.autoTopUpAmountMinor) return "low" as const;
    const pm = await defaultMethod(tx);
    if (!pm) return "low" as const;
    const recent = await tx.paymentOrder.findFirst({
      where: {
        kind: "auto_top_up",
        OR: [
          { status: "pending" },
          { status: "failed", updatedAt: { gt: new Date(now.getTime() - RETRY_AFTER_FAILURE_MS) } },
        ],
      },
      select: { id: true },
    });
    if (recent) return "low" as const;
    const order = await tx.paymentOrder.create({
      data: {
        id: newId("pay"),
        workspaceId,
        gateway: "stripe",
        kind: "auto_top_up",
        currency,
        amountMinor: acc.autoTopUpAmountMinor,
        paymentMethodId: pm.method.id,
        createdBy: "system",
        createdAt: now,
        updatedAt: now,
      },
    });
    return { order, customer: pm.customer, pm: pm.method.gatewayReference };
  }).catch((err: unknown) => {
    if ((err as { code?: string }).code === "P2002") return "low" as const; // another worker claimed it
    throw err;
  });
  if (claim === null) return "ok";
  if (claim === "low") return "low";
  return chargeOrder(claim.order, claim.customer, claim.pm, correlationId);
}

/** Sends (or re-sends, same key) the claimed top-up charge and applies its outcome. */
export async function chargeOrder(
  order: PaymentOrder,
  customer: string,
  pm: string,
  correlationId: string,
): Promise<"charged" | "failed"> {
  const outcome = await chargeOffSession({
    customer,
    paymentMethod: pm,
    amountMinor: order.amountMinor,
    currency: order.currency as TCurrency,
    idempotencyKey: `auto-top-up-${order.id}`,
    description: "Capstan wallet automatic top-up",
    metadata: { order_id: order.id, workspace_id: order.workspaceId, kind: "auto_top_up" },
  });
  return (await applyTopUpOutcome(order.workspaceId, order.id, outcome, correlationId, null)) === "succeeded"
    ? "charged"
    : "failed";
}

/** Applies a top-up charge's outcome once (the answer, or Stripe's callback); a success after a failure still credits (the money arrived). */
export async function applyTopUpOutcome(
  workspaceId: string,
  orderId: string,
  outcome: TChargeOutcome,
  correlationId: string,
  eventId: { id: string; type: string } | null,
): Promise<string> {
  return inWallet(workspaceId, async (tx) => {
    const rows = await tx.$queryRaw<
      { id: string }[]
    >`SELECT id FROM payment_orders WHERE id = ${orderId} AND workspace_id = ${workspaceId} FOR UPDATE`;
    if (!rows.length) return "missing";
    const order = (await tx.paymentOrder.findFirst({ where: { id: orderId } }))!;
    if (eventId) {
      const seen = await tx.$queryRaw<{ event_id: string }[]>`
        INSERT INTO payment_events (gateway, event_id, order_id, type) VALUES ('stripe', ${eventId.id}, ${order.id}, ${eventId.type})
        ON CONFLICT (gateway, event_id) DO NOTHING RETURNING event_id`;
      if (!seen.length) return order.status;
    }
    if (order.status === "succeeded") return order.status;
    const now = new Date();
    const currency = order.currency as TCurrency;
    if (outcome.status === "succeeded") {
      await tx.paymentOrder.update({
        where: { id: order.id },
        data: {
          status: "succeeded",
          paidAt: now,
          failureMessage: null,
          gatewayPaymentRef: outcome.intent,
          gatewayReference: order.gatewayReference ?? outcome.intent,
          updatedAt: now,
        },
      });
      await creditPaid(tx, workspaceId, currency, minorToMicros(order.amountMinor, currency), {
        kind: "payment_order",
        id: order.id,
      });
      await writeAudit(tx, {
        workspaceId,
        actor: SYSTEM,
        action: "billing.payment_succeeded",
        target: { kind: "payment_order", id: order.id },
        correlationId,
        details: {
          gateway: "stripe",
          kind: "auto_top_up",
          payment_intent: outcome.intent,
          amount_minor: toWire(order.amountMinor),
          currency,
          previous_status: order.status,
        },
      });
      await emitEvent(tx, {
        workspaceId,
        type: "payment.succeeded",
        correlationId,
        subject: order.id,
        data: {
          payment_id: order.id,
          kind: "auto_top_up",
          gateway: "stripe",
          gateway_reference: outcome.intent,
          amount_minor: toWire(order.amountMinor),
          currency,
        },
      });
      return "succeeded";
    }
    if (order.status !== "pending") return order.status;
    const message =
      outcome.status === "requires_action"
        ? "the card requires authentication (3-D Secure), which an automatic top-up cannot ask for"
        : outcome.message;
    await tx.paymentOrder.update({
      where: { id: order.id },
      data: {
        status: "failed",
        failureMessage: message,
        ...(outcome.intent
          ? { gatewayPaymentRef: outcome.intent, gatewayReference: order.gatewayReference ?? outcome.intent }
          : {}),
        updatedAt: now,
      },
    });
    await writeAudit(tx, {
      workspaceId,
      actor: SYSTEM,
      action: "billing.payment_failed",
      target: { kind: "payment_order", id: order.id },
      correlationId,
      details: {
        gateway: "stripe",
        kind: "auto_top_up",
        payment_intent: outcome.intent,
        amount_minor: toWire(order.amountMinor),
        currency,
        message,
        failure_code: outcome.status === "failed" ? outcome.code : "authentication_required",
      },
    });
    return "failed";
  });
}
