import { replaceDeployment, replacementInFlight } from "@/server/domain/deployments/replace.service";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import type { TRunningDeployments } from "./credentials.contract";
import { queueOf, type TTx } from "./managed-resources.model";

/**
 * Restarting the app after a resource change (issue #33 item 5; docs/decisions.md
 * "Credentials: rotation with an overlap, read-only roles"): an attach, a detach or a rotation queues the
 * product's running deployments that hold stale settings on the resource row
 * (in the change's transaction), and the worker replaces them one at a time
 * through `replaceDeployment`: a new deployment of the same revision, which
 * receives the current settings when placed, takes over the surface once it
 * is healthy, and only then the old one stops. The next one is asked for when
 * the previous replacement is no longer in flight. `replaceDeployment` is
 * idempotent per deployment, so two workers racing ask for one replacement.
 */
export type TRestartReason = "credentials_changed" | "managed_resource_attached" | "managed_resource_detached";

const system = { kind: "system" as const, id: null };

/** Active deployments of the product (and environment) the resource is attached to. */
export async function attachedDeployments(
  tx: TTx,
  productId: string,
  environmentType: string | null,
): Promise<string[]> {
  const rows = await tx.deployment.findMany({
    where: { status: "active", productId, ...(environmentType ? { environmentType } : {}) },
    select: { id: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((d) => d.id);
}

/** Active deployments of the product that received the resource at deploy time. */
export async function usingDeployments(tx: TTx, resourceId: string, productId: string): Promise<string[]> {
  const rows = await tx.deployment.findMany({
    where: { status: "active", productId, resourceUses: { some: { resourceId } } },
    select: { id: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((d) => d.id);
}

/** Adds deployments to the resource's restart queue (in the caller's transaction, the row locked). */
export async function queueRestarts(
  tx: TTx,
  resourceId: string,
  deploymentIds: string[],
  reason: TRestartReason,
): Promise<TRunningDeployments> {
  if (!deploymentIds.length) return { action: "none", deployment_ids: [] };
  const r = await tx.managedResource.findUniqueOrThrow({
    where: { id: resourceId },
    select: { restartQueue: true, restartCurrent: true },
  });
  const queue = [...new Set([...queueOf(r.restartQueue), ...deploymentIds])].filter((id) => id !== r.restartCurrent);
  await tx.managedResource.update({ where: { id: resourceId }, data: { restartQueue: queue, restartReason: reason } });
  return { action: "restarting", deployment_ids: deploymentIds };
}

/** One step of every resource with restarts queued: the next replacement once the previous one is done. */
export async function processRestarts(limit = 20): Promise<number> {
  // platform-scoped: the scan spans every workspace's resources with restarts to do.
  const rows = await db().managedResource.findMany({
    where: { OR: [{ restartCurrent: { not: null } }, { NOT: { restartQueue: { equals: [] } } }] },
    select: { id: true, workspaceId: true },
    orderBy: { updatedAt: "asc" },
    take: limit,
  });
  let moved = 0;
  for (const r of rows) {
    moved += await advance(r.workspaceId, r.id).catch((err) => {
      logger.error("managed_resource.restart_failed", {
        resource_id: r.id,
        error: String((err as Error)?.message ?? err).slice(0, 500),
      });
      return 0;
    });
  }
  return moved;
}

async function advance(workspaceId: string, id: string): Promise<number> {
  const ws = scopedDb(workspaceId);
  const r = await ws.managedResource.findUniqueOrThrow({
    where: { id },
    select: { restartQueue: true, restartCurrent: true, restartReason: true },
  });
  if (r.restartCurrent && (await replacementInFlight(r.restartCurrent))) return 0;
  const queue = queueOf(r.restartQueue);
  let current: string | null = null;
  while (queue.length && !current) {
    const next = queue.shift()!;
    try {
      await replaceDeployment(system, next, {
        reason: r.restartReason ?? "credentials_changed",
        correlationId: newId("evt"),
      });
      current = next;
    } catch (err) {
      // Stopped or superseded meanwhile: nothing to restart.
      if (!(err instanceof AppError) || (err.reason !== "deployment_not_running" && err.code !== "not_found"))
        throw err;
    }
  }
  // Compare-and-set: a change that queued more meanwhile, or another worker, wins and is seen next pass.
  const done = await ws.managedResource.updateMany({
    where: { id, restartCurrent: r.restartCurrent, restartQueue: { equals: queueOf(r.restartQueue) } },
    data: { restartCurrent: current, restartQueue: queue, ...(current || queue.length ? {} : { restartReason: null }) },
  });
  return done.count;
}
