-- Custom domains (issue #18): a hostname a workspace routes to one of its
-- products' environments once DNS proves ownership. Hostnames are unique
-- platform-wide by constraint (409 domain_hostname_taken, race-free).
CREATE TABLE "domains" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "environment_type" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "apex" BOOLEAN NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending_verification',
    "verification_token" TEXT NOT NULL,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "check_requested_at" TIMESTAMPTZ(3),
    "check_claimed_until" TIMESTAMPTZ(3),
    "last_checked_at" TIMESTAMPTZ(3),
    "verified_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "domains_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "domains_status_check" CHECK ("status" IN ('pending_verification', 'verified', 'failed')),
    CONSTRAINT "domains_environment_type_check" CHECK ("environment_type" IN ('staging', 'production'))
);
CREATE UNIQUE INDEX "domains_hostname_key" ON "domains"("hostname");
CREATE INDEX "domains_workspace_id_created_at_id_idx" ON "domains"("workspace_id", "created_at", "id");
CREATE INDEX "domains_product_id_environment_type_idx" ON "domains"("product_id", "environment_type");
ALTER TABLE "domains" ADD CONSTRAINT "domains_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domains" ADD CONSTRAINT "domains_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Verification requests, kept an hour for the per-hostname and per-workspace
-- budgets (429). Keyed by hostname, not domain id: deleting and re-adding a
-- domain does not refill its budget.
CREATE TABLE "domain_verify_requests" (
    "id" BIGSERIAL NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "domain_verify_requests_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "domain_verify_requests_workspace_id_requested_at_idx" ON "domain_verify_requests"("workspace_id", "requested_at");
CREATE INDEX "domain_verify_requests_hostname_requested_at_idx" ON "domain_verify_requests"("hostname", "requested_at");
