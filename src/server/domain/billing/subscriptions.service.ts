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
import type { TBillingMode, TBillingProfile, TBillingProfileRequest, TDefaultBudgets, TSubscription, TTier } from "./subscriptions.contract";
import { assertWorkspace, grantIn, inWallet } from "./wallet.service";

/**
 * Billing profile, subscription tiers and subscriptions (docs/decisions.md
 * "Billing"). A subscription change takes effect at once: it sets the
 * workspace's plan, starts a new monthly period at the new tier's current
 * price and grants the tier's included credit (once per tier and calendar
 * month, so switching back and forth cannot farm credit).
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
  const rows = await db().subscriptionTier.findMany({ orderBy: [{ monthlyPriceMinor: "asc" }, { tier: "asc" }] });
  return { items: rows.map(toTier), next_cursor: null };
}

export async function getTier(tier: string): Promise<TTier> {
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
    current_period_start: isoOrNull(s?.currentPeriodStart), current_period_end: isoOrNull(s?.currentPeriodEnd), updated_at: isoOrNull(s?.updatedAt),
  };
}

export async function getSubscription(workspaceId: string): Promise<TSubscription> {
  await assertWorkspace(workspaceId);
  const [plan, sub] = await Promise.all([getPlan(workspaceId), scopedDb(workspaceId).subscription.findFirst()]);
  // The tier catalogue is platform-global: db().
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
 * Subscribes the workspace to `tier` (owner/admin, or the platform override):
 * immediate; the same tier again is a no-op. Plan, subscription, included
 * credit and audits commit together.
 */
export async function setSubscription(caller: TCaller, workspaceId: string, tier: string, via: "workspace" | "platform"): Promise<TSubscription> {
  await assertWorkspace(workspaceId);
  // The tier catalogue is platform-global (db()), read before the workspace's scoped wallet transaction.
  const t = await db().subscriptionTier.findUnique({ where: { tier } });
  if (!t) throw new AppError("validation_failed", `${tier} is not a subscription tier`, { reason: "unknown_tier", errors: [{ path: "/tier", message: "is not a subscription tier" }] });
  let changed = false;
  const result = await inWallet(workspaceId, async (tx) => {
    const before = await tx.subscription.findFirst();
    if (before?.tier === tier) {
      const plan = await tx.plan.findFirst();
      return toSubscription(workspaceId, (plan?.plan ?? "free") as TPlanName, before, t.billingMode);
    }
    changed = true;
    const now = new Date();
    const end = addMonth(now);
    const data = { tier, currency: t.currency, monthlyPriceMinor: t.monthlyPriceMinor, currentPeriodStart: now, currentPeriodEnd: end, updatedBy: caller.userId, updatedAt: now };
    const row = await tx.subscription.upsert({ where: { workspaceId }, create: { workspaceId, ...data, createdAt: now }, update: data });
    await tx.subscriptionPeriod.create({ data: { workspaceId, periodStart: now, periodEnd: end, tier, currency: t.currency, priceMinor: t.monthlyPriceMinor, createdAt: now } });
    const plan = await applyPlan(tx, caller, workspaceId, t.plan as TPlanName);
    let grantId: string | null = null;
    const reason = `subscription:${tier}:${utcMonth(now)}`;
    if (t.includedCreditMinor > BigInt(0) && !(await tx.walletGrant.findFirst({ where: { reason }, select: { id: true } }))) {
      grantId = (await grantIn(tx, caller, workspaceId, {
        amount_minor: toWire(t.includedCreditMinor), currency: t.currency as TCurrency, priority: INCLUDED_CREDIT_PRIORITY, expires_at: iso(end), reason,
      }, now)).id;
    }
    await writeAudit(tx, {
      workspaceId, actor: { kind: "user", id: caller.userId }, action: "billing.subscription_changed", target: { kind: "subscription", id: workspaceId },
      correlationId: caller.correlationId,
      details: { from: before?.tier ?? null, to: tier, via, plan: t.plan, monthly_price_minor: toWire(t.monthlyPriceMinor), currency: t.currency, included_credit_grant_id: grantId },
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
async function applyTierBudgets(caller: TCaller, workspaceId: string, defaults: TDefaultBudgets): Promise<void> {
  for (const category of USAGE_CATEGORIES) {
    const limit = defaults[category];
    if (limit !== undefined) await setBudgetLimit(caller, workspaceId, category, limit);
  }
}
