-- Issue #33 item 5: the running deployments a resource change restarts one by one (docs/decisions.md "Managed data: credentials").
ALTER TABLE "managed_resources" ADD COLUMN "restart_queue" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "managed_resources" ADD COLUMN "restart_current" TEXT;
ALTER TABLE "managed_resources" ADD COLUMN "restart_reason" TEXT;
