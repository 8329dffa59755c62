-- Billing, invoices as receivables (issue #36 item 2; docs/decisions.md "Billing: invoices as receivables").
-- An invoice moves draft -> open -> paid | void | uncollectible (invoices.states.ts), has what is due,
-- paid and left, a due date from the billing profile's payment terms, and a gap-free sequential number
-- per issuer assigned when it leaves draft. Its lines and amounts stay immutable (trigger).
DROP TRIGGER "invoices_append_only" ON "invoices";
ALTER TABLE "invoices"
    ADD COLUMN "status" TEXT NOT NULL DEFAULT 'draft',
    ADD COLUMN "issuer" TEXT NOT NULL DEFAULT 'CAP',
    ADD COLUMN "number" TEXT,
    ADD COLUMN "debt_minor" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "amount_due_minor" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "amount_paid_minor" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "credited_minor" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "due_at" TIMESTAMPTZ(3),
    ADD COLUMN "finalized_at" TIMESTAMPTZ(3),
    ADD COLUMN "paid_at" TIMESTAMPTZ(3),
    ADD COLUMN "voided_at" TIMESTAMPTZ(3),
    ADD COLUMN "uncollectible_at" TIMESTAMPTZ(3),
    ADD COLUMN "emailed_at" TIMESTAMPTZ(3),
    ADD COLUMN "email_error" TEXT,
    ADD CONSTRAINT "invoices_status_check" CHECK ("status" IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
    ADD CONSTRAINT "invoices_amounts_check" CHECK ("amount_paid_minor" >= 0 AND "credited_minor" >= 0 AND "amount_paid_minor" + "credited_minor" <= "amount_due_minor"),
    ADD CONSTRAINT "invoices_number_check" CHECK (("status" = 'draft') = ("number" IS NULL));

CREATE TABLE "invoice_number_sequences" (
    "issuer" TEXT NOT NULL,
    "last_number" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "invoice_number_sequences_pkey" PRIMARY KEY ("issuer")
);

-- Invoices issued before this were statements: they become open receivables of their subscription
-- fees (their usage was settled by the wallet), numbered in issue order.
WITH ordered AS (SELECT id, row_number() OVER (ORDER BY issued_at, id) AS n FROM invoices)
UPDATE invoices i SET status = CASE WHEN i.subscription_minor > 0 THEN 'open' ELSE 'paid' END,
       number = 'CAP-' || lpad(o.n::text, 6, '0'), amount_due_minor = i.subscription_minor,
       amount_paid_minor = i.subscription_minor * (CASE WHEN i.subscription_minor > 0 THEN 0 ELSE 1 END),
       finalized_at = i.issued_at, due_at = i.issued_at + interval '14 days',
       paid_at = CASE WHEN i.subscription_minor > 0 THEN NULL ELSE i.issued_at END
  FROM ordered o WHERE o.id = i.id;
INSERT INTO "invoice_number_sequences" ("issuer", "last_number") SELECT 'CAP', count(*) FROM invoices HAVING count(*) > 0;

CREATE UNIQUE INDEX "invoices_issuer_number_key" ON "invoices"("issuer", "number");
CREATE INDEX "invoices_status_due_at_idx" ON "invoices"("status", "due_at");

-- What an invoice bills never changes; its status and payment fields do (through invoices.states.ts).
CREATE FUNCTION "invoices_guard"() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'invoices is append-only';
    END IF;
    IF NEW.id <> OLD.id OR NEW.workspace_id <> OLD.workspace_id OR NEW.month <> OLD.month OR NEW.currency <> OLD.currency
       OR NEW.lines <> OLD.lines OR NEW.usage_micros <> OLD.usage_micros OR NEW.granted_micros <> OLD.granted_micros
       OR NEW.subscription_minor <> OLD.subscription_minor OR NEW.total_minor <> OLD.total_minor OR NEW.issuer <> OLD.issuer
       OR (OLD.number IS NOT NULL AND NEW.number IS DISTINCT FROM OLD.number)
       OR (OLD.status <> 'draft' AND (NEW.amount_due_minor <> OLD.amount_due_minor OR NEW.debt_minor <> OLD.debt_minor)) THEN
        RAISE EXCEPTION 'invoices is append-only: what an invoice bills never changes';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "invoices_guard" BEFORE UPDATE OR DELETE ON "invoices" FOR EACH ROW EXECUTE FUNCTION "invoices_guard"();

-- Payment terms of the billing profile: an invoice is due this many days after it is issued.
ALTER TABLE "billing_profiles" ADD COLUMN "payment_terms_days" INTEGER NOT NULL DEFAULT 14,
    ADD CONSTRAINT "billing_profiles_payment_terms_days_check" CHECK ("payment_terms_days" BETWEEN 0 AND 365);

-- The wallet's share in invoices: month-close debt moved onto an invoice, an invoice paid from the wallet.
ALTER TABLE "wallet_entries" DROP CONSTRAINT "wallet_entries_kind_check";
ALTER TABLE "wallet_entries" ADD CONSTRAINT "wallet_entries_kind_check"
    CHECK ("kind" IN ('top_up', 'grant', 'usage', 'refund', 'adjustment', 'expiry', 'invoice_transfer', 'invoice_payment', 'credit_note'));
