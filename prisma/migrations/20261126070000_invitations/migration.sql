-- Console (#21 item 3): invitations to a workspace by email. The link's token is stored as its
-- SHA-256 only. At most one pending invitation per workspace and email (partial unique index);
-- an expired one is moved to status 'expired' before a new one is made.
CREATE TABLE invitations (
  id              TEXT PRIMARY KEY,
  workspace_id    TEXT NOT NULL,
  email           TEXT NOT NULL,
  role            TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'pending',
  token_hash      TEXT NOT NULL,
  invited_by_id   TEXT NOT NULL,
  expires_at      TIMESTAMPTZ(3) NOT NULL,
  last_sent_at    TIMESTAMPTZ(3),
  send_count      INTEGER NOT NULL DEFAULT 0,
  email_status    TEXT NOT NULL DEFAULT 'pending',
  email_error     TEXT,
  accepted_by_id  TEXT,
  accepted_at     TIMESTAMPTZ(3),
  revoked_at      TIMESTAMPTZ(3),
  created_at      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX invitations_token_hash_key ON invitations (token_hash);
CREATE INDEX invitations_workspace_id_status_created_at_idx ON invitations (workspace_id, status, created_at);
CREATE UNIQUE INDEX invitations_one_pending_per_email ON invitations (workspace_id, email) WHERE status = 'pending';
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
