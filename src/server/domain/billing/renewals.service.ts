import { applyPlan } from "@/server/domain/usage/plan.service";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { iso, utcMonth } from "@/server/platform/time";
import { toWire, type TCurrency } from "./money";
import type { TDefaultBudgets } from "./subscriptions.contract";
import { addMonth, applyTierBudgets } from "./subscriptions.service";
import { canPayFirstPeriod, endIn } from "./subscription-lifecycle.service";
import { recordSubscriptionChange } from "./subscription-changes";
import { grantIn, inWallet } from "./wallet.service";

/**
 * Period renewal (docs/decisions.md "Prepaid, Stripe, renewal"): the
 * worker rolls each subscription whose period has ended into the next one at
 * the tier's price at that moment (snapshotted on the period), and grants the
 * tier's included credit for the new period (expiring at its end). Safe with
 * several workers: each renewal runs under the workspace's wallet lock and
 * re-reads the subscription there, so a period is rolled once; the period row
 * is unique per (workspace, start) besides. A change scheduled for the
 * period's end (a downgrade, docs/decisions.md "Proration") takes
 * effect here: the new period is the scheduled tier's, and so is the plan.
 */

const INCLUDED_CREDIT_PRIORITY = 50;
const SYSTEM = { userId: "system", correlationId: "" };

/** Rolls one workspace's subscription forward to the period containing `now`; returns the periods written. */
export async function renewSubscription(workspaceId: string, now = new Date()): Promise<number> {
  const correlationId = newId("evt");
  // The tier catalogue is platform-global (the scoped wallet transaction refuses it): read first, for the tier the subscription names.
  const named = await scopedDb(workspaceId).subscription.findFirst({ select: { tier: true, scheduledTier: true } });
  if (!named) return 0;
  // A change scheduled for this period's end: the next period is that tier's.
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL), read before the scoped wallet transaction.
  const scheduled = named.scheduledTier
    ? await db().subscriptionTier.findUnique({ where: { tier: named.scheduledTier } })
    : null;
  // platform-scoped: the tier catalogue again (PLATFORM_GLOBAL).
  const tier = scheduled ?? (await db().subscriptionTier.findUnique({ where: { tier: named.tier } }));
  let switched: TDefaultBudgets | null = null;
  let ended = false;
  const written = await inWallet(workspaceId, async (tx) => {
    const sub = await tx.subscription.findFirst();
    if (!sub || sub.currentPeriodEnd > now) return 0; // another worker renewed it, or nothing is due
    // A change since the read above (a tier change, a schedule set or cancelled): the next tick renews with fresh reads.
    if (sub.tier !== named.tier || sub.scheduledTier !== named.scheduledTier) return 0;
    // Cancelled at the period's end: it ends instead of rolling; nothing more is billed.
    if (sub.cancelAtPeriodEnd) {
      await endIn(tx, sub, {
        actor: { ...SYSTEM, correlationId },
        system: true,
        change: "ended",
        details: { via: "renewal", effective: "period_end", ended_at: iso(sub.currentPeriodEnd) },
      });
      ended = true;
      return 0;
    }
    // A trial's end: it converts into the first paid period when the workspace can pay one, else lapses to the free plan.
    const converting = sub.status === "trialing";
    const payer = converting
      ? await canPayFirstPeriod(
          tx,
          workspaceId,
          (tier?.currency ?? sub.currency) as TCurrency,
          tier?.monthlyPriceMinor ?? sub.monthlyPriceMinor,
        )
      : null;
    if (converting && !payer) {
      await endIn(tx, sub, {
        actor: { ...SYSTEM, correlationId },
        system: true,
        change: "trial_lapsed",
        details: {
          via: "renewal",
          effective: "trial_end",
          trial_end: iso(sub.currentPeriodEnd),
          reason:
            "no way to pay the first period: the wallet's available paid balance does not cover it and there is no saved card",
        },
      });
      ended = true;
      return 0;
    }
    const tierName = tier?.tier ?? sub.tier;
    const currency = (tier?.currency ?? sub.currency) as TCurrency;
    const price = tier?.monthlyPriceMinor ?? sub.monthlyPriceMinor;
    let start = sub.currentPeriodEnd;
    let end = addMonth(start);
    let written = 0;
    // A worker that was down for months writes each missed period (each one's fee is owed), but grants credit only for the current one.
    for (;;) {
      const inserted = await tx.$executeRaw`
        INSERT INTO subscription_periods (workspace_id, period_start, period_end, tier, currency, price_minor, created_at)
        VALUES (${workspaceId}, ${start}, ${end}, ${tierName}, ${currency}, ${price}, ${now}) ON CONFLICT DO NOTHING`;
      written += inserted;
      if (end > now) break;
      start = end;
      end = addMonth(start);
    }
    await tx.subscription.update({
      where: { workspaceId },
      data: {
        tier: tierName,
        scheduledTier: null,
        currentPeriodStart: start,
        currentPeriodEnd: end,
        currency,
        monthlyPriceMinor: price,
        status: "active",
        updatedBy: SYSTEM.userId,
        updatedAt: now,
      },
    });
    if (scheduled) {
      await applyPlan(tx, { ...SYSTEM, correlationId }, workspaceId, scheduled.plan as TPlanName, true);
      switched = (scheduled.defaultBudgets ?? {}) as TDefaultBudgets;
    }
    let grantId: string | null = null;
    const reason = `subscription:${tierName}:${utcMonth(start)}`;
    if (
      tier &&
      tier.includedCreditMinor > BigInt(0) &&
      !(await tx.walletGrant.findFirst({ where: { reason }, select: { id: true } }))
    ) {
      grantId = (
        await grantIn(
          tx,
          { ...SYSTEM, correlationId },
          workspaceId,
          {
            amount_minor: toWire(tier.includedCreditMinor),
            currency,
            priority: INCLUDED_CREDIT_PRIORITY,
            expires_at: iso(end),
            reason,
          },
          now,
          true,
        )
      ).id;
    }
    const row = await tx.subscription.findFirstOrThrow();
    await recordSubscriptionChange(tx, {
      workspaceId,
      actor: { kind: "system", id: null },
      correlationId,
      change: converting ? "trial_converted" : "renewed",
      subscription: row,
      details: {
        from: sub.tier,
        to: tierName,
        via: "renewal",
        scheduled_change: scheduled !== null,
        periods: written,
        current_period_start: iso(start),
        current_period_end: iso(end),
        monthly_price_minor: toWire(price),
        currency,
        included_credit_grant_id: grantId,
        ...(converting ? { first_period_paid_by: payer } : {}),
      },
    });
    return written;
  });
  if (ended) signalChange("plan", workspaceId);
  if (switched) {
    signalChange("plan", workspaceId);
    await applyTierBudgets({ ...SYSTEM, correlationId }, workspaceId, switched);
  }
  return written;
}

