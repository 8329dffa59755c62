-- storage.object on the platform blob store: an index of keys per product
-- pointing at content-addressed blobs.
CREATE TABLE "storage_objects" (
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "content_type" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "storage_objects_pkey" PRIMARY KEY ("workspace_id", "product_id", "key")
);
