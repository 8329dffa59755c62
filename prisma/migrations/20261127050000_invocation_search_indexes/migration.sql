-- The console's search of Bridge calls (#21 item 4): filters by reason and by
-- service identity, each read from one keyset index range (docs/decisions.md
-- "Lists at scale"); the time window uses (workspace_id, created_at, id).
CREATE INDEX IF NOT EXISTS "capability_invocations_ws_reason_created_at_id_idx"
  ON "capability_invocations" ("workspace_id", "reason", "created_at", "id");
CREATE INDEX IF NOT EXISTS "capability_invocations_ws_svc_created_at_id_idx"
  ON "capability_invocations" ("workspace_id", "service_identity_id", "created_at", "id");
