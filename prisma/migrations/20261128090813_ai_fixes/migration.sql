-- AI-generated fixes (issue #32 item 6): why a generated fix has no proposal, and the Bridge call that generated it.
ALTER TABLE "fixes" ADD COLUMN "findings" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "fixes" ADD COLUMN "capability_invocation_id" TEXT;
ALTER TABLE fixes ADD CONSTRAINT fixes_capability_invocation_id_fkey FOREIGN KEY (capability_invocation_id) REFERENCES capability_invocations(id) ON DELETE SET NULL ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED;
CREATE INDEX "fixes_capability_invocation_id_idx" ON "fixes" ("capability_invocation_id");