/**
 * Worker tick: every subscription whose period has ended by its workspace's
 * billing clock (the wall clock `now`, or its test clock), up to 500 per
 * tick. Returns the periods written.
 */
export async function renewDueSubscriptions(now = new Date()): Promise<number> {
  // platform-scoped: a sweeper over all workspaces; each renewal then runs scoped to its workspace.
  const due = await db().$queryRaw<{ workspace_id: string; at: Date }[]>`
    (SELECT s.workspace_id, ${now}::timestamptz AS at, s.current_period_end FROM subscriptions s
      WHERE s.current_period_end <= ${now} AND NOT EXISTS (SELECT 1 FROM billing_test_clocks tc WHERE tc.workspace_id = s.workspace_id)
      ORDER BY s.current_period_end LIMIT 500)
    UNION ALL
    (SELECT s.workspace_id, tc.frozen_time AS at, s.current_period_end FROM billing_test_clocks tc JOIN subscriptions s ON s.workspace_id = tc.workspace_id
      WHERE s.current_period_end <= tc.frozen_time LIMIT 500)`;
  let written = 0;
  for (const { workspace_id: workspaceId, at } of due) {
    try {
      written += await renewSubscription(workspaceId, at);
    } catch (err) {
      logger.error("billing.renewal_failed", { workspace_id: workspaceId, error: String(err) });
    }
  }
  return written;
}
