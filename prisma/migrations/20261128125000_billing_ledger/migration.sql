-- Billing ledger (issue #36 items 5, 7, 8; docs/decisions.md "Billing: credit notes, subscriptions that end,
-- every metered category priced").

-- Credit notes against an issued invoice: numbered gap-free in their own series, never more than is creditable.
CREATE TABLE "credit_notes" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "invoice_id" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    -- Of the amount: what reduced the invoice's remaining amount, and what was refunded of what had been paid.
    "reduced_minor" BIGINT NOT NULL,
    "refunded_minor" BIGINT NOT NULL,
    -- Where the refunded part went: wallet (paid balance) or null when nothing was refunded.
    "refund_to" TEXT,
    "reason" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "credit_notes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "credit_notes_amounts_check" CHECK ("amount_minor" > 0 AND "reduced_minor" >= 0 AND "refunded_minor" >= 0 AND "reduced_minor" + "refunded_minor" = "amount_minor"),
    CONSTRAINT "credit_notes_refund_to_check" CHECK ("refund_to" IS NULL OR "refund_to" IN ('wallet', 'card')),
    CONSTRAINT "credit_notes_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "credit_notes_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "credit_notes_issuer_number_key" ON "credit_notes"("issuer", "number");
CREATE INDEX "credit_notes_invoice_id_created_at_id_idx" ON "credit_notes"("invoice_id", "created_at", "id");
CREATE INDEX "credit_notes_workspace_id_created_at_id_idx" ON "credit_notes"("workspace_id", "created_at", "id");
CREATE FUNCTION "credit_notes_append_only"() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'credit_notes is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "credit_notes_append_only" BEFORE UPDATE OR DELETE ON "credit_notes" FOR EACH ROW EXECUTE FUNCTION "credit_notes_append_only"();

-- Subscriptions that end: cancellation at the period's end (resumable until then), trials.
ALTER TABLE "subscriptions"
    ADD COLUMN "status" TEXT NOT NULL DEFAULT 'active',
    ADD COLUMN "cancel_at_period_end" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "trial_end" TIMESTAMPTZ(3),
    ADD CONSTRAINT "subscriptions_status_check" CHECK ("status" IN ('active', 'trialing'));
ALTER TABLE "subscription_tiers" ADD COLUMN "trial_days" INTEGER NOT NULL DEFAULT 0,
    ADD CONSTRAINT "subscription_tiers_trial_days_check" CHECK ("trial_days" BETWEEN 0 AND 365);

-- Every metered category priced: the platform's cards capstan/runtime, capstan/storage, capstan/email.
ALTER TABLE "rate_card_versions"
    ADD COLUMN "per_cpu_second" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "per_gb_month" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "per_message" BIGINT NOT NULL DEFAULT 0;

-- The daily storage measurement of a workspace (bytes held: platform objects, KV values, managed databases).
CREATE TABLE "storage_measurements" (
    "workspace_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "bytes" BIGINT NOT NULL,
    "measured_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "storage_measurements_pkey" PRIMARY KEY ("workspace_id", "day"),
    CONSTRAINT "storage_measurements_bytes_check" CHECK ("bytes" >= 0),
    CONSTRAINT "storage_measurements_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- A trial (price 0, converted or lapsed at its end) and a cancellation at once (the unused time of the period credited:
-- a negative fee line) are periods of their own kind.
ALTER TABLE "subscription_periods" DROP CONSTRAINT "subscription_periods_kind_check";
ALTER TABLE "subscription_periods" ADD CONSTRAINT "subscription_periods_kind_check" CHECK ("kind" IN ('period', 'proration', 'trial', 'cancellation'));
ALTER TABLE "subscription_periods" DROP CONSTRAINT "subscription_periods_price_check";
ALTER TABLE "subscription_periods" ADD CONSTRAINT "subscription_periods_price_check"
    CHECK (("price_minor" >= 0) = ("kind" <> 'cancellation') AND "period_end" > "period_start");
