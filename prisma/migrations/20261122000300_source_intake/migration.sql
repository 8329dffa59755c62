-- Source intake: products, source freezes, revisions (descriptor + capability
-- contract), and uploads (evidence blobs).
CREATE TABLE "products" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'hosted-app',
    "input_revision_id" TEXT NOT NULL,
    "repo_url" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "products_workspace_id_created_at_id_idx" ON "products"("workspace_id", "created_at", "id");
ALTER TABLE "products" ADD CONSTRAINT "products_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "revisions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "input_revision_id" TEXT NOT NULL,
    "input_type" TEXT NOT NULL DEFAULT 'repository',
    "freeze_id" TEXT NOT NULL,
    "commit_sha" TEXT,
    "snapshot" JSONB,
    "descriptor_status" TEXT NOT NULL DEFAULT 'pending',
    "descriptor" JSONB,
    "findings" JSONB NOT NULL DEFAULT '[]',
    "descriptor_hash" TEXT,
    "confirmed_by" TEXT,
    "confirmed_at" TIMESTAMPTZ(3),
    "contract_status" TEXT NOT NULL DEFAULT 'pending',
    "capabilities" JSONB,
    "contract_hash" TEXT,
    "contract_rejection" JSONB,
    "contract_confirmed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "revisions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "revisions_descriptor_status_check" CHECK ("descriptor_status" IN ('pending', 'detected', 'confirmed', 'unavailable')),
    CONSTRAINT "revisions_contract_status_check" CHECK ("contract_status" IN ('pending', 'valid', 'ready', 'rejected'))
);
CREATE INDEX "revisions_workspace_id_created_at_id_idx" ON "revisions"("workspace_id", "created_at", "id");
CREATE INDEX "revisions_product_id_idx" ON "revisions"("product_id");
ALTER TABLE "revisions" ADD CONSTRAINT "revisions_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "source_freezes" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "revision_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "repo_url" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "commit_sha" TEXT,
    "snapshot_uri" TEXT,
    "snapshot_sha256" TEXT,
    "snapshot_size" BIGINT,
    "replayed" BOOLEAN NOT NULL DEFAULT false,
    "rejection" JSONB,
    "problem" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "correlation_id" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "source_freezes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "source_freezes_status_check" CHECK ("status" IN ('pending', 'frozen', 'rejected', 'failed'))
);
CREATE INDEX "source_freezes_status_locked_until_idx" ON "source_freezes"("status", "locked_until");
CREATE INDEX "source_freezes_product_id_commit_sha_idx" ON "source_freezes"("product_id", "commit_sha");
ALTER TABLE "source_freezes" ADD CONSTRAINT "source_freezes_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "uploads" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "uri" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "content_type" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "uploads_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "uploads_workspace_id_sha256_idx" ON "uploads"("workspace_id", "sha256");
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
