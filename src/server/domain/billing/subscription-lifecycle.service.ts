import type { Prisma, Subscription } from "@/generated/prisma/client";
import { applyPlan } from "@/server/domain/usage/plan.service";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { iso } from "@/server/platform/time";
import { defaultMethod } from "./collection/payment-methods.service";
import { minorToMicros, toWire, type TCurrency } from "./money";
import { prorate } from "./proration";
import { stripeConfigured } from "./stripe-gateway";
import { recordSubscriptionChange, type TSubscriptionChange } from "./subscription-changes";
import type { TSubscription } from "./subscriptions.contract";
import { toSubscription } from "./subscriptions.service";
import { assertWorkspace, inWallet, paidBalance } from "./wallet.service";

/**
 * Subscriptions that end (issue #36 item 7; docs/decisions.md "Billing:
 * subscriptions that end"), after Stripe's: cancel at the period's end
 * (`cancel_at_period_end`, resumable until then; renewal ends it instead of
 * rolling it, so nothing more is billed) or at once (the unused time of the
 * period is credited as a negative `cancellation` fee line, prorated to the
 * minor unit, half up; included credit still unspent is written off). A
 * trial converts at its end into the first paid period when the workspace has
 * a way to pay (its wallet, or a saved card: `canPayFirstPeriod`), and lapses
 * to the free plan when it has none. An ended
 * subscription's row is deleted (its periods, audit records and events stay):
 * the workspace is then on the free plan with no subscription, as before its
 * first one.
 */

type TTx = Prisma.TransactionClient;
type TCaller = { userId: string; correlationId: string };
const ZERO = BigInt(0);

async function clockNow(workspaceId: string): Promise<Date> {
  const clock = await scopedDb(workspaceId).billingTestClock.findFirst({ select: { frozenTime: true } });
  return clock?.frozenTime ?? new Date();
}

async function billingModeOf(tier: string): Promise<string | null> {
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL), read outside the scoped wallet transaction.
  return (
    (await db().subscriptionTier.findUnique({ where: { tier }, select: { billingMode: true } }))?.billingMode ?? null
  );
}

/**
 * Ends the subscription inside the caller's wallet transaction: the row is
 * deleted and the plan drops to free, with the audit record and the event.
 * The caller signals the plan change after its commit.
 */
export async function endIn(
  tx: TTx,
  sub: Subscription,
  c: { actor: TCaller; system: boolean; change: TSubscriptionChange; details: Record<string, unknown> },
): Promise<void> {
  await tx.subscription.delete({ where: { workspaceId: sub.workspaceId } });
  await applyPlan(tx, c.actor, sub.workspaceId, "free", c.system);
  await recordSubscriptionChange(tx, {
    workspaceId: sub.workspaceId,
    actor: c.system ? { kind: "system", id: null } : { kind: "user", id: c.actor.userId },
    correlationId: c.actor.correlationId,
    change: c.change,
    subscription: null,
    details: { from: sub.tier, to: null, ...c.details },
  });
}

/**
 * How a trial can pay its first paid period, or null when it cannot (it then
 * lapses): `free` (price 0), `wallet` (the wallet's available paid balance
 * covers one period, holds of prepaid calls respected) or `card` (a default
 * saved card and the Stripe gateway configured: as Stripe Billing converts a
 * trial with a default payment method, the first period's fee is charged to
 * that card by the automatic collection of the invoice that bills it, and a
 * decline walks the dunning schedule to the tier's policy).
 */
export async function canPayFirstPeriod(
  tx: TTx,
  workspaceId: string,
  currency: TCurrency,
  priceMinor: bigint,
): Promise<"free" | "wallet" | "card" | null> {
  if (priceMinor <= ZERO) return "free";
  const balance = await paidBalance(tx, workspaceId, currency);
  const held =
    (await tx.walletBalance.findFirst({ where: { currency }, select: { heldMicros: true } }))?.heldMicros ?? ZERO;
  if (balance - held >= minorToMicros(priceMinor, currency)) return "wallet";
  if (stripeConfigured() && (await defaultMethod(tx))) return "card";
  return null;
}

