import type { PaymentOrder } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import type { TOrder, TRefund } from "./billing.contract";
import { fromWire, minorToMicros, toWire, type TCurrency } from "./money";
import { createCheckoutSession, refundPayment, stripeConfigured } from "./stripe-gateway";
import { assertWorkspace, inWallet, insertEntries, paidBalance } from "./wallet.service";

export {
  CALLBACK_TOLERANCE_S,
  handleCallback,
  SIGNATURE_HEADER,
  signCallback,
  STRIPE_SIGNATURE_HEADER,
  verifySignature,
  type TCallbackResult,
} from "./callbacks.service";

/**
 * Payments (docs/decisions.md "Billing"): top-up orders through a gateway,
 * gateway callbacks verified by signature (never a bearer), each gateway
 * event seen once, each order credited once (the ledger's unique source),
 * refunds never above what was paid. Gateways: `manual` (an operator
 * confirms a bank transfer) and `stripe` (Checkout Sessions, refunds at Stripe).
 */

type TCaller = { userId: string; correlationId: string };

const INSTRUCTIONS: Record<TOrder["gateway"], string> = {
  manual:
    "Pay by bank transfer quoting the order id; an operator confirms the payment and the wallet is credited then.",
  stripe: "Pay on the Stripe Checkout page at payment_url; the wallet is credited when Stripe confirms the payment.",
};

function toOrder(o: PaymentOrder): TOrder {
  const gateway = o.gateway as TOrder["gateway"];
  return {
    id: o.id,
    workspace_id: o.workspaceId,
    gateway,
    status: o.status as TOrder["status"],
    currency: o.currency as TCurrency,
    amount_minor: toWire(o.amountMinor),
    refunded_minor: toWire(o.refundedMinor),
    payment_url: o.paymentUrl,
    gateway_reference: o.gatewayReference,
    instructions: INSTRUCTIONS[gateway],
    failure_message: o.failureMessage,
    paid_at: isoOrNull(o.paidAt),
    created_at: iso(o.createdAt),
    updated_at: iso(o.updatedAt),
  };
}

/**
 * Starts a top-up. Stripe: the Checkout Session is created first (idempotent
 * at Stripe per order id), then the order is stored with its session id and
 * url, so a gateway failure leaves no order behind (503, retry). Without a
 * `gateway`: stripe where it is configured, else manual.
 */
export async function checkout(
  caller: TCaller,
  workspaceId: string,
  input: { amount_minor: number; currency: TCurrency; gateway?: TOrder["gateway"] },
): Promise<TOrder> {
  const gateway = input.gateway ?? (stripeConfigured() ? "stripe" : "manual");
  const id = newId("pay");
  const amountMinor = fromWire(input.amount_minor);
  const session =
    gateway === "stripe"
      ? await createCheckoutSession({ id, workspaceId, amountMinor, currency: input.currency })
      : null;
  const now = new Date();
  const row = await scopedDb(workspaceId).paymentOrder.create({
    data: {
      id,
      workspaceId,
      gateway,
      currency: input.currency,
      amountMinor,
      gatewayReference: session?.id ?? null,
      paymentUrl: session?.url ?? null,
      createdBy: caller.userId,
      createdAt: now,
      updatedAt: now,
    },
  });
  return toOrder(row);
}

export async function listOrders(workspaceId: string, q: TListQuery): Promise<TPage<TOrder>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).paymentOrder.findMany(args);
  return toPage(rows, q, toOrder);
}

export async function getOrder(workspaceId: string, id: string): Promise<TOrder> {
  const o = await scopedDb(workspaceId).paymentOrder.findUnique({ where: { id } });
  if (!o) throw notFound(`Payment order ${id}`);
  return toOrder(o);
}

// ---------------------------------------------------------------- refunds

