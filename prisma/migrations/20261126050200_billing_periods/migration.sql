-- Billing, subscription periods (issue #19; docs/decisions.md "Billing:
-- prepaid, Stripe, renewal"): every period a subscription runs is a row with
-- the tier price snapshotted when it started, so renewal can roll the
-- subscription forward and a month's invoice still finds the fee of each
-- period that started in it. Unique per (workspace, start): a renewal that
-- two workers attempt writes one period.
CREATE TABLE "subscription_periods" (
    "workspace_id" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "tier" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "price_minor" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "subscription_periods_pkey" PRIMARY KEY ("workspace_id", "period_start"),
    CONSTRAINT "subscription_periods_price_check" CHECK ("price_minor" >= 0 AND "period_end" > "period_start")
);
INSERT INTO "subscription_periods" ("workspace_id", "period_start", "period_end", "tier", "currency", "price_minor")
SELECT "workspace_id", "current_period_start", "current_period_end", "tier", "currency", "monthly_price_minor" FROM "subscriptions";
CREATE INDEX "subscriptions_current_period_end_idx" ON "subscriptions"("current_period_end");

-- Default monthly budget limits a tier sets when a workspace subscribes to it
-- ({usage_category: limit units or null = unlimited}; a category left out is not touched).
ALTER TABLE "subscription_tiers" ADD COLUMN "default_budgets" JSONB NOT NULL DEFAULT '{}';
