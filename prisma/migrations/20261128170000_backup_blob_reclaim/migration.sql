-- Expired backups whose blob is not deleted yet (the backup worker's reclaim scan, every minute): few rows, while
-- expired ones accumulate.
CREATE INDEX "managed_resource_backups_blob_kept_idx" ON "managed_resource_backups"("id") WHERE "status" = 'expired' AND "blob_sha256" IS NOT NULL;