export async function refund(
  caller: TCaller,
  workspaceId: string,
  input: { payment_id: string; amount_minor: number; reason?: string },
): Promise<TRefund> {
  await assertWorkspace(workspaceId);
  return inWallet(workspaceId, async (tx) => {
    // Raw SQL is not scoped by the extension: the row lock names the workspace itself.
    const rows = await tx.$queryRaw<
      { id: string }[]
    >`SELECT id FROM payment_orders WHERE id = ${input.payment_id} AND workspace_id = ${workspaceId} FOR UPDATE`;
    const order = rows.length ? await tx.paymentOrder.findUnique({ where: { id: input.payment_id } }) : null;
    if (!order) {
      throw new AppError("validation_failed", `${input.payment_id} is not a payment of workspace ${workspaceId}`, {
        errors: [{ path: "/payment_id", message: "is not a payment of this workspace" }],
      });
    }
    if (order.status !== "succeeded")
      throw new AppError(
        "conflict",
        `payment ${order.id} is ${order.status}: only a succeeded payment can be refunded`,
        { reason: "payment_not_succeeded" },
      );
    const amount = fromWire(input.amount_minor);
    const refundable = order.amountMinor - order.refundedMinor;
    if (amount > refundable) {
      throw new AppError(
        "conflict",
        `a refund of ${amount} exceeds what is left of payment ${order.id} (${refundable} ${order.currency} of ${order.amountMinor})`,
        {
          reason: "refund_exceeds_payment",
          extensions: { refundable_minor: toWire(refundable), currency: order.currency },
        },
      );
    }
    const cur = order.currency as TCurrency;
    const micros = minorToMicros(amount, cur);
    const paid = await paidBalance(tx, workspaceId, cur);
    if (micros > paid) {
      throw new AppError(
        "conflict",
        `the wallet's paid balance (${paid} micros ${cur}) does not cover a refund of ${amount} minor units: spent money is not refunded`,
        {
          reason: "insufficient_balance",
          extensions: { paid_balance_micros: toWire(paid), currency: cur },
        },
      );
    }
    const now = new Date();
    const id = newId("rfd");
    // Stripe orders are refunded at Stripe first (the order row stays locked meanwhile); a gateway failure writes nothing.
    let gatewayReference: string | null = null;
    if (order.gateway === "stripe") {
      if (!order.gatewayPaymentRef)
        throw new AppError("conflict", `payment ${order.id} has no Stripe PaymentIntent to refund`, {
          reason: "payment_not_refundable",
        });
      gatewayReference = (
        await refundPayment(order.gatewayPaymentRef, amount, `refund-${order.id}-${order.refundedMinor}-${amount}`)
      ).id;
    }
    await tx.paymentRefund.create({
      data: {
        id,
        workspaceId,
        orderId: order.id,
        currency: cur,
        amountMinor: amount,
        reason: input.reason ?? null,
        gatewayReference,
        createdBy: caller.userId,
        createdAt: now,
      },
    });
    await tx.paymentOrder.update({
      where: { id: order.id },
      data: { refundedMinor: order.refundedMinor + amount, updatedAt: now },
    });
    await insertEntries(
      tx,
      workspaceId,
      cur,
      { kind: "refund", id },
      [{ kind: "refund", amount: -micros, grantId: null }],
      now,
    );
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "billing.refunded",
      target: { kind: "refund", id },
      correlationId: caller.correlationId,
      details: {
        payment_id: order.id,
        amount_minor: input.amount_minor,
        currency: cur,
        reason: input.reason ?? null,
        gateway: order.gateway,
        gateway_reference: gatewayReference,
      },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "payment.refunded",
      correlationId: caller.correlationId,
      subject: id,
      data: {
        refund_id: id,
        payment_id: order.id,
        amount_minor: input.amount_minor,
        refunded_minor: toWire(order.refundedMinor + amount),
        payment_amount_minor: toWire(order.amountMinor),
        currency: cur,
        reason: input.reason ?? null,
        gateway: order.gateway,
        gateway_reference: gatewayReference,
      },
    });
    return {
      id,
      workspace_id: workspaceId,
      payment_id: order.id,
      currency: cur,
      amount_minor: input.amount_minor,
      reason: input.reason ?? null,
      gateway_reference: gatewayReference,
      created_at: iso(now),
    };
  });
}
