import type { Deployment } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { signalChange } from "@/server/platform/change-signals";
import { retireInTx } from "./lifecycle";
import { forgetSurface } from "./surface-cache";
import { HOST_LOST_REASON, replaceInTx } from "./replace.service";

/**
 * Lost runner hosts (a worker loop, safe in any number of processes): a live
 * host whose lease has lapsed is marked `lost` by exactly one process (the
 * UPDATE is the claim), then every applying or active deployment recorded on a
 * lost host fails with reason_code `runner_host_lost` and a finding naming the
 * host. The deployments are found by the host's state, not by the claim, so a
 * process that dies between the two steps leaves the work to the next tick of
 * any worker. Nothing is killed from here: the host is unreachable; if it
 * comes back, its reconciler removes what no live deployment owns.
 *
 * Self-healing placement: an active deployment with a surface is placed
 * again in the same transaction (replace.service.ts, reason `host_lost`,
 * avoiding the lost host): its surface stays active (answering 503 with
 * Retry-After meanwhile) and points at the replacement once that is healthy,
 * same id and URL. An applying one (never served) just fails.
 *
 * Bound: a host that stops renewing is lost at most CAPSTAN_RUNNER_LEASE_MS
 * after its last heartbeat, and its deployments fail and are re-placed on the
 * next tick of this loop (every CAPSTAN_RUNNER_HEARTBEAT_MS); a live host with
 * room claims the replacement on its next deploy tick (CAPSTAN_WORKER_POLL_MS),
 * then the app's own install, build, start and health check run. So: lease +
 * heartbeat period + poll + the app's start time (docs/decisions.md "Roles and
 * runner hosts").
 */
const system = { kind: "system" as const, id: null };
export { HOST_LOST_REASON };

export type TLapseReport = { lost: string[]; failed: string[]; replacements: string[] };

export async function lapseRunnerHosts(limit = 50): Promise<TLapseReport> {
  // Platform-scoped by design: runner hosts run every workspace's apps (PLATFORM_GLOBAL), and their orphans are any workspace's.
  const lost = await db().$queryRaw<{ id: string; last_heartbeat_at: Date }[]>`
    UPDATE runner_hosts SET state = 'lost', lost_at = now(), updated_at = now()
     WHERE state = 'live' AND lease_expires_at < now()
    RETURNING id, last_heartbeat_at`;
  for (const h of lost) {
    logger.warn("runner.host_lost", { runner_host: h.id, last_heartbeat_at: h.last_heartbeat_at.toISOString() });
    signalChange("runner-host", h.id);
  }
  // platform-scoped: deployments of every workspace on a lost runner host.
  const orphans = await db().$queryRaw<Deployment[]>`
    SELECT d.id FROM deployments d JOIN runner_hosts h ON h.id = d.runner_host
     WHERE h.state = 'lost' AND d.status IN ('applying', 'active')
     ORDER BY d.created_at LIMIT ${limit}`;
  const failed: string[] = [];
  const replaced: string[] = [];
  for (const { id } of orphans) {
    try {
      // platform-scoped: each orphan moves in its own transaction, reading its runner host (PLATFORM_GLOBAL).
      const moved = await db().$transaction(async (tx) => {
        const dep = await tx.deployment.findUniqueOrThrow({ where: { id } });
        const host = await tx.runnerHost.findUnique({ where: { id: dep.runnerHost ?? "" } });
        // Re-checked inside the transaction: the host may have come back, or the deployment ended, meanwhile.
        if (host?.state !== "lost" || (dep.status !== "applying" && dep.status !== "active")) return null;
        const since = host.lastHeartbeatAt.toISOString();
        const ctx = { tx, actor: system, correlationId: newId("evt") };
        const lostWith = `The runner host ${dep.runnerHost} stopped renewing its lease (last heartbeat ${since}); the deployment is lost with it.`;
        if (dep.status !== "active" || !dep.surfaceId) {
          return retireInTx(ctx, dep, "fail", HOST_LOST_REASON, {
            findings: [
              {
                kind: "runtime",
                severity: "error",
                code: HOST_LOST_REASON,
                message: `${lostWith} It had not started serving: deploy the revision again (it is placed on a live host).`,
              },
            ],
          });
        }
        const failedDep = await retireInTx(ctx, dep, "crash", HOST_LOST_REASON, { keepSurface: true });
        const { deployment: rep } = await replaceInTx(ctx, failedDep, { reason: "host_lost", avoidHost: host.id });
        replaced.push(rep.id);
        const finding = {
          kind: "runtime",
          severity: "error",
          code: HOST_LOST_REASON,
          message: `${lostWith} It is placed again automatically as ${rep.id} on a live host; its surface ${dep.surfaceId} keeps its id and URL and answers again once ${rep.id} is healthy.`,
        };
        return tx.deployment.update({
          where: { id },
          data: { findings: [...(failedDep.findings as unknown[]), finding] as never },
        });
      });
      if (!moved) continue;
      if (moved.surfaceId) forgetSurface(moved.surfaceId);
      failed.push(id);
    } catch (err) {
      // Another worker retired it first (or a stop won): nothing left to do here.
      if (err instanceof AppError && err.reason === "concurrent_change") continue;
      throw err;
    }
  }
  if (failed.length) logger.warn("runner.deployments_lost", { deployments: failed, replacements: replaced });
  return { lost: lost.map((h) => h.id), failed, replacements: replaced };
}
