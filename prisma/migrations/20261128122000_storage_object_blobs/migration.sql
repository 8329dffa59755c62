-- A managed bucket's blob is deleted once no key of the bucket names it (issue #33 item 6).
CREATE INDEX "storage_objects_workspace_id_product_id_sha256_idx" ON "storage_objects"("workspace_id", "product_id", "sha256");
