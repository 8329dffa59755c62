import { createHmac, timingSafeEqual } from "node:crypto";
import type { PaymentOrder } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { parseJsonBody } from "@/server/platform/body";
import { db } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { AppError, notFound, zodIssuesToErrors } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import { ZManualCallback, type TOrder, type TRefund } from "./billing.contract";
import { fromWire, minorToMicros, toWire, type TCurrency } from "./money";
import { assertWorkspace, creditPaid, inWallet, insertEntries, paidBalance } from "./wallet.service";

/**
 * Payments (docs/decisions.md "Billing"): top-up orders through a gateway,
 * gateway callbacks verified by signature (never a bearer), each gateway
 * event seen once, each order credited once (the ledger's unique source),
 * refunds never above what was paid. Gateways: `manual` (Stripe is not built:
 * its SDK is not installed here).
 */

type TCaller = { userId: string; correlationId: string };
/** Stripe's default webhook tolerance, applied to every gateway. */
export const CALLBACK_TOLERANCE_S = 300;
export const SIGNATURE_HEADER = "capstan-signature";

const MANUAL_INSTRUCTIONS = "Pay by bank transfer quoting the order id; an operator confirms the payment and the wallet is credited then.";

function toOrder(o: PaymentOrder): TOrder {
  return {
    id: o.id, workspace_id: o.workspaceId, gateway: o.gateway as TOrder["gateway"], status: o.status as TOrder["status"],
    currency: o.currency as TCurrency, amount_minor: toWire(o.amountMinor), refunded_minor: toWire(o.refundedMinor),
    payment_url: null, instructions: MANUAL_INSTRUCTIONS, failure_message: o.failureMessage, paid_at: isoOrNull(o.paidAt),
    created_at: iso(o.createdAt), updated_at: iso(o.updatedAt),
  };
}

export async function checkout(caller: TCaller, workspaceId: string, input: { amount_minor: number; currency: TCurrency; gateway: "manual" }): Promise<TOrder> {
  const now = new Date();
  const row = await db().paymentOrder.create({
    data: {
      id: newId("pay"), workspaceId, gateway: input.gateway, currency: input.currency, amountMinor: fromWire(input.amount_minor),
      createdBy: caller.userId, createdAt: now, updatedAt: now,
    },
  });
  return toOrder(row);
}

export async function listOrders(workspaceId: string, q: TListQuery): Promise<TPage<TOrder>> {
  const args = keysetArgs(q);
  const rows = await db().paymentOrder.findMany({ ...args, where: { ...args.where, workspaceId } });
  return toPage(rows, q, toOrder);
}

export async function getOrder(workspaceId: string, id: string): Promise<TOrder> {
  const o = await db().paymentOrder.findUnique({ where: { id } });
  if (!o || o.workspaceId !== workspaceId) throw notFound(`Payment order ${id}`);
  return toOrder(o);
}

// ---------------------------------------------------------------- callbacks

const unauthenticated = (detail: string, reason: string) =>
  new AppError("unauthenticated", detail, { reason, headers: { "www-authenticate": `CapstanSignature realm="payments"` } });

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>` (Stripe's scheme). */
export function signCallback(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
}

export function verifySignature(secret: string, body: string, header: string | null, nowS = Math.floor(Date.now() / 1000)): void {
  if (!header) throw unauthenticated("the callback carries no Capstan-Signature header", "signature_missing");
  const parts = new Map<string, string[]>();
  for (const kv of header.split(",")) {
    const i = kv.indexOf("=");
    if (i <= 0) continue;
    const k = kv.slice(0, i).trim();
    parts.set(k, [...(parts.get(k) ?? []), kv.slice(i + 1).trim()]);
  }
  const t = Number(parts.get("t")?.[0]);
  if (!Number.isSafeInteger(t)) throw unauthenticated("the Capstan-Signature header has no timestamp", "signature_invalid");
  if (Math.abs(nowS - t) > CALLBACK_TOLERANCE_S) {
    throw unauthenticated(`the callback's timestamp is more than ${CALLBACK_TOLERANCE_S} s away from now (stale or replayed)`, "signature_stale");
  }
  const want = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  const ok = (parts.get("v1") ?? []).some((hex) => /^[0-9a-f]{64}$/.test(hex) && timingSafeEqual(Buffer.from(hex, "hex"), want));
  if (!ok) throw unauthenticated("the callback's signature does not match", "signature_invalid");
}

export type TCallbackResult = { received: true; duplicate: boolean; order_id: string; order_status: TOrder["status"] };

