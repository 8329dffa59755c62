-- Runner hosts (issue #23 part 2): one row per process that runs hosted apps, kept alive by a
-- heartbeat lease. Deployments name their host in deployments.runner_host (no foreign key: rows
-- written before this table existed name hosts that never registered).
CREATE TABLE "runner_hosts" (
  "id" TEXT NOT NULL,
  "endpoint" TEXT NOT NULL,
  "capacity" INTEGER NOT NULL,
  "state" TEXT NOT NULL DEFAULT 'live',
  "pid" INTEGER,
  "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "last_heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "lease_expires_at" TIMESTAMPTZ(3) NOT NULL,
  "lost_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "runner_hosts_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "runner_hosts_state_check" CHECK ("state" IN ('live', 'lost')),
  CONSTRAINT "runner_hosts_capacity_check" CHECK ("capacity" >= 0)
);
CREATE INDEX "runner_hosts_state_lease_idx" ON "runner_hosts" ("state", "lease_expires_at");
-- Placement counts a host's load and the lapse sweep finds a lost host's deployments by host.
CREATE INDEX "deployments_runner_host_status_idx" ON "deployments" ("runner_host", "status");
