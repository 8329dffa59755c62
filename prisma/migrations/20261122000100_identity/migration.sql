-- Identity and tenancy: people, workspaces, memberships, tokens, signing keys,
-- plans, budgets and the append-only audit trail.
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

CREATE TABLE "workspaces" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "memberships" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "memberships_role_check" CHECK ("role" IN ('owner', 'admin', 'developer', 'viewer'))
);
CREATE UNIQUE INDEX "memberships_workspace_id_user_id_key" ON "memberships"("workspace_id", "user_id");
CREATE INDEX "memberships_user_id_idx" ON "memberships"("user_id");
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "api_tokens" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL,
    "alg" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_jwk_sealed" TEXT NOT NULL,
    "kek_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),
    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

CREATE TABLE "plans" (
    "workspace_id" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "plans_pkey" PRIMARY KEY ("workspace_id"),
    CONSTRAINT "plans_plan_check" CHECK ("plan" IN ('free', 'team', 'enterprise'))
);
ALTER TABLE "plans" ADD CONSTRAINT "plans_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "budgets" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "usage_category" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "limit_units" DOUBLE PRECISION,
    "used_units" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "reserved_units" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "budgets_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "budgets_units_check" CHECK ("used_units" >= 0 AND "reserved_units" >= 0 AND ("limit_units" IS NULL OR "limit_units" >= 0))
);
CREATE UNIQUE INDEX "budgets_workspace_id_usage_category_month_key" ON "budgets"("workspace_id", "usage_category", "month");
ALTER TABLE "budgets" ADD CONSTRAINT "budgets_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "audit_records" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "actor_id" TEXT,
    "actor_kind" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_id" TEXT,
    "target_kind" TEXT,
    "correlation_id" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "prev_hash" TEXT,
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_records_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "audit_records_workspace_id_seq_key" ON "audit_records"("workspace_id", "seq");
CREATE INDEX "audit_records_workspace_id_created_at_id_idx" ON "audit_records"("workspace_id", "created_at", "id");
CREATE INDEX "audit_records_correlation_id_idx" ON "audit_records"("correlation_id");

-- Audit records are append-only: the database itself refuses changes.
CREATE FUNCTION "audit_records_append_only"() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit_records is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "audit_records_no_update_delete" BEFORE UPDATE OR DELETE ON "audit_records"
    FOR EACH ROW EXECUTE FUNCTION "audit_records_append_only"();
