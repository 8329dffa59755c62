import type { Subscription } from "@/generated/prisma/client";
import { setBudgetLimit } from "@/server/domain/usage/budget.service";
import { applyPlan, getPlan } from "@/server/domain/usage/plan.service";
import { USAGE_CATEGORIES } from "@/server/domain/usage/usage.contract";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { iso, isoOrNull, utcMonth } from "@/server/platform/time";
import { toWire, type TCurrency } from "./money";
import { upgradeCharge } from "./proration";
import type { TBillingMode, TDefaultBudgets, TSubscription } from "./subscriptions.contract";
import { recordSubscriptionChange, type TSubscriptionChange } from "./subscription-changes";
import { assertWorkspace, grantIn, inWallet } from "./wallet.service";

/**
 * Billing profile, subscription tiers and subscriptions (docs/decisions.md
 * "Billing", "Proration"). An upgrade takes effect at once with a
 * prorated charge; a downgrade at the period's end. Included credit is
 * granted once per tier and calendar month, so switching back and forth
 * cannot farm credit.
 */

type TCaller = { userId: string; correlationId: string };
const INCLUDED_CREDIT_PRIORITY = 50;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------- subscriptions

export function toSubscription(
  workspaceId: string,
  plan: TPlanName,
  s: Subscription | null,
  mode: string | null = null,
): TSubscription {
  return {
    workspace_id: workspaceId,
    tier: s?.tier ?? null,
    plan,
    currency: (s?.currency ?? null) as TCurrency | null,
    monthly_price_minor: s ? toWire(s.monthlyPriceMinor) : null,
    billing_mode: s ? ((mode ?? "postpaid") as TBillingMode) : null,
    current_period_start: isoOrNull(s?.currentPeriodStart),
    current_period_end: isoOrNull(s?.currentPeriodEnd),
    scheduled_tier: s?.scheduledTier ?? null,
    scheduled_at: s?.scheduledTier ? iso(s.currentPeriodEnd) : null,
    updated_at: isoOrNull(s?.updatedAt),
    status: (s?.status ?? null) as TSubscription["status"],
    trial_end: s?.status === "trialing" ? isoOrNull(s.trialEnd) : null,
    cancel_at_period_end: s?.cancelAtPeriodEnd ?? false,
    cancel_at: s?.cancelAtPeriodEnd ? iso(s.currentPeriodEnd) : null,
  };
}

export async function getSubscription(workspaceId: string): Promise<TSubscription> {
  await assertWorkspace(workspaceId);
  const [plan, sub] = await Promise.all([getPlan(workspaceId), scopedDb(workspaceId).subscription.findFirst()]);
  // The tier catalogue is platform-global: db().
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL).
  const tier = sub
    ? await db().subscriptionTier.findUnique({ where: { tier: sub.tier }, select: { billingMode: true } })
    : null;
  return toSubscription(workspaceId, plan.plan, sub, tier?.billingMode ?? null);
}

/** The same day next month (UTC), clamped to the month's last day. */
export function addMonth(d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      y,
      m,
      Math.min(d.getUTCDate(), last),
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ),
  );
}

/**
 * Subscribes the workspace to `tier` (owner/admin, or the platform override;
 * docs/decisions.md "Proration"). A first subscription starts a
 * period now. A change that does not lower the price (same currency) is
 * immediate: the plan changes, the period is kept and the price difference
 * for the rest of it is billed (a `proration` period row). A change that
 * lowers the price or changes the currency is scheduled for the period's end
 * (renewal applies it). The current tier again cancels a scheduled change,
 * else is a no-op. Plan, subscription, credit and audits commit together.
 */
