-- Billing, nothing unbilled (issue #36 item 1; docs/decisions.md "Billing: month close and test clocks").
-- One close job per (workspace, month): queued by the worker for every month since the
-- workspace's last close (however long the workers were down), claimed with a lease,
-- done once its invoices are issued. Invoices stay unique per (workspace, month, currency),
-- so a job run twice issues nothing twice.
CREATE TABLE "billing_month_closes" (
    "workspace_id" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "invoices" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "billing_month_closes_pkey" PRIMARY KEY ("workspace_id", "month"),
    CONSTRAINT "billing_month_closes_status_check" CHECK ("status" IN ('pending', 'running', 'done'))
);
CREATE INDEX "billing_month_closes_status_month_idx" ON "billing_month_closes"("status", "month");

-- A test clock (Stripe's test clocks): a workspace attached to one bills at the clock's
-- frozen time instead of the wall clock; the clock only moves forward, by an API call.
-- Created only where CAPSTAN_TEST_CLOCKS is on.
CREATE TABLE "billing_test_clocks" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "frozen_time" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "billing_test_clocks_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "billing_test_clocks_workspace_id_key" ON "billing_test_clocks"("workspace_id");
