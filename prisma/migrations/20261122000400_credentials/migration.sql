-- Credentials (write-only secrets), provider bindings and service identities.
CREATE TABLE "credentials" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "owner_kind" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "actions" JSONB NOT NULL,
    "scope" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "secret_sealed" TEXT NOT NULL,
    "kek_id" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "credentials_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "credentials_owner_kind_check" CHECK ("owner_kind" IN ('workspace', 'platform'))
);
CREATE INDEX "credentials_workspace_id_created_at_id_idx" ON "credentials"("workspace_id", "created_at", "id");
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "provider_bindings" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "credential_id" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "actions" JSONB NOT NULL,
    "scope" JSONB NOT NULL,
    "capability_scope" JSONB,
    "config" JSONB NOT NULL DEFAULT '{}',
    "budget_units" BIGINT NOT NULL,
    "budget_unit" TEXT NOT NULL,
    "used_units" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "reserved_units" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,
    "failure_reason" TEXT,
    "created_by" TEXT NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "provider_bindings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "provider_bindings_status_check" CHECK ("status" IN ('requested', 'ready', 'failed', 'revoked', 'expired')),
    CONSTRAINT "provider_bindings_units_check" CHECK ("used_units" >= 0 AND "reserved_units" >= 0)
);
CREATE INDEX "provider_bindings_workspace_id_created_at_id_idx" ON "provider_bindings"("workspace_id", "created_at", "id");
CREATE INDEX "provider_bindings_workspace_id_capability_status_idx" ON "provider_bindings"("workspace_id", "capability", "status");
ALTER TABLE "provider_bindings" ADD CONSTRAINT "provider_bindings_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "provider_bindings" ADD CONSTRAINT "provider_bindings_credential_id_fkey" FOREIGN KEY ("credential_id") REFERENCES "credentials"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "service_identities" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "product_id" TEXT,
    "environment_type" TEXT,
    "federation" JSONB,
    "secret_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "secret_rotated_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "last_token_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "service_identities_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "service_identities_kind_check" CHECK ("kind" IN ('workspace', 'platform')),
    CONSTRAINT "service_identities_status_check" CHECK ("status" IN ('active', 'revoked'))
);
CREATE INDEX "service_identities_workspace_id_created_at_id_idx" ON "service_identities"("workspace_id", "created_at", "id");
ALTER TABLE "service_identities" ADD CONSTRAINT "service_identities_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
