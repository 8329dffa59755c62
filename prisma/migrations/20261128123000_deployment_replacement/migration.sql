-- Replacing a deployment (issue #35: drain, self-healing placement, credential rotation): a new
-- deployment of the same revision and environment that takes over the old one's surface once active.
-- At most one replacement of a deployment is in flight (planned or applying): the partial unique
-- index makes a second request return the first. `avoid_host` is a host it must not be placed on.
ALTER TABLE "deployments" ADD COLUMN "replaces_deployment_id" TEXT;
ALTER TABLE "deployments" ADD COLUMN "replace_reason" TEXT;
ALTER TABLE "deployments" ADD COLUMN "avoid_host" TEXT;
ALTER TABLE deployments ADD CONSTRAINT deployments_replaces_deployment_id_fkey FOREIGN KEY (replaces_deployment_id) REFERENCES deployments(id) ON DELETE SET NULL ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED;
CREATE UNIQUE INDEX "deployments_one_replacement_in_flight" ON "deployments"("replaces_deployment_id") WHERE "status" IN ('planned', 'applying');
CREATE INDEX "deployments_replaces_deployment_id_idx" ON "deployments"("replaces_deployment_id");

-- Draining a runner host: set when a drain starts (the host is cordoned too), drained_at once none of
-- its deployments is left running.
ALTER TABLE "runner_hosts" ADD COLUMN "draining_at" TIMESTAMPTZ(3);
ALTER TABLE "runner_hosts" ADD COLUMN "drained_at" TIMESTAMPTZ(3);
ALTER TABLE "runner_hosts" ADD COLUMN "drained_by" TEXT;
