-- Issue #37 items 2 and 3: deployment build steps, run-log segments in the blob store, deploy on push.
ALTER TABLE "deployments" ADD COLUMN "build_steps" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "deployments" ADD COLUMN "log_seq" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "deployments" ADD COLUMN "log_cursor" JSONB;

CREATE TABLE "deployment_log_segments" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "deployment_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "start_offset" BIGINT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "lost_bytes" BIGINT NOT NULL DEFAULT 0,
    "first_at" TIMESTAMPTZ(3),
    "last_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "deployment_log_segments_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "deployment_log_segments_deployment_id_seq_key" ON "deployment_log_segments"("deployment_id", "seq");
CREATE INDEX "deployment_log_segments_expires_at_idx" ON "deployment_log_segments"("expires_at");
CREATE INDEX "deployment_log_segments_sha256_idx" ON "deployment_log_segments"("sha256");
ALTER TABLE "deployment_log_segments" ADD CONSTRAINT "deployment_log_segments_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "deployment_log_segments" ADD CONSTRAINT "deployment_log_segments_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "push_hooks" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "secret_sealed" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "secret_rotated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "push_hooks_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "push_hooks_product_id_key" ON "push_hooks"("product_id");
CREATE INDEX "push_hooks_workspace_id_created_at_id_idx" ON "push_hooks"("workspace_id", "created_at", "id");
ALTER TABLE "push_hooks" ADD CONSTRAINT "push_hooks_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "push_hooks" ADD CONSTRAINT "push_hooks_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "push_deliveries" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "hook_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "ref" TEXT,
    "commit_sha" TEXT,
    "status" TEXT NOT NULL,
    "reason_code" TEXT,
    "message" TEXT,
    "freeze_id" TEXT,
    "revision_id" TEXT,
    "deployment_id" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "push_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "push_deliveries_hook_id_delivery_id_key" ON "push_deliveries"("hook_id", "delivery_id");
CREATE INDEX "push_deliveries_product_id_created_at_id_idx" ON "push_deliveries"("product_id", "created_at", "id");
CREATE INDEX "push_deliveries_status_locked_until_idx" ON "push_deliveries"("status", "locked_until");
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_hook_id_fkey" FOREIGN KEY ("hook_id") REFERENCES "push_hooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;
