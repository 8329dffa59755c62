import type { BillingAccount, PaymentMethod, PaymentMethodSetup, Prisma } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import type { TCurrency } from "../money";
import { stripeConfigured } from "../stripe-gateway";
import type { TPaymentMethod, TPaymentMethodSetup } from "./collection.contract";
import { createCustomer, createSetupSession, detachPaymentMethod, setupPaymentMethod } from "./stripe-collection";

/**
 * Saved payment methods (issue #36 item 3; docs/decisions.md "Billing:
 * collection and dunning"). A card is saved through a Stripe Checkout Session
 * in setup mode; the signed callback names the SetupIntent, whose payment
 * method we keep by reference (id, brand, last 4, expiry; never the number).
 * The first saved method becomes the default that automatic collection charges.
 */

type TTx = Prisma.TransactionClient;
type TCaller = { userId: string; correlationId: string };

export function toMethod(
  m: PaymentMethod,
  account: Pick<BillingAccount, "defaultPaymentMethodId"> | null,
): TPaymentMethod {
  return {
    id: m.id,
    workspace_id: m.workspaceId,
    gateway: "stripe",
    gateway_reference: m.gatewayReference,
    brand: m.brand,
    last4: m.last4,
    exp_month: m.expMonth,
    exp_year: m.expYear,
    default: account?.defaultPaymentMethodId === m.id,
    created_at: iso(m.createdAt),
  };
}

function toSetup(s: PaymentMethodSetup): TPaymentMethodSetup {
  return {
    id: s.id,
    workspace_id: s.workspaceId,
    status: s.status as TPaymentMethodSetup["status"],
    url: s.url,
    payment_method_id: s.paymentMethodId,
    created_at: iso(s.createdAt),
  };
}

function requireStripe(): void {
  if (!stripeConfigured()) {
    throw new AppError(
      "conflict",
      "Saved payment methods need the stripe gateway, which is not configured here (CAPSTAN_STRIPE_SECRET_KEY)",
      { reason: "gateway_unavailable" },
    );
  }
}

/** The workspace's collection account row (created on first use). */
export async function account(workspaceId: string): Promise<BillingAccount> {
  const scoped = scopedDb(workspaceId);
  return (
    (await scoped.billingAccount.findFirst()) ??
    scoped.billingAccount.upsert({ where: { workspaceId }, create: { workspaceId }, update: {} })
  );
}

/** The workspace's Stripe customer, created once (idempotent at Stripe per workspace, unique here). */
export async function ensureCustomer(workspaceId: string): Promise<string> {
  const acc = await account(workspaceId);
  if (acc.stripeCustomerId) return acc.stripeCustomerId;
  const scoped = scopedDb(workspaceId);
  const ws = await scoped.workspace.findFirst({ select: { name: true } });
  if (!ws) throw notFound(`Workspace ${workspaceId}`);
  const profile = await scoped.billingProfile.findFirst({ select: { legalName: true, email: true } });
  const id = await createCustomer(workspaceId, profile?.legalName ?? ws.name, profile?.email ?? null);
  await scoped.billingAccount.updateMany({
    where: { stripeCustomerId: null },
    data: { stripeCustomerId: id, updatedAt: new Date() },
  });
  return (await account(workspaceId)).stripeCustomerId!;
}

/** Starts saving a card: a Checkout Session in setup mode; the card is saved when Stripe's signed callback confirms it. */
export async function startSetup(
  caller: TCaller,
  workspaceId: string,
  input: { currency?: TCurrency },
): Promise<TPaymentMethodSetup> {
  requireStripe();
  const customer = await ensureCustomer(workspaceId);
  const id = newId("pms");
  const session = await createSetupSession({ id, workspaceId, customer, currency: input.currency ?? null });
  const now = new Date();
  const row = await scopedDb(workspaceId).paymentMethodSetup.create({
    data: {
      id,
      workspaceId,
      gatewayReference: session.id,
      url: session.url,
      createdBy: caller.userId,
      createdAt: now,
      updatedAt: now,
    },
  });
  return toSetup(row);
}

export async function getSetup(workspaceId: string, id: string): Promise<TPaymentMethodSetup> {
  const row = await scopedDb(workspaceId).paymentMethodSetup.findFirst({ where: { id } });
  if (!row) throw notFound(`Payment method setup ${id}`);
  return toSetup(row);
}

/**
 * The signed callback of a completed setup session: the SetupIntent's payment
 * method is saved once (unique per gateway reference), the default when the
 * workspace has none. Audit billing.profile_changed (payment methods are part
 * of how the workspace is billed), never the card's number.
 */
