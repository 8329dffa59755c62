-- Billing, proration (issue #19; docs/decisions.md "Billing: proration"): a
-- change to a tier that does not lower the price takes effect at once and
-- bills the difference for the rest of the period as a period row of kind
-- 'proration'; a change that lowers the price (or changes the currency) is
-- scheduled on the subscription and applied by renewal at the period's end.
ALTER TABLE "subscriptions" ADD COLUMN "scheduled_tier" TEXT;
ALTER TABLE "subscription_periods" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'period';
ALTER TABLE "subscription_periods" ADD CONSTRAINT "subscription_periods_kind_check" CHECK ("kind" IN ('period', 'proration'));
