-- Evaluations (qualification runs, qual_), the versions they cut, releases of
-- versions, and fixes proposed for a revision's findings.
CREATE TABLE "evaluations" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "revision_id" TEXT NOT NULL,
    "request_key" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "verdict" TEXT,
    "checks" JSONB NOT NULL DEFAULT '[]',
    "findings" JSONB NOT NULL DEFAULT '[]',
    "deployment_id" TEXT,
    "session_id" TEXT,
    "version_id" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "correlation_id" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "evaluations_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "evaluations_revision_id_request_key_key" ON "evaluations"("revision_id", "request_key");
CREATE INDEX "evaluations_workspace_id_created_at_id_idx" ON "evaluations"("workspace_id", "created_at", "id");
CREATE INDEX "evaluations_status_locked_until_idx" ON "evaluations"("status", "locked_until");

CREATE TABLE "versions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "revision_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "label" TEXT NOT NULL,
    "contract_hash" TEXT NOT NULL,
    "descriptor_hash" TEXT NOT NULL,
    "qualification_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "versions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "versions_revision_id_key" ON "versions"("revision_id");
CREATE UNIQUE INDEX "versions_product_id_number_key" ON "versions"("product_id", "number");
CREATE INDEX "versions_workspace_id_created_at_id_idx" ON "versions"("workspace_id", "created_at", "id");

CREATE TABLE "releases" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "version_id" TEXT NOT NULL,
    "revision_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "audience" JSONB NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL,
    "frozen_at" TIMESTAMPTZ(3),
    "reason_code" TEXT,
    "widening" JSONB,
    "adjudication" JSONB,
    "deployment_id" TEXT,
    "history" JSONB NOT NULL DEFAULT '[]',
    "correlation_id" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "releases_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "releases_workspace_id_created_at_id_idx" ON "releases"("workspace_id", "created_at", "id");
CREATE INDEX "releases_product_id_status_idx" ON "releases"("product_id", "status");
CREATE INDEX "releases_status_idx" ON "releases"("status");

CREATE TABLE "fixes" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "revision_id" TEXT NOT NULL,
    "finding" JSONB NOT NULL,
    "rule" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "diff" TEXT,
    "files" JSONB NOT NULL DEFAULT '[]',
    "descriptor_edits" JSONB,
    "new_revision_id" TEXT,
    "decision" JSONB,
    "correlation_id" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "fixes_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "fixes_workspace_id_created_at_id_idx" ON "fixes"("workspace_id", "created_at", "id");
CREATE INDEX "fixes_revision_id_idx" ON "fixes"("revision_id");