export async function completeSetup(
  setup: PaymentMethodSetup,
  setupIntent: string,
  correlationId: string,
): Promise<{ id: string; status: string }> {
  const card = await setupPaymentMethod(setupIntent);
  const scoped = scopedDb(setup.workspaceId);
  return scoped.$transaction(async (tx) => {
    const current = await tx.paymentMethodSetup.findFirstOrThrow({ where: { id: setup.id } });
    if (current.status === "complete") return { id: current.id, status: current.status };
    const acc = await tx.billingAccount.findFirst();
    if (!acc?.stripeCustomerId || (card.customer && card.customer !== acc.stripeCustomerId)) {
      throw new AppError(
        "validation_failed",
        `the saved payment method ${card.id} does not belong to this workspace's Stripe customer`,
        { reason: "customer_mismatch" },
      );
    }
    const now = new Date();
    const existing = await tx.paymentMethod.findFirst({ where: { gateway: "stripe", gatewayReference: card.id } });
    const pm =
      existing ??
      (await tx.paymentMethod.create({
        data: {
          id: newId("pmt"),
          workspaceId: setup.workspaceId,
          gateway: "stripe",
          gatewayReference: card.id,
          brand: card.brand,
          last4: card.last4,
          expMonth: card.expMonth,
          expYear: card.expYear,
          createdBy: setup.createdBy,
          createdAt: now,
        },
      }));
    await tx.paymentMethodSetup.update({
      where: { id: setup.id },
      data: { status: "complete", url: null, paymentMethodId: pm.id, updatedAt: now },
    });
    const makeDefault = !acc.defaultPaymentMethodId;
    if (makeDefault)
      await tx.billingAccount.updateMany({ where: {}, data: { defaultPaymentMethodId: pm.id, updatedAt: now } });
    await writeAudit(tx, {
      workspaceId: setup.workspaceId,
      actor: { kind: "user", id: setup.createdBy },
      action: "billing.profile_changed",
      target: { kind: "payment_method", id: pm.id },
      correlationId,
      details: {
        payment_method: "added",
        gateway: "stripe",
        brand: card.brand,
        last4: card.last4,
        default: makeDefault,
        setup_id: setup.id,
      },
    });
    return { id: setup.id, status: "complete" };
  });
}

export async function expireSetup(setup: PaymentMethodSetup): Promise<void> {
  await scopedDb(setup.workspaceId).paymentMethodSetup.updateMany({
    where: { id: setup.id, status: "open" },
    data: { status: "expired", url: null, updatedAt: new Date() },
  });
}

export async function listMethods(workspaceId: string, q: TListQuery): Promise<TPage<TPaymentMethod>> {
  const acc = await scopedDb(workspaceId).billingAccount.findFirst();
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).paymentMethod.findMany({
    ...args,
    where: { ...args.where, status: "active" },
  });
  return toPage(rows, q, (m) => toMethod(m, acc));
}

/** The method automatic collection charges: the default, else none. */
export async function defaultMethod(tx: TTx): Promise<{ method: PaymentMethod; customer: string } | null> {
  const acc = await tx.billingAccount.findFirst();
  if (!acc?.defaultPaymentMethodId || !acc.stripeCustomerId) return null;
  const method = await tx.paymentMethod.findFirst({ where: { id: acc.defaultPaymentMethodId, status: "active" } });
  return method ? { method, customer: acc.stripeCustomerId } : null;
}

/** Removes a saved method: detached at Stripe first (a failure leaves it saved: 503), then marked removed; the next method becomes the default. */
export async function removeMethod(caller: TCaller, workspaceId: string, id: string): Promise<void> {
  const scoped = scopedDb(workspaceId);
  const pm = await scoped.paymentMethod.findFirst({ where: { id, status: "active" } });
  if (!pm) throw notFound(`Payment method ${id}`);
  await detachPaymentMethod(pm.gatewayReference);
  await scoped.$transaction(async (tx) => {
    const now = new Date();
    const moved = await tx.paymentMethod.updateMany({
      where: { id, status: "active" },
      data: { status: "removed", removedAt: now },
    });
    if (moved.count === 0) return;
    const acc = await tx.billingAccount.findFirst();
    let nextDefault: string | null = acc?.defaultPaymentMethodId ?? null;
    if (acc?.defaultPaymentMethodId === id) {
      nextDefault =
        (
          await tx.paymentMethod.findFirst({
            where: { status: "active" },
            orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          })
        )?.id ?? null;
      await tx.billingAccount.updateMany({ where: {}, data: { defaultPaymentMethodId: nextDefault, updatedAt: now } });
    }
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "billing.profile_changed",
      target: { kind: "payment_method", id },
      correlationId: caller.correlationId,
      details: {
        payment_method: "removed",
        gateway: pm.gateway,
        brand: pm.brand,
        last4: pm.last4,
        default: nextDefault,
      },
    });
  });
}
