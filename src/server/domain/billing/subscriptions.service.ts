import type { BillingProfile, Prisma, Subscription, SubscriptionTier } from "@/generated/prisma/client";
import { setBudgetLimit } from "@/server/domain/usage/budget.service";
import { applyPlan, getPlan } from "@/server/domain/usage/plan.service";
import { USAGE_CATEGORIES } from "@/server/domain/usage/usage.contract";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import { writeAudit } from "@/server/platform/audit";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { iso, isoOrNull, utcMonth } from "@/server/platform/time";
import { fromWire, toWire, type TCurrency } from "./money";
import { upgradeCharge } from "./proration";
import type { TBillingMode, TBillingProfile, TBillingProfileRequest, TDefaultBudgets, TSubscription, TTier } from "./subscriptions.contract";
import { assertWorkspace, grantIn, inWallet } from "./wallet.service";

/**
 * Billing profile, subscription tiers and subscriptions (docs/decisions.md
 * "Billing", "Billing: proration"). An upgrade takes effect at once with a
 * prorated charge; a downgrade at the period's end. Included credit is
 * granted once per tier and calendar month, so switching back and forth
 * cannot farm credit.
 */

type TCaller = { userId: string; correlationId: string };
const INCLUDED_CREDIT_PRIORITY = 50;

// ---------------------------------------------------------------- profile

function toProfile(workspaceId: string, p: BillingProfile | null): TBillingProfile {
  if (!p) return { workspace_id: workspaceId, configured: false, legal_name: null, email: null, address: null, tax_id: null, updated_at: null };
  return {
    workspace_id: workspaceId, configured: true, legal_name: p.legalName, email: p.email,
    address: { line1: p.addressLine1, line2: p.addressLine2, city: p.city, postal_code: p.postalCode, region: p.region, country: p.country },
    tax_id: p.taxId, updated_at: iso(p.updatedAt),
  };
}

export async function getProfile(workspaceId: string): Promise<TBillingProfile> {
  return toProfile(workspaceId, await scopedDb(workspaceId).billingProfile.findFirst());
}

export async function putProfile(caller: TCaller, workspaceId: string, input: TBillingProfileRequest): Promise<TBillingProfile> {
  const data = {
    legalName: input.legal_name, email: input.email, addressLine1: input.address.line1, addressLine2: input.address.line2 ?? null,
    city: input.address.city, postalCode: input.address.postal_code, region: input.address.region ?? null, country: input.address.country,
    taxId: input.tax_id ?? null, updatedBy: caller.userId,
  };
  return scopedDb(workspaceId).$transaction(async (tx) => {
    const before = await tx.billingProfile.findFirst();
    const now = new Date();
    const row = await tx.billingProfile.upsert({ where: { workspaceId }, create: { workspaceId, ...data, createdAt: now, updatedAt: now }, update: { ...data, updatedAt: now } });
    // Names of the fields that changed, not their values (an address is personal data; the profile itself holds it).
    const changed = (Object.keys(data) as (keyof typeof data)[]).filter((k) => k !== "updatedBy" && (!before || before[k] !== data[k]));
    if (changed.length) {
      await writeAudit(tx, {
        workspaceId, actor: { kind: "user", id: caller.userId }, action: "billing.profile_changed", target: { kind: "billing_profile", id: workspaceId },
        correlationId: caller.correlationId, details: { created: !before, changed_fields: changed },
      });
    }
    return toProfile(workspaceId, row);
  });
}

// ---------------------------------------------------------------- tiers
// Platform-scoped by design: the tier catalogue belongs to no workspace (PLATFORM_GLOBAL), so db().

