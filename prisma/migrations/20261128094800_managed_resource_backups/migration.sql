-- Issue #33 item 4: backups and restores of managed postgres resources.
CREATE TABLE "managed_resource_backups" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "size_bytes" BIGINT NOT NULL DEFAULT 0,
    "blob_sha256" TEXT,
    "kek_id" TEXT,
    "failure_message" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "claimed_until" TIMESTAMPTZ(3),
    "created_by" TEXT,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "managed_resource_backups_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "managed_resource_backups_resource_id_created_at_id_idx" ON "managed_resource_backups"("resource_id", "created_at", "id");
CREATE INDEX "managed_resource_backups_status_idx" ON "managed_resource_backups"("status");
ALTER TABLE "managed_resource_backups" ADD CONSTRAINT "managed_resource_backups_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "managed_resource_backups" ADD CONSTRAINT "managed_resource_backups_resource_id_fkey" FOREIGN KEY ("resource_id") REFERENCES "managed_resources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "managed_resource_restores" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "backup_id" TEXT NOT NULL,
    "source_resource_id" TEXT NOT NULL,
    "target_resource_id" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "failure_message" TEXT,
    "claimed_until" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "managed_resource_restores_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "managed_resource_restores_source_resource_id_created_at_id_idx" ON "managed_resource_restores"("source_resource_id", "created_at", "id");
CREATE INDEX "managed_resource_restores_status_idx" ON "managed_resource_restores"("status");
ALTER TABLE "managed_resource_restores" ADD CONSTRAINT "managed_resource_restores_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "managed_resource_restores" ADD CONSTRAINT "managed_resource_restores_backup_id_fkey" FOREIGN KEY ("backup_id") REFERENCES "managed_resource_backups"("id") ON DELETE CASCADE ON UPDATE CASCADE;