export async function setSubscription(
  caller: TCaller,
  workspaceId: string,
  tier: string,
  via: "workspace" | "platform",
): Promise<TSubscription> {
  await assertWorkspace(workspaceId);
  // The tier catalogue is platform-global (db()), read before the workspace's scoped wallet transaction.
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL), read before the scoped wallet transaction.
  const t = await db().subscriptionTier.findUnique({ where: { tier } });
  if (!t)
    throw new AppError("validation_failed", `${tier} is not a subscription tier`, {
      reason: "unknown_tier",
      errors: [{ path: "/tier", message: "is not a subscription tier" }],
    });
  // The current tier too (its credit and mode): read outside the scoped transaction, re-checked inside it.
  const named = await scopedDb(workspaceId).subscription.findFirst({ select: { tier: true } });
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL).
  const old = named ? await db().subscriptionTier.findUnique({ where: { tier: named.tier } }) : null;
  let changed = false;
  // A workspace on a test clock subscribes at the clock's time (docs/decisions.md "Month close and test clocks").
  const clock = await scopedDb(workspaceId).billingTestClock.findFirst({ select: { frozenTime: true } });
  const result = await inWallet(workspaceId, async (tx) => {
    const before = await tx.subscription.findFirst();
    if (before && before.tier !== named?.tier)
      throw new AppError("conflict", "The subscription changed meanwhile; retry", { reason: "concurrent_change" });
    const now = clock?.frozenTime ?? new Date();
    const audit = (change: TSubscriptionChange, row: Subscription, details: Record<string, unknown>) =>
      recordSubscriptionChange(tx, {
        workspaceId,
        actor: { kind: "user", id: caller.userId },
        correlationId: caller.correlationId,
        change,
        subscription: row,
        details: { from: before?.tier ?? null, to: tier, via, ...details },
      });
    const currentPlan = async () => ((await tx.plan.findFirst())?.plan ?? "free") as TPlanName;
    if (before && (before.tier === tier || before.scheduledTier === tier)) {
      // Asking for what is already in force (or already scheduled): cancel a pending change, or nothing.
      // A scheduled cancellation is withdrawn too: the owner asked to keep this tier.
      let row = before;
      if (before.tier === tier && (before.scheduledTier || before.cancelAtPeriodEnd)) {
        row = await tx.subscription.update({
          where: { workspaceId },
          data: { scheduledTier: null, cancelAtPeriodEnd: false, updatedBy: caller.userId, updatedAt: now },
        });
        await audit(before.cancelAtPeriodEnd ? "resumed" : "scheduled_change_cancelled", row, {
          effective: "immediate",
          cancelled_scheduled_tier: before.scheduledTier,
          cancelled_cancellation: before.cancelAtPeriodEnd,
        });
      }
      return toSubscription(workspaceId, await currentPlan(), row, old?.billingMode ?? null);
    }
    if (before?.status === "trialing") {
      changed = true;
      // During a trial a change of tier is free and immediate (in either direction); the trial's end is kept.
      const row = await tx.subscription.update({
        where: { workspaceId },
        data: {
          tier,
          currency: t.currency,
          monthlyPriceMinor: t.monthlyPriceMinor,
          scheduledTier: null,
          cancelAtPeriodEnd: false,
          updatedBy: caller.userId,
          updatedAt: now,
        },
      });
      const plan = await applyPlan(tx, caller, workspaceId, t.plan as TPlanName);
      await audit("trial_tier_changed", row, {
        effective: "immediate",
        plan: t.plan,
        trial_end: isoOrNull(row.trialEnd),
        proration_minor: 0,
      });
      return toSubscription(workspaceId, plan.plan, row, t.billingMode);
    }
    if (before && (before.currency !== t.currency || t.monthlyPriceMinor < before.monthlyPriceMinor)) {
      // Lowers the price or changes the currency: at the period's end, nothing owed now.
      const row = await tx.subscription.update({
        where: { workspaceId },
        data: { scheduledTier: tier, cancelAtPeriodEnd: false, updatedBy: caller.userId, updatedAt: now },
      });
      await audit("downgrade_scheduled", row, {
        effective: "period_end",
        effective_at: iso(before.currentPeriodEnd),
        plan: t.plan,
        monthly_price_minor: toWire(t.monthlyPriceMinor),
        currency: t.currency,
      });
      return toSubscription(workspaceId, await currentPlan(), row, old?.billingMode ?? null);
    }
    changed = true;
    let row: Subscription;
    let grantMinor = t.includedCreditMinor;
    let grantExpiry: Date;
    let prorationMinor: bigint | null = null;
    let trial = false;
    if (before) {
      // Immediate, keeping the period (its anchor): the difference for the time left.
      const period = { start: before.currentPeriodStart, end: before.currentPeriodEnd };
      const cost = upgradeCharge(
        { priceMinor: before.monthlyPriceMinor, includedCreditMinor: old?.includedCreditMinor ?? BigInt(0) },
        { priceMinor: t.monthlyPriceMinor, includedCreditMinor: t.includedCreditMinor },
        period,
        now,
      );
      prorationMinor = cost.chargeMinor;
      grantMinor = cost.creditMinor;
      grantExpiry = before.currentPeriodEnd;
      row = await tx.subscription.update({
        where: { workspaceId },
        data: {
          tier,
          monthlyPriceMinor: t.monthlyPriceMinor,
          scheduledTier: null,
          cancelAtPeriodEnd: false,
          updatedBy: caller.userId,
          updatedAt: now,
        },
      });
      if (before.currentPeriodEnd > now) {
        await tx.subscriptionPeriod.create({
          data: {
            workspaceId,
            periodStart: now,
            periodEnd: before.currentPeriodEnd,
            tier,
            currency: t.currency,
            priceMinor: cost.chargeMinor,
            kind: "proration",
            createdAt: now,
          },
        });
      }
    } else {
      // A tier with trial days starts a trial, once per workspace (a trial period ever recorded disqualifies): free until its end.
      trial =
        t.trialDays > 0 &&
        !(await tx.subscriptionPeriod.findFirst({ where: { kind: "trial" }, select: { periodStart: true } }));
      const end = trial ? new Date(now.getTime() + t.trialDays * DAY_MS) : addMonth(now);
      grantExpiry = end;
      if (trial) grantMinor = BigInt(0); // included credit comes with the first paid period
      const data = {
        tier,
        currency: t.currency,
        monthlyPriceMinor: t.monthlyPriceMinor,
        currentPeriodStart: now,
        currentPeriodEnd: end,
        status: trial ? "trialing" : "active",
        trialEnd: trial ? end : null,
        updatedBy: caller.userId,
        updatedAt: now,
      };
      row = await tx.subscription.create({ data: { workspaceId, ...data, createdAt: now } });
      await tx.subscriptionPeriod.create({
        data: {
          workspaceId,
          periodStart: now,
          periodEnd: end,
          tier,
          currency: t.currency,
          priceMinor: trial ? BigInt(0) : t.monthlyPriceMinor,
          kind: trial ? "trial" : "period",
          createdAt: now,
        },
      });
    }
    const plan = await applyPlan(tx, caller, workspaceId, t.plan as TPlanName);
    let grantId: string | null = null;
    const reason = `subscription:${tier}:${utcMonth(now)}`;
    if (
      grantMinor > BigInt(0) &&
      grantExpiry > now &&
      !(await tx.walletGrant.findFirst({ where: { reason }, select: { id: true } }))
    ) {
      grantId = (
        await grantIn(
          tx,
          caller,
          workspaceId,
          {
            amount_minor: toWire(grantMinor),
            currency: t.currency as TCurrency,
            priority: INCLUDED_CREDIT_PRIORITY,
            expires_at: iso(grantExpiry),
            reason,
          },
          now,
        )
      ).id;
    }
    await audit(before ? "upgraded" : trial ? "trial_started" : "created", row, {
      effective: "immediate",
      plan: t.plan,
      monthly_price_minor: toWire(t.monthlyPriceMinor),
      currency: t.currency,
      included_credit_grant_id: grantId,
      proration_minor: prorationMinor === null ? null : toWire(prorationMinor),
    });
    return toSubscription(workspaceId, plan.plan, row, t.billingMode);
  });
  if (changed) {
    signalChange("plan", workspaceId);
    // After the change commits, in budget-row order of its own (budgets are locked before the wallet elsewhere, never after).
    await applyTierBudgets(caller, workspaceId, (t.defaultBudgets ?? {}) as TDefaultBudgets);
  }
  return result;
}

/** Sets this month's budget limits the tier names (audited budget.changed each; a category left out is untouched). */
export async function applyTierBudgets(caller: TCaller, workspaceId: string, defaults: TDefaultBudgets): Promise<void> {
  for (const category of USAGE_CATEGORIES) {
    const limit = defaults[category];
    if (limit !== undefined) await setBudgetLimit(caller, workspaceId, category, limit);
  }
}
