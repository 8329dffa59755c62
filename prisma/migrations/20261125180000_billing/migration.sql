-- Billing, first cut (issue #19; docs/decisions.md "Billing"): immutable
-- effective-dated rate card versions, the wallet's append-only ledger (each
-- entry unique by its source), credit grants, payment orders with the
-- gateway events seen (unique per gateway event id), refunds, and the price
-- of each Bridge call on its capability invocation. Amounts are integers:
-- *_micros (millionths of the major unit) or *_minor (minor units). No
-- foreign keys to workspaces: money records outlive a deleted workspace.

CREATE TABLE "rate_card_versions" (
    "id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "input_tokens_per_million" BIGINT NOT NULL,
    "output_tokens_per_million" BIGINT NOT NULL,
    "per_call" BIGINT NOT NULL,
    "effective_from" TIMESTAMPTZ(3) NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "rate_card_versions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "rate_card_versions_prices_check" CHECK ("input_tokens_per_million" >= 0 AND "output_tokens_per_million" >= 0 AND "per_call" >= 0)
);
CREATE UNIQUE INDEX "rate_card_versions_provider_model_effective_from_key" ON "rate_card_versions"("provider", "model", "effective_from");
CREATE INDEX "rate_card_versions_created_at_id_idx" ON "rate_card_versions"("created_at", "id");

CREATE TABLE "wallet_grants" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "priority" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "wallet_grants_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "wallet_grants_amount_check" CHECK ("amount_micros" > 0)
);
CREATE INDEX "wallet_grants_workspace_id_expires_at_idx" ON "wallet_grants"("workspace_id", "expires_at");

CREATE TABLE "wallet_entries" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "grant_id" TEXT,
    "source_kind" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "line" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "wallet_entries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "wallet_entries_kind_check" CHECK ("kind" IN ('top_up', 'grant', 'usage', 'refund', 'adjustment', 'expiry'))
);
-- The source of an entry credits or debits once: a duplicate callback or a retried posting hits this.
CREATE UNIQUE INDEX "wallet_entries_source_kind_source_id_line_key" ON "wallet_entries"("source_kind", "source_id", "line");
CREATE INDEX "wallet_entries_workspace_id_created_at_id_idx" ON "wallet_entries"("workspace_id", "created_at", "id");
CREATE INDEX "wallet_entries_workspace_id_currency_grant_id_idx" ON "wallet_entries"("workspace_id", "currency", "grant_id");

CREATE FUNCTION "billing_append_only"() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "wallet_entries_append_only" BEFORE UPDATE OR DELETE ON "wallet_entries"
    FOR EACH ROW EXECUTE FUNCTION "billing_append_only"();
CREATE TRIGGER "rate_card_versions_append_only" BEFORE UPDATE OR DELETE ON "rate_card_versions"
    FOR EACH ROW EXECUTE FUNCTION "billing_append_only"();

CREATE TABLE "payment_orders" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "gateway" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "refunded_minor" BIGINT NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "failure_message" TEXT,
    "created_by" TEXT NOT NULL,
    "paid_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "payment_orders_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payment_orders_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed')),
    CONSTRAINT "payment_orders_amounts_check" CHECK ("amount_minor" > 0 AND "refunded_minor" >= 0 AND "refunded_minor" <= "amount_minor")
);
CREATE INDEX "payment_orders_workspace_id_created_at_id_idx" ON "payment_orders"("workspace_id", "created_at", "id");

CREATE TABLE "payment_events" (
    "gateway" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "payment_events_pkey" PRIMARY KEY ("gateway", "event_id")
);

CREATE TABLE "payment_refunds" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "reason" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "payment_refunds_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payment_refunds_amount_check" CHECK ("amount_minor" > 0)
);
CREATE INDEX "payment_refunds_order_id_idx" ON "payment_refunds"("order_id");

-- The price of a Bridge call and the card version it used, written with the call's record.
ALTER TABLE "capability_invocations"
    ADD COLUMN "charge_micros" BIGINT,
    ADD COLUMN "charge_currency" TEXT,
    ADD COLUMN "rate_card_version_id" TEXT;
-- Priced calls not yet on the ledger are found per workspace (wallet.service.ts postDue).
CREATE INDEX "capability_invocations_priced_idx" ON "capability_invocations"("workspace_id") WHERE "charge_micros" > 0;
