import { writeAudit } from "@/server/platform/audit";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import { PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { byHandle, hostHandle, hostView } from "./runner-hosts-admin.service";
import type { TRunnerHost } from "./runners.contract";

/**
 * Draining a runner host (docs/decisions.md "Roles and runner hosts"):
 * POST /v1/platform/runner-hosts/{host}:drain cordons the host and marks it
 * draining; the `runner-drains` worker loop (deployments/host-drain.service.ts) then replaces its deployments
 * one at a time (replace.service.ts, avoiding this host): the next one only
 * once the previous replacement is active (or ended), so each app keeps
 * answering from its old process until its new one has taken its surface
 * over. With none of its deployments left the host is `drained`. A
 * deployment whose replacement failed during the drain is not tried again
 * (it would fail the same way): the drain waits, and says which one, until
 * an operator stops or redeploys it. Uncordoning ends a drain.
 */
type TCaller = { userId: string; correlationId: string };

/** POST …/{host}:drain (ws_platform owner/admin): cordon + draining; idempotent; 409 for a lost host. */
export async function startDrain(caller: TCaller, handle: string): Promise<TRunnerHost> {
  const host = await byHandle(handle);
  if (host.state === "lost") {
    throw new AppError(
      "conflict",
      `Runner host ${handle} is lost: its deployments are placed again automatically, there is nothing to drain`,
      { reason: "runner_host_lost" },
    );
  }
  // platform-scoped: the host row and ws_platform audit records, in one transaction.
  await db().$transaction(async (tx) => {
    const now = new Date();
    const actor = { kind: "user" as const, id: caller.userId };
    const target = { kind: "runner_host", id: hostHandle(host.id) };
    // platform-scoped: the host row (PLATFORM_GLOBAL); compare-and-set on its cordon, then on its drain.
    const cordoned = await tx.runnerHost.updateMany({
      where: { id: host.id, cordonedAt: null },
      data: { cordonedAt: now, cordonedBy: caller.userId },
    });
    if (cordoned.count)
      await writeAudit(tx, {
        workspaceId: PLATFORM_WORKSPACE_ID,
        actor,
        action: "runner_host.cordoned",
        target,
        correlationId: caller.correlationId,
        details: { name: host.id, by: "drain" },
      });
    // platform-scoped: the same host row.
    const started = await tx.runnerHost.updateMany({
      where: { id: host.id, drainingAt: null },
      data: { drainingAt: now, drainedAt: null, drainedBy: caller.userId },
    });
    if (started.count)
      await writeAudit(tx, {
        workspaceId: PLATFORM_WORKSPACE_ID,
        actor,
        action: "runner_host.drain_started",
        target,
        correlationId: caller.correlationId,
        details: { name: host.id },
      });
  });
  signalChange("runner-host", host.id);
  return hostView(host.id);
}