/** Cancels the workspace's subscription (owner): at the current period's end (default), or at once. */
export async function cancelSubscription(
  caller: TCaller,
  workspaceId: string,
  when: "period_end" | "immediately",
): Promise<TSubscription> {
  await assertWorkspace(workspaceId);
  const now = await clockNow(workspaceId);
  const named = await scopedDb(workspaceId).subscription.findFirst({ select: { tier: true } });
  const mode = named ? await billingModeOf(named.tier) : null;
  let ended = false;
  const out = await inWallet(workspaceId, async (tx) => {
    const sub = await tx.subscription.findFirst();
    if (!sub) throw notFound(`A subscription of workspace ${workspaceId}`);
    if (when === "period_end") {
      if (sub.cancelAtPeriodEnd) return toSubscription(workspaceId, await planOf(tx), sub, mode);
      const row = await tx.subscription.update({
        where: { workspaceId },
        data: { cancelAtPeriodEnd: true, scheduledTier: null, updatedBy: caller.userId, updatedAt: now },
      });
      await recordSubscriptionChange(tx, {
        workspaceId,
        actor: { kind: "user", id: caller.userId },
        correlationId: caller.correlationId,
        change: "cancel_scheduled",
        subscription: row,
        details: {
          from: sub.tier,
          to: null,
          effective: "period_end",
          effective_at: iso(sub.currentPeriodEnd),
          cancelled_scheduled_tier: sub.scheduledTier,
        },
      });
      return toSubscription(workspaceId, await planOf(tx), row, mode);
    }
    // At once: the unused time of a paid period is credited (a negative fee line on this month's invoice).
    const currency = sub.currency as TCurrency;
    const credit =
      sub.status === "active" && sub.currentPeriodEnd > now
        ? prorate(sub.monthlyPriceMinor, { start: sub.currentPeriodStart, end: sub.currentPeriodEnd }, now, "half_up")
        : ZERO;
    if (credit > ZERO) {
      await tx.subscriptionPeriod.create({
        data: {
          workspaceId,
          periodStart: now,
          periodEnd: sub.currentPeriodEnd,
          tier: sub.tier,
          currency,
          priceMinor: -credit,
          kind: "cancellation",
          createdAt: now,
        },
      });
    }
    // Included credit of the period not yet spent goes with it (it came with the subscription).
    const written = await tx.$executeRaw`
      UPDATE wallet_grants SET expires_at = ${now} WHERE workspace_id = ${workspaceId} AND closed_at IS NULL AND reason LIKE 'subscription:%' AND expires_at > ${now}`;
    if (written > 0) await tx.$queryRaw`SELECT capstan_wallet_expire(${workspaceId}, ${now}::timestamptz) AS n`;
    await endIn(tx, sub, {
      actor: caller,
      system: false,
      change: "canceled",
      details: {
        effective: "immediate",
        credited_minor: toWire(credit),
        currency,
        included_credit_grants_written_off: written,
      },
    });
    ended = true;
    return toSubscription(workspaceId, "free", null);
  });
  if (ended) signalChange("plan", workspaceId);
  return out;
}

/** Withdraws a scheduled cancellation before the period ends (owner); idempotent. */
export async function resumeSubscription(caller: TCaller, workspaceId: string): Promise<TSubscription> {
  await assertWorkspace(workspaceId);
  const now = await clockNow(workspaceId);
  const named = await scopedDb(workspaceId).subscription.findFirst({ select: { tier: true } });
  const mode = named ? await billingModeOf(named.tier) : null;
  return inWallet(workspaceId, async (tx) => {
    const sub = await tx.subscription.findFirst();
    if (!sub) throw notFound(`A subscription of workspace ${workspaceId}`);
    if (!sub.cancelAtPeriodEnd) return toSubscription(workspaceId, await planOf(tx), sub, mode);
    if (sub.currentPeriodEnd <= now) {
      throw new AppError(
        "conflict",
        `The subscription ended at ${iso(sub.currentPeriodEnd)}; subscribe again with PUT`,
        {
          reason: "subscription_ended",
          extensions: { ended_at: iso(sub.currentPeriodEnd) },
        },
      );
    }
    const row = await tx.subscription.update({
      where: { workspaceId },
      data: { cancelAtPeriodEnd: false, updatedBy: caller.userId, updatedAt: now },
    });
    await recordSubscriptionChange(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      correlationId: caller.correlationId,
      change: "resumed",
      subscription: row,
      details: { from: sub.tier, to: sub.tier, effective: "immediate" },
    });
    return toSubscription(workspaceId, await planOf(tx), row, mode);
  });
}

async function planOf(tx: TTx): Promise<TPlanName> {
  return ((await tx.plan.findFirst())?.plan ?? "free") as TPlanName;
}
