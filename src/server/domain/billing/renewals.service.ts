import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { iso, utcMonth } from "@/server/platform/time";
import { toWire, type TCurrency } from "./money";
import { addMonth } from "./subscriptions.service";
import { grantIn, inWallet } from "./wallet.service";

/**
 * Period renewal (docs/decisions.md "Billing: prepaid, Stripe, renewal"): the
 * worker rolls each subscription whose period has ended into the next one at
 * the tier's price at that moment (snapshotted on the period), and grants the
 * tier's included credit for the new period (expiring at its end). Safe with
 * several workers: each renewal runs under the workspace's wallet lock and
 * re-reads the subscription there, so a period is rolled once; the period row
 * is unique per (workspace, start) besides.
 */

const INCLUDED_CREDIT_PRIORITY = 50;
const SYSTEM = { userId: "system", correlationId: "" };

/** Rolls one workspace's subscription forward to the period containing `now`; returns the periods written. */
export async function renewSubscription(workspaceId: string, now = new Date()): Promise<number> {
  const correlationId = newId("evt");
  // The tier catalogue is platform-global (the scoped wallet transaction refuses it): read first, for the tier the subscription names.
  const named = await scopedDb(workspaceId).subscription.findFirst({ select: { tier: true } });
  if (!named) return 0;
  const tier = await db().subscriptionTier.findUnique({ where: { tier: named.tier } });
  return inWallet(workspaceId, async (tx) => {
    const sub = await tx.subscription.findFirst();
    if (!sub || sub.currentPeriodEnd > now) return 0; // another worker renewed it, or nothing is due
    // A tier change since the read above starts a new period (not due, returned above); this is belt and braces.
    if (sub.tier !== named.tier) return 0;
    const currency = (tier?.currency ?? sub.currency) as TCurrency;
    const price = tier?.monthlyPriceMinor ?? sub.monthlyPriceMinor;
    let start = sub.currentPeriodEnd;
    let end = addMonth(start);
    let written = 0;
    // A worker that was down for months writes each missed period (each one's fee is owed), but grants credit only for the current one.
    for (;;) {
      const inserted = await tx.$executeRaw`
        INSERT INTO subscription_periods (workspace_id, period_start, period_end, tier, currency, price_minor, created_at)
        VALUES (${workspaceId}, ${start}, ${end}, ${sub.tier}, ${currency}, ${price}, ${now}) ON CONFLICT DO NOTHING`;
      written += inserted;
      if (end > now) break;
      start = end;
      end = addMonth(start);
    }
    await tx.subscription.update({
      where: { workspaceId },
      data: { currentPeriodStart: start, currentPeriodEnd: end, currency, monthlyPriceMinor: price, updatedBy: SYSTEM.userId, updatedAt: now },
    });
    let grantId: string | null = null;
    const reason = `subscription:${sub.tier}:${utcMonth(start)}`;
    if (tier && tier.includedCreditMinor > BigInt(0) && !(await tx.walletGrant.findFirst({ where: { reason }, select: { id: true } }))) {
      grantId = (await grantIn(tx, { ...SYSTEM, correlationId }, workspaceId, {
        amount_minor: toWire(tier.includedCreditMinor), currency, priority: INCLUDED_CREDIT_PRIORITY, expires_at: iso(end), reason,
      }, now, true)).id;
    }
    await writeAudit(tx, {
      workspaceId, actor: { kind: "system", id: null }, action: "billing.subscription_changed", target: { kind: "subscription", id: workspaceId },
      correlationId,
      details: {
        from: sub.tier, to: sub.tier, via: "renewal", periods: written, current_period_start: iso(start), current_period_end: iso(end),
        monthly_price_minor: toWire(price), currency, included_credit_grant_id: grantId,
      },
    });
    return written;
  });
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
