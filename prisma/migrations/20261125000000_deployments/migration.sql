-- Deployments: environments per product (type + slot), pipeline runs that
-- authorize a preview, deployments run by a runner, the web surfaces they
-- yield, and the deadlines that expire those surfaces.
CREATE TABLE "environments" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "slot" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "environments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "environments_type_check" CHECK ("type" IN ('preview', 'staging', 'production'))
);
CREATE UNIQUE INDEX "environments_product_id_type_slot_key" ON "environments"("product_id", "type", "slot");
ALTER TABLE "environments" ADD CONSTRAINT "environments_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "pipeline_runs" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "revision_id" TEXT NOT NULL,
    "deployment_id" TEXT,
    "intent" TEXT NOT NULL DEFAULT 'preview',
    "status" TEXT NOT NULL,
    "reason_code" TEXT,
    "findings" JSONB NOT NULL DEFAULT '[]',
    "correlation_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "pipeline_runs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "pipeline_runs_status_check" CHECK ("status" IN ('pending_snapshot', 'authorization_requested', 'blocked', 'admitted', 'requested', 'reported', 'completed', 'failed'))
);
CREATE INDEX "pipeline_runs_workspace_id_created_at_id_idx" ON "pipeline_runs"("workspace_id", "created_at", "id");
ALTER TABLE "pipeline_runs" ADD CONSTRAINT "pipeline_runs_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "deployments" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "revision_id" TEXT NOT NULL,
    "environment_id" TEXT NOT NULL,
    "environment_type" TEXT NOT NULL,
    "slot" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "reason_code" TEXT,
    "findings" JSONB NOT NULL DEFAULT '[]',
    "isolation" JSONB,
    "health" JSONB,
    "endpoint" JSONB,
    "evidence" JSONB NOT NULL DEFAULT '{}',
    "superseded_deployment_id" TEXT,
    "surface_id" TEXT,
    "source" JSONB NOT NULL,
    "release_id" TEXT,
    "pipeline_run_id" TEXT,
    "runner" TEXT NOT NULL DEFAULT 'local',
    "runner_host" TEXT,
    "runtime" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "correlation_id" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "stopped_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "deployments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "deployments_status_check" CHECK ("status" IN ('planned', 'applying', 'active', 'superseded', 'blocked', 'failed'))
);
CREATE INDEX "deployments_workspace_id_created_at_id_idx" ON "deployments"("workspace_id", "created_at", "id");
CREATE INDEX "deployments_status_locked_until_idx" ON "deployments"("status", "locked_until");
CREATE INDEX "deployments_environment_id_status_idx" ON "deployments"("environment_id", "status");
-- At most one active deployment per environment (product, type, slot): a
-- newer one supersedes the old one in the same transaction.
CREATE UNIQUE INDEX "deployments_one_active_per_environment" ON "deployments"("environment_id") WHERE "status" = 'active';
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_environment_id_fkey" FOREIGN KEY ("environment_id") REFERENCES "environments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "surfaces" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "deployment_id" TEXT NOT NULL,
    "environment_id" TEXT NOT NULL,
    "environment_type" TEXT NOT NULL,
    "surface_type" TEXT NOT NULL DEFAULT 'web',
    "status" TEXT NOT NULL,
    "identity_requirement" TEXT NOT NULL DEFAULT 'none',
    "access_policy" TEXT NOT NULL DEFAULT 'preview_direct',
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "deadline_id" TEXT NOT NULL,
    "reason_code" TEXT,
    "url" TEXT,
    "route" JSONB,
    "reachability" JSONB,
    "activated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "surfaces_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "surfaces_status_check" CHECK ("status" IN ('awaiting_expiration_registration', 'validating', 'active', 'expiration_registration_failed', 'configuration_failed', 'expired'))
);
CREATE INDEX "surfaces_workspace_id_created_at_id_idx" ON "surfaces"("workspace_id", "created_at", "id");
CREATE UNIQUE INDEX "surfaces_deployment_id_key" ON "surfaces"("deployment_id");
ALTER TABLE "surfaces" ADD CONSTRAINT "surfaces_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "deadlines" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "subject_kind" TEXT NOT NULL,
    "subject_id" TEXT NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'registered',
    "fired_at" TIMESTAMPTZ(3),
    "locked_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "deadlines_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "deadlines_status_check" CHECK ("status" IN ('registered', 'fired', 'cancelled'))
);
CREATE INDEX "deadlines_status_due_at_idx" ON "deadlines"("status", "due_at");

-- Bridge calls made by a hosted app through its deployment's Bridge socket.
ALTER TABLE "capability_invocations" ADD COLUMN "deployment_id" TEXT;
