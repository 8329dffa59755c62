-- Billing that collects (issue #36 items 3, 4; docs/decisions.md "Billing: collection and dunning").

-- A workspace's collection account: its Stripe customer, its default saved payment method, the
-- automatic top-up settings (threshold and amount in minor units of one currency), the low-balance
-- mark (set when wallet.low_balance was emitted, cleared when the balance is back above), and its
-- standing: good | past_due (dunning running, or exhausted under keep_serving) | restricted | suspended.
CREATE TABLE "billing_accounts" (
    "workspace_id" TEXT NOT NULL,
    "stripe_customer_id" TEXT,
    "default_payment_method_id" TEXT,
    "auto_top_up_enabled" BOOLEAN NOT NULL DEFAULT false,
    "auto_top_up_currency" TEXT,
    "auto_top_up_threshold_minor" BIGINT,
    "auto_top_up_amount_minor" BIGINT,
    "low_balance_at" TIMESTAMPTZ(3),
    "standing" TEXT NOT NULL DEFAULT 'good',
    "standing_invoice_id" TEXT,
    "standing_reason" TEXT,
    "standing_since" TIMESTAMPTZ(3),
    "updated_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "billing_accounts_pkey" PRIMARY KEY ("workspace_id"),
    CONSTRAINT "billing_accounts_standing_check" CHECK ("standing" IN ('good', 'past_due', 'restricted', 'suspended')),
    CONSTRAINT "billing_accounts_auto_top_up_check" CHECK (
        ("auto_top_up_threshold_minor" IS NULL OR "auto_top_up_threshold_minor" >= 0)
        AND ("auto_top_up_amount_minor" IS NULL OR "auto_top_up_amount_minor" > 0)
        AND (NOT "auto_top_up_enabled" OR ("auto_top_up_currency" IS NOT NULL AND "auto_top_up_threshold_minor" IS NOT NULL AND "auto_top_up_amount_minor" IS NOT NULL)))
);
CREATE UNIQUE INDEX "billing_accounts_stripe_customer_id_key" ON "billing_accounts"("stripe_customer_id");

-- A saved payment method, by reference only (the gateway's id; brand, last 4 digits and expiry to
-- show it): never card data.
CREATE TABLE "payment_methods" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "gateway" TEXT NOT NULL,
    "gateway_reference" TEXT NOT NULL,
    "brand" TEXT,
    "last4" TEXT,
    "exp_month" INTEGER,
    "exp_year" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "removed_at" TIMESTAMPTZ(3),
    CONSTRAINT "payment_methods_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payment_methods_status_check" CHECK ("status" IN ('active', 'removed'))
);
CREATE UNIQUE INDEX "payment_methods_gateway_gateway_reference_key" ON "payment_methods"("gateway", "gateway_reference");
CREATE INDEX "payment_methods_workspace_id_created_at_id_idx" ON "payment_methods"("workspace_id", "created_at", "id");

-- A setup through a Stripe Checkout Session (mode setup): completed by the signed callback.
CREATE TABLE "payment_method_setups" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "gateway_reference" TEXT NOT NULL,
    "url" TEXT,
    "status" TEXT NOT NULL DEFAULT 'open',
    "payment_method_id" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "payment_method_setups_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payment_method_setups_status_check" CHECK ("status" IN ('open', 'complete', 'expired'))
);
CREATE UNIQUE INDEX "payment_method_setups_gateway_reference_key" ON "payment_method_setups"("gateway_reference");
CREATE INDEX "payment_method_setups_workspace_id_created_at_id_idx" ON "payment_method_setups"("workspace_id", "created_at", "id");

-- One attempt to collect an invoice through the gateway: an off-session charge of a saved card
-- (method card) or a hosted checkout link (method checkout). At most one card charge of an invoice
-- is in flight (the claim) and at most one checkout link is open.
CREATE TABLE "invoice_collections" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "invoice_id" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "payment_method_id" TEXT,
    "gateway_reference" TEXT,
    "idempotency_key" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "action_url" TEXT,
    "applied_to" TEXT,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "invoice_collections_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "invoice_collections_method_check" CHECK ("method" IN ('card', 'checkout')),
    CONSTRAINT "invoice_collections_status_check" CHECK ("status" IN ('processing', 'open', 'requires_action', 'succeeded', 'failed', 'expired')),
    CONSTRAINT "invoice_collections_amount_check" CHECK ("amount_minor" > 0)
);
CREATE UNIQUE INDEX "invoice_collections_idempotency_key_key" ON "invoice_collections"("idempotency_key");
CREATE UNIQUE INDEX "invoice_collections_gateway_reference_key" ON "invoice_collections"("gateway_reference");
CREATE INDEX "invoice_collections_invoice_id_created_at_idx" ON "invoice_collections"("invoice_id", "created_at");
CREATE INDEX "invoice_collections_status_updated_at_idx" ON "invoice_collections"("status", "updated_at");
CREATE UNIQUE INDEX "invoice_collections_one_card_charge_in_flight" ON "invoice_collections"("invoice_id") WHERE "status" = 'processing';
CREATE UNIQUE INDEX "invoice_collections_one_open_checkout" ON "invoice_collections"("invoice_id") WHERE "method" = 'checkout' AND "status" = 'open';

-- Dunning of one invoice: started by its first failed collection (or its due date passing with
-- nothing to charge), retried on the written schedule, then the tier's policy.
CREATE TABLE "invoice_dunnings" (
    "invoice_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "step" INTEGER NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "next_attempt_at" TIMESTAMPTZ(3),
    "policy" TEXT,
    "last_email_error" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "invoice_dunnings_pkey" PRIMARY KEY ("invoice_id"),
    CONSTRAINT "invoice_dunnings_status_check" CHECK ("status" IN ('active', 'exhausted', 'resolved'))
);
CREATE INDEX "invoice_dunnings_status_next_attempt_at_idx" ON "invoice_dunnings"("status", "next_attempt_at");
CREATE INDEX "invoice_dunnings_workspace_id_status_idx" ON "invoice_dunnings"("workspace_id", "status");

-- What happens to a workspace of a tier when dunning is exhausted (the platform admin's choice).
CREATE TABLE "tier_dunning_policies" (
    "tier" TEXT NOT NULL,
    "policy" TEXT NOT NULL,
    "updated_by" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "tier_dunning_policies_pkey" PRIMARY KEY ("tier"),
    CONSTRAINT "tier_dunning_policies_policy_check" CHECK ("policy" IN ('keep_serving', 'restrict', 'suspend'))
);

-- Automatic top-ups are payment orders of their own kind, charged off-session; at most one of a
-- workspace is pending at a time (the claim: never two concurrent charges).
ALTER TABLE "payment_orders" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'checkout',
    ADD COLUMN "payment_method_id" TEXT,
    ADD CONSTRAINT "payment_orders_kind_check" CHECK ("kind" IN ('checkout', 'auto_top_up'));
CREATE UNIQUE INDEX "payment_orders_one_auto_top_up_pending" ON "payment_orders"("workspace_id") WHERE "kind" = 'auto_top_up' AND "status" = 'pending';
ALTER TABLE "payment_orders" ADD CONSTRAINT "payment_orders_payment_method_id_fkey" FOREIGN KEY ("payment_method_id") REFERENCES "payment_methods"("id") ON DELETE RESTRICT ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED;
