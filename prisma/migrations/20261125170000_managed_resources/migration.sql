-- Managed resources (issue #20; docs/decisions.md "Managed resources"): a
-- PostgreSQL database + role, or an object-bucket namespace, provisioned and
-- destroyed by the worker. The attachment (product, environment, env var) is
-- a set of columns, not a state. A deleted product leaves its resources
-- detached (ON DELETE SET NULL): data is never destroyed with an app.
CREATE TABLE "managed_resources" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'provisioning',
    "product_id" TEXT,
    "environment_type" TEXT,
    "env_var" TEXT,
    "attached_at" TIMESTAMPTZ(3),
    "detached_at" TIMESTAMPTZ(3),
    "sealed_secret" TEXT,
    "db_name" TEXT,
    "role_name" TEXT,
    "size_bytes" BIGINT NOT NULL DEFAULT 0,
    "size_measured_at" TIMESTAMPTZ(3),
    "metered_month" TEXT,
    "metered_bytes" BIGINT NOT NULL DEFAULT 0,
    "deletion_requested_at" TIMESTAMPTZ(3),
    "destroy_after" TIMESTAMPTZ(3),
    "failure_code" TEXT,
    "failure_message" TEXT,
    "claimed_until" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    CONSTRAINT "managed_resources_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "managed_resources_kind_check" CHECK ("kind" IN ('postgres', 'object_bucket')),
    CONSTRAINT "managed_resources_status_check" CHECK ("status" IN ('provisioning', 'available', 'failed', 'deletion_scheduled', 'deleting', 'deleted')),
    CONSTRAINT "managed_resources_environment_type_check" CHECK ("environment_type" IS NULL OR "environment_type" IN ('preview', 'staging', 'production')),
    -- Nothing attached can be scheduled for destruction.
    CONSTRAINT "managed_resources_attached_not_deleting" CHECK ("product_id" IS NULL OR "status" NOT IN ('deletion_scheduled', 'deleting', 'deleted'))
);
CREATE INDEX "managed_resources_workspace_id_created_at_id_idx" ON "managed_resources"("workspace_id", "created_at", "id");
CREATE INDEX "managed_resources_product_id_idx" ON "managed_resources"("product_id");
CREATE INDEX "managed_resources_status_idx" ON "managed_resources"("status");
-- Names are unique among a workspace's resources that still exist.
CREATE UNIQUE INDEX "managed_resources_workspace_name_live_key" ON "managed_resources"("workspace_id", "name") WHERE "status" <> 'deleted';
ALTER TABLE "managed_resources" ADD CONSTRAINT "managed_resources_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "managed_resources" ADD CONSTRAINT "managed_resources_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Which deployments received which resource (the `used_by` list).
CREATE TABLE "managed_resource_uses" (
    "deployment_id" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "env_var" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "managed_resource_uses_pkey" PRIMARY KEY ("deployment_id", "resource_id")
);
CREATE INDEX "managed_resource_uses_resource_id_idx" ON "managed_resource_uses"("resource_id");
ALTER TABLE "managed_resource_uses" ADD CONSTRAINT "managed_resource_uses_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "managed_resource_uses" ADD CONSTRAINT "managed_resource_uses_resource_id_fkey" FOREIGN KEY ("resource_id") REFERENCES "managed_resources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
