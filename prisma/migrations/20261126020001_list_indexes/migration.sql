-- Every list filter served by an index (#16 item 6; docs/decisions.md "Lists at scale").
-- A list is `WHERE <scope> [AND <filter> = $x] [AND keyset] ORDER BY created_at, id LIMIT n`: the index
-- (<scope or filter>, created_at, id) answers it by walking n+1 entries, whatever the size of the table,
-- where an index on the filter alone must fetch and sort every matching row, and the workspace index
-- alone must skip every row that does not match (an action with no match read the whole workspace).
-- Plain CREATE INDEX: the migration runs in one transaction (CONCURRENTLY cannot).

-- Audit: action, actor, target, correlation (since/until and no filter: audit_records_workspace_id_created_at_id_idx).
CREATE INDEX "audit_records_workspace_id_action_created_at_id_idx" ON "audit_records" ("workspace_id", "action", "created_at", "id");
CREATE INDEX "audit_records_workspace_id_actor_id_created_at_id_idx" ON "audit_records" ("workspace_id", "actor_id", "created_at", "id");
CREATE INDEX "audit_records_workspace_id_target_id_created_at_id_idx" ON "audit_records" ("workspace_id", "target_id", "created_at", "id");
CREATE INDEX "audit_records_workspace_id_correlation_id_created_at_id_idx" ON "audit_records" ("workspace_id", "correlation_id", "created_at", "id");

-- Capability invocations (the Bridge's insert path pays for each: three, one of them replacing (workspace_id, product_id)).
DROP INDEX IF EXISTS "capability_invocations_workspace_id_product_id_idx";
CREATE INDEX "capability_invocations_workspace_id_product_id_created_at_id_idx" ON "capability_invocations" ("workspace_id", "product_id", "created_at", "id");
CREATE INDEX "capability_invocations_workspace_id_outcome_created_at_id_idx" ON "capability_invocations" ("workspace_id", "outcome", "created_at", "id");
CREATE INDEX "capability_invocations_workspace_id_capability_created_at_id_idx" ON "capability_invocations" ("workspace_id", "capability", "created_at", "id");

-- Deployments: revision, release, product (single-column indexes of 20261125190001 become keyset ones), status.
DROP INDEX IF EXISTS "deployments_revision_id_idx";
DROP INDEX IF EXISTS "deployments_release_id_idx";
DROP INDEX IF EXISTS "deployments_product_id_idx";
CREATE INDEX "deployments_revision_id_created_at_id_idx" ON "deployments" ("revision_id", "created_at", "id");
CREATE INDEX "deployments_release_id_created_at_id_idx" ON "deployments" ("release_id", "created_at", "id");
CREATE INDEX "deployments_product_id_created_at_id_idx" ON "deployments" ("product_id", "created_at", "id");
CREATE INDEX "deployments_workspace_id_status_created_at_id_idx" ON "deployments" ("workspace_id", "status", "created_at", "id");

-- Sessions (by surface, by state) and their invocations.
CREATE INDEX "sessions_surface_id_created_at_id_idx" ON "sessions" ("surface_id", "created_at", "id");
CREATE INDEX "sessions_workspace_id_state_created_at_id_idx" ON "sessions" ("workspace_id", "state", "created_at", "id");
CREATE INDEX "invocations_session_id_created_at_id_idx" ON "invocations" ("session_id", "created_at", "id");
CREATE INDEX "accesses_surface_id_created_at_id_idx" ON "accesses" ("surface_id", "created_at", "id");
CREATE INDEX "pending_operations_workspace_id_status_created_at_id_idx" ON "pending_operations" ("workspace_id", "status", "created_at", "id");

-- Surfaces, revisions, versions, releases, evaluations, fixes, domains, managed resources.
DROP INDEX IF EXISTS "surfaces_product_id_idx";
CREATE INDEX "surfaces_product_id_created_at_id_idx" ON "surfaces" ("product_id", "created_at", "id");
CREATE INDEX "surfaces_deployment_id_created_at_id_idx" ON "surfaces" ("deployment_id", "created_at", "id");
DROP INDEX IF EXISTS "revisions_product_id_idx";
CREATE INDEX "revisions_product_id_created_at_id_idx" ON "revisions" ("product_id", "created_at", "id");
CREATE INDEX "versions_product_id_created_at_id_idx" ON "versions" ("product_id", "created_at", "id");
CREATE INDEX "versions_revision_id_created_at_id_idx" ON "versions" ("revision_id", "created_at", "id");
DROP INDEX IF EXISTS "releases_version_id_idx";
CREATE INDEX "releases_version_id_created_at_id_idx" ON "releases" ("version_id", "created_at", "id");
CREATE INDEX "releases_product_id_created_at_id_idx" ON "releases" ("product_id", "created_at", "id");
CREATE INDEX "releases_workspace_id_status_created_at_id_idx" ON "releases" ("workspace_id", "status", "created_at", "id");
CREATE INDEX "evaluations_revision_id_created_at_id_idx" ON "evaluations" ("revision_id", "created_at", "id");
DROP INDEX IF EXISTS "fixes_revision_id_idx";
CREATE INDEX "fixes_revision_id_created_at_id_idx" ON "fixes" ("revision_id", "created_at", "id");
CREATE INDEX "domains_product_id_created_at_id_idx" ON "domains" ("product_id", "created_at", "id");
DROP INDEX IF EXISTS "managed_resources_product_id_idx";
CREATE INDEX "managed_resources_product_id_created_at_id_idx" ON "managed_resources" ("product_id", "created_at", "id");

-- Billing: wallet transactions by kind.
CREATE INDEX "wallet_entries_workspace_id_kind_created_at_id_idx" ON "wallet_entries" ("workspace_id", "kind", "created_at", "id");

-- Webhooks: subscriptions of a workspace, deliveries of a subscription (id added to the keyset).
CREATE INDEX "event_subscriptions_workspace_id_created_at_id_idx" ON "event_subscriptions" ("workspace_id", "created_at", "id");
DROP INDEX IF EXISTS "webhook_deliveries_subscription_id_created_at_idx";
CREATE INDEX "webhook_deliveries_subscription_id_created_at_id_idx" ON "webhook_deliveries" ("subscription_id", "created_at", "id");
