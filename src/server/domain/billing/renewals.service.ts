import { applyPlan } from "@/server/domain/usage/plan.service";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import { writeAudit } from "@/server/platform/audit";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { iso, utcMonth } from "@/server/platform/time";
import { toWire, type TCurrency } from "./money";
import type { TDefaultBudgets } from "./subscriptions.contract";
import { addMonth, applyTierBudgets } from "./subscriptions.service";
import { grantIn, inWallet } from "./wallet.service";

/**
 * Period renewal (docs/decisions.md "Billing: prepaid, Stripe, renewal"): the
 * worker rolls each subscription whose period has ended into the next one at
 * the tier's price at that moment (snapshotted on the period), and grants the
 * tier's included credit for the new period (expiring at its end). Safe with
 * several workers: each renewal runs under the workspace's wallet lock and
 * re-reads the subscription there, so a period is rolled once; the period row
 * is unique per (workspace, start) besides. A change scheduled for the
 * period's end (a downgrade, docs/decisions.md "Billing: proration") takes
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
  const scheduled = named.scheduledTier ? await db().subscriptionTier.findUnique({ where: { tier: named.scheduledTier } }) : null;
  const tier = scheduled ?? (await db().subscriptionTier.findUnique({ where: { tier: named.tier } }));
  let switched: TDefaultBudgets | null = null;
  const written = await inWallet(workspaceId, async (tx) => {
    const sub = await tx.subscription.findFirst();
    if (!sub || sub.currentPeriodEnd > now) return 0; // another worker renewed it, or nothing is due
    // A change since the read above (a tier change, a schedule set or cancelled): the next tick renews with fresh reads.
    if (sub.tier !== named.tier || sub.scheduledTier !== named.scheduledTier) return 0;
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
      data: { tier: tierName, scheduledTier: null, currentPeriodStart: start, currentPeriodEnd: end, currency, monthlyPriceMinor: price, updatedBy: SYSTEM.userId, updatedAt: now },
    });
    if (scheduled) {
      await applyPlan(tx, { ...SYSTEM, correlationId }, workspaceId, scheduled.plan as TPlanName, true);
      switched = (scheduled.defaultBudgets ?? {}) as TDefaultBudgets;
    }
    let grantId: string | null = null;
    const reason = `subscription:${tierName}:${utcMonth(start)}`;
    if (tier && tier.includedCreditMinor > BigInt(0) && !(await tx.walletGrant.findFirst({ where: { reason }, select: { id: true } }))) {
      grantId = (await grantIn(tx, { ...SYSTEM, correlationId }, workspaceId, {
        amount_minor: toWire(tier.includedCreditMinor), currency, priority: INCLUDED_CREDIT_PRIORITY, expires_at: iso(end), reason,
      }, now, true)).id;
    }
    await writeAudit(tx, {
      workspaceId, actor: { kind: "system", id: null }, action: "billing.subscription_changed", target: { kind: "subscription", id: workspaceId },
      correlationId,
      details: {
        from: sub.tier, to: tierName, via: "renewal", scheduled_change: scheduled !== null, periods: written, current_period_start: iso(start), current_period_end: iso(end),
        monthly_price_minor: toWire(price), currency, included_credit_grant_id: grantId,
      },
    });
    return written;
  });
  if (switched) {
    signalChange("plan", workspaceId);
    await applyTierBudgets({ ...SYSTEM, correlationId }, workspaceId, switched);
  }
  return written;
}

/** Worker tick: every subscription whose period has ended, up to 500 per tick. Returns the periods written. */
export async function renewDueSubscriptions(now = new Date()): Promise<number> {
  // Platform-scoped by design (a sweeper over all workspaces); each renewal then runs scoped to its workspace.
  const due = await db().subscription.findMany({ where: { currentPeriodEnd: { lte: now } }, select: { workspaceId: true }, orderBy: { currentPeriodEnd: "asc" }, take: 500 });
  let written = 0;
  for (const { workspaceId } of due) {
    try {
      written += await renewSubscription(workspaceId, now);
    } catch (err) {
      logger.error("billing.renewal_failed", { workspace_id: workspaceId, error: String(err) });
    }
  }
  return written;
}
