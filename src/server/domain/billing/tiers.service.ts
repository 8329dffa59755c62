import type { Prisma, SubscriptionTier } from "@/generated/prisma/client";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import { writeAudit } from "@/server/platform/audit";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { notFound } from "@/server/platform/errors";
import { PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { iso } from "@/server/platform/time";
import { fromWire, toWire, type TCurrency } from "./money";
import type { TBillingMode, TDefaultBudgets, TTier } from "./subscriptions.contract";

/** The subscription tier catalogue (platform admins edit it; every workspace reads it). */

type TCaller = { userId: string; correlationId: string };

// Platform-scoped by design: the tier catalogue belongs to no workspace (PLATFORM_GLOBAL), so db().

function toTier(t: SubscriptionTier): TTier {
  return {
    tier: t.tier,
    name: t.name,
    plan: t.plan as TPlanName,
    currency: t.currency as TCurrency,
    monthly_price_minor: toWire(t.monthlyPriceMinor),
    included_credit_minor: toWire(t.includedCreditMinor),
    billing_mode: t.billingMode as TBillingMode,
    default_budgets: (t.defaultBudgets ?? {}) as TDefaultBudgets,
    trial_days: t.trialDays,
    created_at: iso(t.createdAt),
    updated_at: iso(t.updatedAt),
  };
}

export async function listTiers(): Promise<{ items: TTier[]; next_cursor: null }> {
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL).
  const rows = await db().subscriptionTier.findMany({ orderBy: [{ monthlyPriceMinor: "asc" }, { tier: "asc" }] });
  return { items: rows.map(toTier), next_cursor: null };
}

export async function getTier(tier: string): Promise<TTier> {
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL), read before the scoped wallet transaction.
  const t = await db().subscriptionTier.findUnique({ where: { tier } });
  if (!t) throw notFound(`Subscription tier ${tier}`);
  return toTier(t);
}

/**
 * Creates or changes a tier. Existing subscriptions keep the price their
 * period started at; the new price applies from their next change.
 */
export async function putTier(
  caller: TCaller,
  tier: string,
  input: {
    name: string;
    plan: TPlanName;
    currency: TCurrency;
    monthly_price_minor: number;
    included_credit_minor: number;
    billing_mode?: TBillingMode;
    default_budgets?: TDefaultBudgets;
    trial_days?: number;
  },
): Promise<TTier> {
  const data = {
    name: input.name,
    plan: input.plan,
    currency: input.currency,
    monthlyPriceMinor: fromWire(input.monthly_price_minor),
    includedCreditMinor: fromWire(input.included_credit_minor),
    billingMode: input.billing_mode ?? "postpaid",
    defaultBudgets: (input.default_budgets ?? {}) as Prisma.InputJsonValue,
    trialDays: input.trial_days ?? 0,
    updatedBy: caller.userId,
  };
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL).
  const result = await db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"tier:" + tier}, 0))`;
    const before = await tx.subscriptionTier.findUnique({ where: { tier } });
    const now = new Date();
    const row = await tx.subscriptionTier.upsert({
      where: { tier },
      create: { tier, ...data, createdAt: now, updatedAt: now },
      update: { ...data, updatedAt: now },
    });
    const same =
      before &&
      before.name === row.name &&
      before.plan === row.plan &&
      before.currency === row.currency &&
      before.monthlyPriceMinor === row.monthlyPriceMinor &&
      before.includedCreditMinor === row.includedCreditMinor &&
      before.billingMode === row.billingMode &&
      JSON.stringify(before.defaultBudgets) === JSON.stringify(row.defaultBudgets) &&
      before.trialDays === row.trialDays;
    if (!same) {
      await writeAudit(tx, {
        workspaceId: PLATFORM_WORKSPACE_ID,
        actor: { kind: "user", id: caller.userId },
        action: "billing.tier_changed",
        target: { kind: "subscription_tier", id: tier },
        correlationId: caller.correlationId,
        details: {
          before: before ? toTier(before) : null,
          after: { ...input, billing_mode: data.billingMode, default_budgets: input.default_budgets ?? {} },
        },
      });
    }
    return {
      tier: toTier(row),
      modeChanged: before?.billingMode !== row.billingMode || before?.currency !== row.currency,
    };
  });
  // Every workspace on this tier may switch between postpaid and prepaid: the Bridge's caches everywhere.
  if (result.modeChanged) signalChange("plan", null);
  return result.tier;
}
