-- Access to surfaces, sessions on them, the HTTP invocations sent through
-- sessions (admission and managed execution), and pending operations that
-- an owner or admin resolves.
CREATE TABLE "accesses" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "surface_id" TEXT NOT NULL,
    "deployment_id" TEXT NOT NULL,
    "account_id" TEXT,
    "access_entry" TEXT NOT NULL DEFAULT 'direct_surface',
    "entitlement_source" TEXT NOT NULL DEFAULT 'direct',
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "session_id" TEXT,
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "accesses_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "accesses_workspace_id_created_at_id_idx" ON "accesses"("workspace_id", "created_at", "id");
CREATE INDEX "accesses_surface_id_account_id_idx" ON "accesses"("surface_id", "account_id");
ALTER TABLE "accesses" ADD CONSTRAINT "accesses_surface_id_fkey" FOREIGN KEY ("surface_id") REFERENCES "surfaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "surface_id" TEXT NOT NULL,
    "account_id" TEXT,
    "access_id" TEXT NOT NULL,
    "environment_id" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "closed_at" TIMESTAMPTZ(3),
    "closed_reason" TEXT,
    "next_sequence" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "sessions_state_check" CHECK ("state" IN ('active', 'closed'))
);
CREATE INDEX "sessions_workspace_id_created_at_id_idx" ON "sessions"("workspace_id", "created_at", "id");
CREATE INDEX "sessions_surface_id_state_idx" ON "sessions"("surface_id", "state");
CREATE INDEX "sessions_access_id_idx" ON "sessions"("access_id");
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_access_id_fkey" FOREIGN KEY ("access_id") REFERENCES "accesses"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "invocations" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "surface_id" TEXT NOT NULL,
    "account_id" TEXT,
    "access_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "input" JSONB NOT NULL,
    "admission" JSONB,
    "execution" JSONB,
    "correlation_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "invocations_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "invocations_session_id_sequence_key" ON "invocations"("session_id", "sequence");
CREATE INDEX "invocations_workspace_id_created_at_id_idx" ON "invocations"("workspace_id", "created_at", "id");
ALTER TABLE "invocations" ADD CONSTRAINT "invocations_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "pending_operations" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subject_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "reason" TEXT NOT NULL,
    "requested_by" TEXT,
    "resolved_by" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "pending_operations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "pending_operations_status_check" CHECK ("status" IN ('pending', 'approved', 'denied'))
);
CREATE INDEX "pending_operations_workspace_id_created_at_id_idx" ON "pending_operations"("workspace_id", "created_at", "id");