/** POST /v1/payments/callbacks/{gateway}: verified, at most once per gateway event id. */
export async function handleCallback(
  gateway: string, rawBody: string, headers: { signature: string | null; contentType: string | null }, correlationId: string,
): Promise<TCallbackResult> {
  if (gateway !== "manual") throw notFound(`Payment gateway ${gateway}`);
  const secret = env().CAPSTAN_MANUAL_GATEWAY_SECRET;
  if (!secret) throw notFound("Payment gateway manual (not configured: CAPSTAN_MANUAL_GATEWAY_SECRET is unset)");
  verifySignature(secret, rawBody, headers.signature);
  const contentType = headers.contentType;
  const r = ZManualCallback.safeParse(parseJsonBody(rawBody, contentType));
  if (!r.success) throw new AppError("validation_failed", "the callback body is not a payment event", { errors: zodIssuesToErrors(r.error.issues) });
  const ev = r.data;
  const order = await db().paymentOrder.findUnique({ where: { id: ev.order_id } });
  if (!order || order.gateway !== gateway) throw notFound(`Payment order ${ev.order_id}`);
  if (order.currency !== ev.currency || order.amountMinor !== fromWire(ev.amount_minor)) {
    throw new AppError("validation_failed", `the event's amount ${ev.amount_minor} ${ev.currency} is not the order's ${order.amountMinor} ${order.currency}`, {
      reason: "amount_mismatch", errors: [{ path: "/amount_minor", message: "does not match the order" }],
    });
  }
  return inWallet(order.workspaceId, async (tx) => {
    const seen = await tx.$queryRaw<{ event_id: string }[]>`
      INSERT INTO payment_events (gateway, event_id, order_id, type) VALUES (${gateway}, ${ev.id}, ${order.id}, ${ev.type})
      ON CONFLICT (gateway, event_id) DO NOTHING RETURNING event_id`;
    const current = await tx.paymentOrder.findUniqueOrThrow({ where: { id: order.id } });
    if (!seen.length) return { received: true as const, duplicate: true, order_id: order.id, order_status: current.status as TOrder["status"] };
    const now = new Date();
    const actor = { kind: "system" as const, id: null };
    if (ev.type === "payment.succeeded" && current.status !== "succeeded") {
      // A late success after a failure still credits: the money arrived. The ledger's unique source makes it once.
      await tx.paymentOrder.update({ where: { id: order.id }, data: { status: "succeeded", paidAt: now, failureMessage: null, updatedAt: now } });
      await creditPaid(tx, order.workspaceId, order.currency as TCurrency, minorToMicros(order.amountMinor, order.currency as TCurrency), { kind: "payment_order", id: order.id });
      await writeAudit(tx, {
        workspaceId: order.workspaceId, actor, action: "billing.payment_succeeded", target: { kind: "payment_order", id: order.id }, correlationId,
        details: { gateway, event_id: ev.id, amount_minor: ev.amount_minor, currency: ev.currency, previous_status: current.status },
      });
      return { received: true as const, duplicate: false, order_id: order.id, order_status: "succeeded" as const };
    }
    if (ev.type === "payment.failed" && current.status === "pending") {
      await tx.paymentOrder.update({ where: { id: order.id }, data: { status: "failed", failureMessage: ev.message ?? "the gateway reported a failed payment", updatedAt: now } });
      await writeAudit(tx, {
        workspaceId: order.workspaceId, actor, action: "billing.payment_failed", target: { kind: "payment_order", id: order.id }, correlationId,
        details: { gateway, event_id: ev.id, amount_minor: ev.amount_minor, currency: ev.currency, message: ev.message ?? null },
      });
      return { received: true as const, duplicate: false, order_id: order.id, order_status: "failed" as const };
    }
    // Out of order (a failure after a success, a second success): recorded as seen, changes nothing.
    return { received: true as const, duplicate: false, order_id: order.id, order_status: current.status as TOrder["status"] };
  });
}

// ---------------------------------------------------------------- refunds

export async function refund(caller: TCaller, workspaceId: string, input: { payment_id: string; amount_minor: number; reason?: string }): Promise<TRefund> {
  await assertWorkspace(workspaceId);
  return inWallet(workspaceId, async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM payment_orders WHERE id = ${input.payment_id} AND workspace_id = ${workspaceId} FOR UPDATE`;
    const order = rows.length ? await tx.paymentOrder.findUnique({ where: { id: input.payment_id } }) : null;
    if (!order) {
      throw new AppError("validation_failed", `${input.payment_id} is not a payment of workspace ${workspaceId}`, { errors: [{ path: "/payment_id", message: "is not a payment of this workspace" }] });
    }
    if (order.status !== "succeeded") throw new AppError("conflict", `payment ${order.id} is ${order.status}: only a succeeded payment can be refunded`, { reason: "payment_not_succeeded" });
    const amount = fromWire(input.amount_minor);
    const refundable = order.amountMinor - order.refundedMinor;
    if (amount > refundable) {
      throw new AppError("conflict", `a refund of ${amount} exceeds what is left of payment ${order.id} (${refundable} ${order.currency} of ${order.amountMinor})`, {
        reason: "refund_exceeds_payment", extensions: { refundable_minor: toWire(refundable) },
      });
    }
    const cur = order.currency as TCurrency;
    const micros = minorToMicros(amount, cur);
    const paid = await paidBalance(tx, workspaceId, cur);
    if (micros > paid) {
      throw new AppError("conflict", `the wallet's paid balance (${paid} micros ${cur}) does not cover a refund of ${amount} minor units: spent money is not refunded`, {
        reason: "insufficient_balance",
      });
    }
    const now = new Date();
    const id = newId("rfd");
    await tx.paymentRefund.create({ data: { id, workspaceId, orderId: order.id, currency: cur, amountMinor: amount, reason: input.reason ?? null, createdBy: caller.userId, createdAt: now } });
    await tx.paymentOrder.update({ where: { id: order.id }, data: { refundedMinor: order.refundedMinor + amount, updatedAt: now } });
    await insertEntries(tx, workspaceId, cur, { kind: "refund", id }, [{ kind: "refund", amount: -micros, grantId: null }], now);
    await writeAudit(tx, {
      workspaceId, actor: { kind: "user", id: caller.userId }, action: "billing.refunded", target: { kind: "refund", id }, correlationId: caller.correlationId,
      details: { payment_id: order.id, amount_minor: input.amount_minor, currency: cur, reason: input.reason ?? null },
    });
    return { id, workspace_id: workspaceId, payment_id: order.id, currency: cur, amount_minor: input.amount_minor, reason: input.reason ?? null, created_at: iso(now) };
  });
}
