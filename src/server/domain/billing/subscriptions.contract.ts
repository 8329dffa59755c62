import { z } from "zod";
import { zWorkspaceId } from "@/server/platform/ids";
import { zPage } from "@/server/platform/pagination";
import { CURRENCY_CODES } from "./money";

/** Billing profile, subscription tiers and subscriptions (spec 4.4, fields ours; docs/decisions.md "Billing"). */
const zCurrency = z.enum(CURRENCY_CODES).describe("ISO 4217 code");
const zText = (max: number) => z.string().trim().min(1).max(max);
const zMinor = z.number().int().min(0).max(100_000_000_000).describe("Minor units (cents)");
export const zTierName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, "tier: 1..32 of a-z 0-9 _ - starting with a letter");
const PLANS = ["free", "team", "enterprise"] as const;

export const ZBillingProfileRequest = z
  .strictObject({
    legal_name: zText(200),
    email: z.string().email().max(254),
    address: z.strictObject({
      line1: zText(200),
      line2: zText(200).optional(),
      city: zText(100),
      postal_code: zText(32),
      region: zText(100).optional(),
      /** ISO 3166-1 alpha-2. */
      country: z.string().regex(/^[A-Z]{2}$/, "country: ISO 3166-1 alpha-2, upper case"),
    }),
    tax_id: zText(64).optional(),
    /** Days after issue an invoice is due (0..365; default 14). */
    payment_terms_days: z.number().int().min(0).max(365).optional(),
  })
  .meta({ id: "BillingProfileRequest" });
export type TBillingProfileRequest = z.infer<typeof ZBillingProfileRequest>;

export const ZBillingProfile = z
  .object({
    workspace_id: zWorkspaceId,
    /** False until the profile is first set; every other field is then null. */
    configured: z.boolean(),
    legal_name: z.string().nullable(),
    email: z.string().nullable(),
    address: z
      .object({
        line1: z.string(),
        line2: z.string().nullable(),
        city: z.string(),
        postal_code: z.string(),
        region: z.string().nullable(),
        country: z.string(),
      })
      .nullable(),
    tax_id: z.string().nullable(),
    /** Days after issue an invoice is due (14 until set). */
    payment_terms_days: z.number().int(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "BillingProfile" });
export type TBillingProfile = z.infer<typeof ZBillingProfile>;

export const BILLING_MODES = ["postpaid", "prepaid"] as const;
export type TBillingMode = (typeof BILLING_MODES)[number];

const zLimit = z.number().min(0).max(1e15).nullable();
export const ZDefaultBudgets = z
  .strictObject({
    ai_tokens: zLimit.optional(),
    runtime: zLimit.optional(),
    provider_call: zLimit.optional(),
    storage: zLimit.optional(),
  })
  .meta({ id: "TierDefaultBudgets" });
export type TDefaultBudgets = z.infer<typeof ZDefaultBudgets>;

export const ZTierRequest = z
  .strictObject({
    name: zText(100),
    /** The plan a subscription to this tier sets on the workspace. */
    plan: z.enum(PLANS),
    currency: zCurrency,
    monthly_price_minor: zMinor,
    /** Credit granted at each subscription start (a grant expiring at the period's end). */
    included_credit_minor: zMinor,
    /**
     * postpaid (default): usage is debited after the fact and the balance may go below zero.
     * prepaid: each call holds its maximum price from the wallet first and is refused (usage_denied) when the wallet cannot cover it.
     */
    billing_mode: z.enum(BILLING_MODES).default("postpaid"),
    /** Monthly budget limits (usage units; null = unlimited) set on the workspace when it subscribes; a category left out is not touched. */
    default_budgets: ZDefaultBudgets.default({}),
    /** Days of free trial a workspace's first subscription starts with (0..365; default 0: none). Once per workspace. */
    trial_days: z.number().int().min(0).max(365).default(0),
  })
  .meta({ id: "SubscriptionTierRequest" });

export const ZTier = z
  .object({
    tier: z.string(),
    name: z.string(),
    plan: z.enum(PLANS),
    currency: zCurrency,
    monthly_price_minor: z.number().int(),
    included_credit_minor: z.number().int(),
    billing_mode: z.enum(BILLING_MODES),
    default_budgets: ZDefaultBudgets,
    trial_days: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "SubscriptionTier" });
export type TTier = z.infer<typeof ZTier>;
export const ZTierList = zPage(ZTier).meta({ id: "SubscriptionTiers" });

export const ZSubscriptionRequest = z.strictObject({ tier: zTierName }).meta({ id: "SubscriptionRequest" });

export const ZSubscription = z
  .object({
    workspace_id: zWorkspaceId,
    /** null: no subscription (the workspace's plan was set directly). */
    tier: z.string().nullable(),
    plan: z.enum(PLANS),
    currency: zCurrency.nullable(),
    /** The price in force when the current period started. */
    monthly_price_minor: z.number().int().nullable(),
    /** The tier's billing mode; null without a subscription (postpaid). */
    billing_mode: z.enum(BILLING_MODES).nullable(),
    current_period_start: z.string().nullable(),
    current_period_end: z.string().nullable(),
    /** A change that lowers the price (or changes the currency), taking effect at the current period's end; null: none. */
    scheduled_tier: z.string().nullable(),
    /** When scheduled_tier takes effect (the current period's end); null without one. */
    scheduled_at: z.string().nullable(),
    /** active, or trialing until trial_end (then it converts, or lapses to the free plan without a payment method); null without a subscription. */
    status: z.enum(["active", "trialing"]).nullable(),
    /** When a trial ends; null when not trialing. */
    trial_end: z.string().nullable(),
    /** True: the subscription ends at the current period's end instead of renewing (resume before then to keep it). */
    cancel_at_period_end: z.boolean(),
    /** When a scheduled cancellation takes effect (the current period's end); null without one. */
    cancel_at: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "Subscription" });
export type TSubscription = z.infer<typeof ZSubscription>;

/** How a subscription is cancelled (DELETE): at the current period's end (default; resumable until then) or at once (the unused time credited). */
export const ZSubscriptionCancelQuery = z.object({ when: z.enum(["period_end", "immediately"]).default("period_end") });
