-- Custom domains (issue #32 item 4): several workspaces may claim one hostname while it is
-- unverified; the first whose TXT challenge passes gets it, and the other claims are released.
DROP INDEX "domains_hostname_key";
CREATE INDEX "domains_hostname_idx" ON "domains"("hostname");
-- At most one verified claim of a hostname, platform-wide.
CREATE UNIQUE INDEX "domains_hostname_verified_key" ON "domains"("hostname") WHERE "status" = 'verified';
-- At most one live (not released) claim of a hostname per workspace.
CREATE UNIQUE INDEX "domains_workspace_hostname_live_key" ON "domains"("workspace_id", "hostname") WHERE "status" <> 'released';
-- A claim another workspace proved first is kept (with its reason) as `released`.
ALTER TABLE "domains" DROP CONSTRAINT "domains_status_check";
ALTER TABLE "domains" ADD CONSTRAINT "domains_status_check" CHECK ("status" IN ('pending_verification', 'verified', 'failed', 'released'));
