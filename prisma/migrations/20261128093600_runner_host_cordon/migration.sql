-- Runner hosts an operator can see and cordon (issue #35 item 4): the sandbox the host runs apps in,
-- and when (and by whom) it was cordoned: no new placements while set.
ALTER TABLE "runner_hosts" ADD COLUMN "sandbox" TEXT;
ALTER TABLE "runner_hosts" ADD COLUMN "cordoned_at" TIMESTAMPTZ(3);
ALTER TABLE "runner_hosts" ADD COLUMN "cordoned_by" TEXT;
