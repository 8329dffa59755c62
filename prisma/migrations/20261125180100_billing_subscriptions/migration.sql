-- Billing, second part (issue #19; docs/decisions.md "Billing"): the
-- workspace's billing profile, subscription tiers (platform price list) and
-- each workspace's subscription. Amounts are integer minor units.

CREATE TABLE "billing_profiles" (
    "workspace_id" TEXT NOT NULL,
    "legal_name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "address_line1" TEXT NOT NULL,
    "address_line2" TEXT,
    "city" TEXT NOT NULL,
    "postal_code" TEXT NOT NULL,
    "region" TEXT,
    "country" TEXT NOT NULL,
    "tax_id" TEXT,
    "updated_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "billing_profiles_pkey" PRIMARY KEY ("workspace_id")
);

CREATE TABLE "subscription_tiers" (
    "tier" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "monthly_price_minor" BIGINT NOT NULL,
    "included_credit_minor" BIGINT NOT NULL,
    "updated_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "subscription_tiers_pkey" PRIMARY KEY ("tier"),
    CONSTRAINT "subscription_tiers_plan_check" CHECK ("plan" IN ('free', 'team', 'enterprise')),
    CONSTRAINT "subscription_tiers_amounts_check" CHECK ("monthly_price_minor" >= 0 AND "included_credit_minor" >= 0)
);

CREATE TABLE "subscriptions" (
    "workspace_id" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "monthly_price_minor" BIGINT NOT NULL,
    "current_period_start" TIMESTAMPTZ(3) NOT NULL,
    "current_period_end" TIMESTAMPTZ(3) NOT NULL,
    "updated_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("workspace_id")
);
CREATE INDEX "subscriptions_tier_idx" ON "subscriptions"("tier");
