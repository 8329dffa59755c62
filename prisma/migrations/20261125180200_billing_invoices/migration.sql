-- Billing, invoices (issue #19; docs/decisions.md "Billing"): one invoice per
-- workspace, month and currency, issued by the worker at month close and
-- immutable once issued (a trigger refuses UPDATE and DELETE).
CREATE TABLE "invoices" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "lines" JSONB NOT NULL,
    "usage_micros" BIGINT NOT NULL,
    "granted_micros" BIGINT NOT NULL,
    "subscription_minor" BIGINT NOT NULL,
    "total_minor" BIGINT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "invoices_workspace_id_month_currency_key" ON "invoices"("workspace_id", "month", "currency");
CREATE INDEX "invoices_workspace_id_created_at_id_idx" ON "invoices"("workspace_id", "created_at", "id");
CREATE TRIGGER "invoices_append_only" BEFORE UPDATE OR DELETE ON "invoices"
    FOR EACH ROW EXECUTE FUNCTION "billing_append_only"();
