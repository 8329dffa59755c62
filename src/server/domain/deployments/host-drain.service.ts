import type { Deployment } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import { newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { hostHandle } from "@/server/domain/runners/runner-hosts-admin.service";
import { replaceInTx } from "./replace.service";

/*
 * Draining a runner host moves its deployments: the host side (cordon, draining, progress) is in
 * domain/runners/; this is the deployments' side, so runners never import deployments.
 */
const system = { kind: "system" as const, id: null };

/**
 * The `runner-drains` worker loop (safe in any number of processes): per
 * draining host, in one transaction holding the host row (SKIP LOCKED, so
 * one process works a host at a time), either waits for the replacement in
 * flight, requests the next one, or marks the host drained.
 */
export async function processDrains(): Promise<number> {
  // platform-scoped: the registry of runner hosts (PLATFORM_GLOBAL).
  const hosts = await db().runnerHost.findMany({
    where: { drainingAt: { not: null }, drainedAt: null },
    select: { id: true },
  });
  let acted = 0;
  for (const { id } of hosts) {
    try {
      if (await drainStep(id)) acted++;
    } catch (err) {
      if (err instanceof AppError && err.reason === "concurrent_change") continue;
      logger.error("runner.drain_failed", { runner_host: id, error: String(err) });
    }
  }
  return acted;
}

async function drainStep(hostId: string): Promise<boolean> {
  const cid = newId("evt");
  let requested: Deployment | null = null;
  let drained = false;
  // platform-scoped: a drain step over one host's deployments of every workspace (each row names its workspace).
  await db().$transaction(async (tx) => {
    const held = await tx.$queryRaw<{ draining_at: Date }[]>`
      SELECT draining_at FROM runner_hosts WHERE id = ${hostId} AND draining_at IS NOT NULL AND drained_at IS NULL FOR UPDATE SKIP LOCKED`;
    if (!held.length) return;
    const since = held[0]!.draining_at;
    const left = await tx.deployment.findMany({
      where: { runnerHost: hostId, status: { in: ["applying", "active"] } },
      orderBy: { createdAt: "asc" },
    });
    if (!left.length) {
      await tx.runnerHost.update({ where: { id: hostId }, data: { drainedAt: new Date() } });
      await writeAudit(tx, {
        workspaceId: PLATFORM_WORKSPACE_ID,
        actor: system,
        action: "runner_host.drained",
        target: { kind: "runner_host", id: hostHandle(hostId) },
        correlationId: cid,
        details: { name: hostId },
      });
      drained = true;
      return;
    }
    const reps = await tx.deployment.findMany({
      where: { replacesDeploymentId: { in: left.map((d) => d.id) }, createdAt: { gte: since } },
    });
    // One by one: the next replacement only once the previous one is active or ended.
    if (reps.some((r) => r.status === "planned" || r.status === "applying")) return;
    // Not again for one whose replacement failed in this drain (an obsolete one just lost a race: fine to retry).
    const next = left.find(
      (d) => d.status === "active" && !reps.some((r) => r.replacesDeploymentId === d.id && r.status === "failed"),
    );
    if (!next) return;
    await tx.$queryRaw`SELECT id FROM deployments WHERE id = ${next.id} FOR UPDATE`;
    const old = await tx.deployment.findUniqueOrThrow({ where: { id: next.id } });
    if (old.status !== "active") return;
    requested = (
      await replaceInTx({ tx, actor: system, correlationId: cid }, old, {
        reason: "drain",
        avoidHost: hostId,
        correlationId: cid,
      })
    ).deployment;
  });
  if (drained) {
    logger.info("runner.host_drained", { runner_host: hostId });
    signalChange("runner-host", hostId);
  }
  if (requested)
    logger.info("runner.drain_replacing", {
      runner_host: hostId,
      deployment_id: (requested as Deployment).replacesDeploymentId,
      replacement_id: (requested as Deployment).id,
    });
  return drained || requested !== null;
}
