-- Console (#21 item 6): a person hid the onboarding checklist of a workspace. One row per
-- (workspace, user); deleting the row shows the checklist again. A UI preference: not audited.
CREATE TABLE onboarding_dismissals (
  workspace_id  TEXT NOT NULL,
  user_id       TEXT NOT NULL,
  dismissed_at  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT onboarding_dismissals_pkey PRIMARY KEY (workspace_id, user_id)
);
ALTER TABLE "onboarding_dismissals" ADD CONSTRAINT "onboarding_dismissals_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "onboarding_dismissals" ADD CONSTRAINT "onboarding_dismissals_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
