-- The Bridge: capability invocations (one row per call), budget
-- reservations (released by a sweeper when a call dies) and the platform
-- key-value store behind data.kv.
CREATE TABLE "capability_invocations" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "revision_id" TEXT,
    "service_identity_id" TEXT,
    "execution_id" TEXT,
    "bridge_invocation_id" TEXT,
    "capability" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "provider" TEXT,
    "binding_id" TEXT,
    "fallback_used" BOOLEAN NOT NULL DEFAULT false,
    "usage_units" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "usage_unit" TEXT NOT NULL,
    "request_summary" JSONB NOT NULL,
    "output_summary" JSONB,
    "correlation_id" TEXT NOT NULL,
    "latency_ms" INTEGER,
    "overhead_ms" INTEGER,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "capability_invocations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "capability_invocations_outcome_check" CHECK ("outcome" IN ('requested', 'completed', 'denied', 'failed'))
);
CREATE INDEX "capability_invocations_workspace_id_created_at_id_idx" ON "capability_invocations"("workspace_id", "created_at", "id");
CREATE INDEX "capability_invocations_workspace_id_product_id_idx" ON "capability_invocations"("workspace_id", "product_id");

CREATE TABLE "budget_reservations" (
    "id" TEXT NOT NULL,
    "budget_id" TEXT NOT NULL,
    "binding_id" TEXT,
    "units" DOUBLE PRECISION NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "budget_reservations_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "budget_reservations_expires_at_idx" ON "budget_reservations"("expires_at");

CREATE TABLE "kv_entries" (
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "value_bytes" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "kv_entries_pkey" PRIMARY KEY ("workspace_id", "product_id", "key")
);
