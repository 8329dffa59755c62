-- Which workspace may read which content-addressed blob (evidence download):
-- uploads, invocation bodies and logs, deployment build logs.
CREATE TABLE "workspace_blobs" (
    "workspace_id" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "content_type" TEXT NOT NULL DEFAULT 'application/octet-stream',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "workspace_blobs_pkey" PRIMARY KEY ("workspace_id", "sha256")
);
INSERT INTO "workspace_blobs" ("workspace_id", "sha256", "content_type")
SELECT DISTINCT ON ("workspace_id", "sha256") "workspace_id", "sha256", "content_type" FROM "uploads"
ON CONFLICT DO NOTHING;