function toTier(t: SubscriptionTier): TTier {
  return {
    tier: t.tier, name: t.name, plan: t.plan as TPlanName, currency: t.currency as TCurrency,
    monthly_price_minor: toWire(t.monthlyPriceMinor), included_credit_minor: toWire(t.includedCreditMinor),
    billing_mode: t.billingMode as TBillingMode, default_budgets: (t.defaultBudgets ?? {}) as TDefaultBudgets,
    created_at: iso(t.createdAt), updated_at: iso(t.updatedAt),
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
  caller: TCaller, tier: string,
  input: {
    name: string; plan: TPlanName; currency: TCurrency; monthly_price_minor: number; included_credit_minor: number; billing_mode?: TBillingMode;
    default_budgets?: TDefaultBudgets;
  },
): Promise<TTier> {
  const data = {
    name: input.name, plan: input.plan, currency: input.currency, monthlyPriceMinor: fromWire(input.monthly_price_minor),
    includedCreditMinor: fromWire(input.included_credit_minor), billingMode: input.billing_mode ?? "postpaid",
    defaultBudgets: (input.default_budgets ?? {}) as Prisma.InputJsonValue, updatedBy: caller.userId,
  };
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL).
  const result = await db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"tier:" + tier}, 0))`;
    const before = await tx.subscriptionTier.findUnique({ where: { tier } });
    const now = new Date();
    const row = await tx.subscriptionTier.upsert({ where: { tier }, create: { tier, ...data, createdAt: now, updatedAt: now }, update: { ...data, updatedAt: now } });
    const same = before && before.name === row.name && before.plan === row.plan && before.currency === row.currency
      && before.monthlyPriceMinor === row.monthlyPriceMinor && before.includedCreditMinor === row.includedCreditMinor
      && before.billingMode === row.billingMode && JSON.stringify(before.defaultBudgets) === JSON.stringify(row.defaultBudgets);
    if (!same) {
      await writeAudit(tx, {
        workspaceId: PLATFORM_WORKSPACE_ID, actor: { kind: "user", id: caller.userId }, action: "billing.tier_changed",
        target: { kind: "subscription_tier", id: tier }, correlationId: caller.correlationId,
        details: { before: before ? toTier(before) : null, after: { ...input, billing_mode: data.billingMode, default_budgets: input.default_budgets ?? {} } },
      });
    }
    return { tier: toTier(row), modeChanged: before?.billingMode !== row.billingMode || before?.currency !== row.currency };
  });
  // Every workspace on this tier may switch between postpaid and prepaid: the Bridge's caches everywhere.
  if (result.modeChanged) signalChange("plan", null);
  return result.tier;
}

// ---------------------------------------------------------------- subscriptions

function toSubscription(workspaceId: string, plan: TPlanName, s: Subscription | null, mode: string | null = null): TSubscription {
  return {
    workspace_id: workspaceId, tier: s?.tier ?? null, plan, currency: (s?.currency ?? null) as TCurrency | null,
    monthly_price_minor: s ? toWire(s.monthlyPriceMinor) : null, billing_mode: s ? ((mode ?? "postpaid") as TBillingMode) : null,
    current_period_start: isoOrNull(s?.currentPeriodStart), current_period_end: isoOrNull(s?.currentPeriodEnd),
    scheduled_tier: s?.scheduledTier ?? null, scheduled_at: s?.scheduledTier ? iso(s.currentPeriodEnd) : null, updated_at: isoOrNull(s?.updatedAt),
  };
}

export async function getSubscription(workspaceId: string): Promise<TSubscription> {
  await assertWorkspace(workspaceId);
  const [plan, sub] = await Promise.all([getPlan(workspaceId), scopedDb(workspaceId).subscription.findFirst()]);
  // The tier catalogue is platform-global: db().
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL).
  const tier = sub ? await db().subscriptionTier.findUnique({ where: { tier: sub.tier }, select: { billingMode: true } }) : null;
  return toSubscription(workspaceId, plan.plan, sub, tier?.billingMode ?? null);
}

/** The same day next month (UTC), clamped to the month's last day. */
export function addMonth(d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
}

/**
 * Subscribes the workspace to `tier` (owner/admin, or the platform override;
 * docs/decisions.md "Billing: proration"). A first subscription starts a
 * period now. A change that does not lower the price (same currency) is
 * immediate: the plan changes, the period is kept and the price difference
 * for the rest of it is billed (a `proration` period row). A change that
 * lowers the price or changes the currency is scheduled for the period's end
 * (renewal applies it). The current tier again cancels a scheduled change,
 * else is a no-op. Plan, subscription, credit and audits commit together.
 */
export async function setSubscription(caller: TCaller, workspaceId: string, tier: string, via: "workspace" | "platform"): Promise<TSubscription> {
  await assertWorkspace(workspaceId);
  // The tier catalogue is platform-global (db()), read before the workspace's scoped wallet transaction.
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL), read before the scoped wallet transaction.
  const t = await db().subscriptionTier.findUnique({ where: { tier } });
  if (!t) throw new AppError("validation_failed", `${tier} is not a subscription tier`, { reason: "unknown_tier", errors: [{ path: "/tier", message: "is not a subscription tier" }] });
  // The current tier too (its credit and mode): read outside the scoped transaction, re-checked inside it.
  const named = await scopedDb(workspaceId).subscription.findFirst({ select: { tier: true } });
  // platform-scoped: the tier catalogue (PLATFORM_GLOBAL).
  const old = named ? await db().subscriptionTier.findUnique({ where: { tier: named.tier } }) : null;
  let changed = false;
  const result = await inWallet(workspaceId, async (tx) => {
    const before = await tx.subscription.findFirst();
    if (before && before.tier !== named?.tier) throw new AppError("conflict", "The subscription changed meanwhile; retry", { reason: "concurrent_change" });
    const now = new Date();
    const audit = (details: Record<string, unknown>) => writeAudit(tx, {
      workspaceId, actor: { kind: "user", id: caller.userId }, action: "billing.subscription_changed", target: { kind: "subscription", id: workspaceId },
      correlationId: caller.correlationId, details: { from: before?.tier ?? null, to: tier, via, ...details },
    });
    const currentPlan = async () => ((await tx.plan.findFirst())?.plan ?? "free") as TPlanName;
    if (before && (before.tier === tier || before.scheduledTier === tier)) {
      // Asking for what is already in force (or already scheduled): cancel a pending change, or nothing.
      let row = before;
      if (before.tier === tier && before.scheduledTier) {
        row = await tx.subscription.update({ where: { workspaceId }, data: { scheduledTier: null, updatedBy: caller.userId, updatedAt: now } });
        await audit({ effective: "immediate", cancelled_scheduled_tier: before.scheduledTier });
      }
      return toSubscription(workspaceId, await currentPlan(), row, old?.billingMode ?? null);
    }
    if (before && (before.currency !== t.currency || t.monthlyPriceMinor < before.monthlyPriceMinor)) {
      // Lowers the price or changes the currency: at the period's end, nothing owed now.
      const row = await tx.subscription.update({ where: { workspaceId }, data: { scheduledTier: tier, updatedBy: caller.userId, updatedAt: now } });
      await audit({ effective: "period_end", effective_at: iso(before.currentPeriodEnd), plan: t.plan, monthly_price_minor: toWire(t.monthlyPriceMinor), currency: t.currency });
      return toSubscription(workspaceId, await currentPlan(), row, old?.billingMode ?? null);
    }
    changed = true;
    let row: Subscription;
    let grantMinor = t.includedCreditMinor;
    let grantExpiry: Date;
    let prorationMinor: bigint | null = null;
    if (before) {
      // Immediate, keeping the period (its anchor): the difference for the time left.
      const period = { start: before.currentPeriodStart, end: before.currentPeriodEnd };
      const cost = upgradeCharge(
        { priceMinor: before.monthlyPriceMinor, includedCreditMinor: old?.includedCreditMinor ?? BigInt(0) },
        { priceMinor: t.monthlyPriceMinor, includedCreditMinor: t.includedCreditMinor }, period, now,
      );
      prorationMinor = cost.chargeMinor;
      grantMinor = cost.creditMinor;
      grantExpiry = before.currentPeriodEnd;
      row = await tx.subscription.update({
        where: { workspaceId }, data: { tier, monthlyPriceMinor: t.monthlyPriceMinor, scheduledTier: null, updatedBy: caller.userId, updatedAt: now },
      });
      if (before.currentPeriodEnd > now) {
        await tx.subscriptionPeriod.create({
          data: { workspaceId, periodStart: now, periodEnd: before.currentPeriodEnd, tier, currency: t.currency, priceMinor: cost.chargeMinor, kind: "proration", createdAt: now },
        });
      }
    } else {
      const end = addMonth(now);
      grantExpiry = end;
      const data = { tier, currency: t.currency, monthlyPriceMinor: t.monthlyPriceMinor, currentPeriodStart: now, currentPeriodEnd: end, updatedBy: caller.userId, updatedAt: now };
      row = await tx.subscription.create({ data: { workspaceId, ...data, createdAt: now } });
      await tx.subscriptionPeriod.create({ data: { workspaceId, periodStart: now, periodEnd: end, tier, currency: t.currency, priceMinor: t.monthlyPriceMinor, createdAt: now } });
    }
    const plan = await applyPlan(tx, caller, workspaceId, t.plan as TPlanName);
    let grantId: string | null = null;
    const reason = `subscription:${tier}:${utcMonth(now)}`;
    if (grantMinor > BigInt(0) && grantExpiry > now && !(await tx.walletGrant.findFirst({ where: { reason }, select: { id: true } }))) {
      grantId = (await grantIn(tx, caller, workspaceId, {
        amount_minor: toWire(grantMinor), currency: t.currency as TCurrency, priority: INCLUDED_CREDIT_PRIORITY, expires_at: iso(grantExpiry), reason,
      }, now)).id;
    }
    await audit({
      effective: "immediate", plan: t.plan, monthly_price_minor: toWire(t.monthlyPriceMinor), currency: t.currency, included_credit_grant_id: grantId,
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
