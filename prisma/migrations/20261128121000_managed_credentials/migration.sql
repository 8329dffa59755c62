-- Issue #33 item 5: every login role of a managed postgres resource (docs/decisions.md "Managed data: credentials").
CREATE TABLE "managed_resource_credentials" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "role_name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "expires_at" TIMESTAMPTZ(3),
    "claimed_until" TIMESTAMPTZ(3),
    "failure_message" TEXT,
    "created_by" TEXT,
    "activated_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "managed_resource_credentials_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "managed_resource_credentials_kind_check" CHECK ("kind" IN ('primary', 'read_only')),
    CONSTRAINT "managed_resource_credentials_status_check" CHECK ("status" IN ('pending', 'active', 'retiring', 'revoking', 'revoked', 'failed')),
    CONSTRAINT "managed_resource_credentials_retiring_check" CHECK ("status" <> 'retiring' OR "expires_at" IS NOT NULL)
);
CREATE UNIQUE INDEX "managed_resource_credentials_role_name_key" ON "managed_resource_credentials"("role_name");
CREATE INDEX "managed_resource_credentials_resource_id_created_at_id_idx" ON "managed_resource_credentials"("resource_id", "created_at", "id");
CREATE INDEX "managed_resource_credentials_status_idx" ON "managed_resource_credentials"("status");
-- One current credential of each kind, one overlap, one change in flight per resource.
CREATE UNIQUE INDEX "managed_resource_credentials_one_active" ON "managed_resource_credentials"("resource_id", "kind") WHERE "status" = 'active';
CREATE UNIQUE INDEX "managed_resource_credentials_one_retiring" ON "managed_resource_credentials"("resource_id") WHERE "status" = 'retiring';
CREATE UNIQUE INDEX "managed_resource_credentials_one_pending" ON "managed_resource_credentials"("resource_id") WHERE "status" = 'pending';
ALTER TABLE "managed_resource_credentials" ADD CONSTRAINT "managed_resource_credentials_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "managed_resource_credentials" ADD CONSTRAINT "managed_resource_credentials_resource_id_fkey" FOREIGN KEY ("resource_id") REFERENCES "managed_resources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Existing postgres resources: their one login role is their current primary credential
-- (the id reuses the resource id's body, a valid and unique id body).
INSERT INTO "managed_resource_credentials" ("id", "workspace_id", "resource_id", "kind", "role_name", "status", "created_by", "activated_at", "created_at", "updated_at")
SELECT 'mcred_' || substr("id", 6), "workspace_id", "id", 'primary', "role_name", 'active', "created_by", "created_at", "created_at", CURRENT_TIMESTAMP
  FROM "managed_resources"
 WHERE "kind" = 'postgres' AND "role_name" IS NOT NULL AND "status" <> 'deleted';
