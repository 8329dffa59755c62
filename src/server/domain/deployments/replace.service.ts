import type { Deployment, Prisma } from "@/generated/prisma/client";
import { writeAudit, type TActor } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import type { TDeployOutcome } from "@/server/runtime";
import { forward } from "@/server/runtime/surface-proxy";
import { localHostId, upstreamFor } from "@/server/domain/runners/runner-hosts.service";
import { release, retireInTx } from "./lifecycle";
import { forgetSurface, SURFACE_CACHE_TTL_MS } from "./surface-cache";
import { createDeploymentRow, moveDeployment, moveSurface, type TMoveCtx } from "./transitions";
import { closeSessionsTx } from "@/server/domain/sessions/access.service";

/**
 * Replacing a deployment (docs/decisions.md "Roles and runner hosts"): a new
 * deployment of the same revision, source and environment (its managed
 * resources and Bridge identity are taken fresh when it is placed, like any
 * deployment's), placed on a live host other than `avoidHost`. Once it is
 * healthy it takes over the old deployment's surface in one transaction:
 * the surface row points at the new deployment (same id, URL, deadline,
 * sessions and accesses), the old one is superseded (reason_code `replaced`)
 * and its process stops after the commit. So the app answers throughout: the
 * old process serves until the new one is active.
 *
 * The old deployment may also already have failed with its host
 * (`runner_host_lost`, host-lapse.service.ts): its surface is kept active for the
 * replacement and answers 503 meanwhile. A replacement whose old deployment
 * ended otherwise (stopped, superseded by a newer deploy, surface expired)
 * has nothing to take over: it stops itself (`replacement_obsolete`).
 *
 * Idempotent per old deployment: a partial unique index allows one
 * replacement in flight (planned or applying); asking again returns it.
 */
export type TReplaceReason = "drain" | "host_lost" | "credentials_changed" | (string & {});
export type TReplaceOpts = { reason: TReplaceReason; avoidHost?: string; correlationId?: string };

/** A deployment that failed with its lost host keeps its surface for a replacement. */
export const HOST_LOST_REASON = "runner_host_lost";
export const REPLACED_REASON = "replaced";
export const OBSOLETE_REASON = "replacement_obsolete";

const inFlight = (tx: Prisma.TransactionClient, oldId: string) =>
  tx.deployment.findFirst({ where: { replacesDeploymentId: oldId, status: { in: ["planned", "applying"] } } });

/** True when `old` can still be replaced: active, or failed with its lost host while its surface is kept. */
function replaceable(old: Deployment): boolean {
  return (
    old.status === "active" ||
    (old.status === "failed" && old.reasonCode === HOST_LOST_REASON && old.surfaceId !== null)
  );
}

/**
 * In the caller's transaction: the replacement in flight for `old`, or a new
 * planned one. The caller has read `old` in this transaction.
 */
export async function replaceInTx(
  ctx: TMoveCtx,
  old: Deployment,
  opts: TReplaceOpts,
): Promise<{ deployment: Deployment; created: boolean }> {
  // One request per old deployment at a time: concurrent callers queue here, then see the first one's row.
  await ctx.tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`replace:${old.id}`}, 0))`;
  const existing = await inFlight(ctx.tx, old.id);
  if (existing) return { deployment: existing, created: false };
  if (!replaceable(old)) {
    throw new AppError(
      "conflict",
      `Deployment ${old.id} is ${old.status}${old.reasonCode ? ` (${old.reasonCode})` : ""}: only an active deployment can be replaced`,
      { reason: "deployment_not_running" },
    );
  }
  const avoid = opts.avoidHost ?? null;
  const dep = await createDeploymentRow(ctx, "request", {
    id: newId("dep"),
    workspaceId: old.workspaceId,
    productId: old.productId,
    revisionId: old.revisionId,
    environmentId: old.environmentId,
    environmentType: old.environmentType,
    slot: old.slot,
    findings: [
      {
        kind: "runtime",
        severity: "info",
        code: "replacement",
        message: `Replaces deployment ${old.id} on ${old.runnerHost ?? "its host"} (${opts.reason})${avoid ? `; placed on any live host but ${avoid}` : ""}. It takes over surface ${old.surfaceId} once it is healthy.`,
      },
    ],
    isolation: old.isolation ?? undefined,
    source: old.source as Prisma.InputJsonValue,
    releaseId: old.releaseId,
    runner: old.runner,
    correlationId: ctx.correlationId,
    createdBy: old.createdBy,
    replacesDeploymentId: old.id,
    replaceReason: opts.reason,
    avoidHost: avoid,
  });
  await emitEvent(ctx.tx, {
    workspaceId: old.workspaceId,
    type: "deployment.replaced",
    correlationId: ctx.correlationId,
    subject: old.id,
    data: {
      phase: "requested",
      reason: opts.reason,
      old_deployment_id: old.id,
      new_deployment_id: dep.id,
      surface_id: old.surfaceId,
      old_host: old.runnerHost,
      new_host: null,
      avoid_host: avoid,
    },
  });
  return { deployment: dep, created: true };
}

/**
 * Requests the replacement of `deploymentId` (any workspace: the callers are
 * operators and workers). Returns the replacement in flight if there is one.
 * 404 unknown; 409 `deployment_not_running` when there is nothing to replace.
 */
export async function replaceDeployment(actor: TActor, deploymentId: string, opts: TReplaceOpts): Promise<Deployment> {
  const correlationId = opts.correlationId ?? newId("evt");
  // platform-scoped: operators and workers replace deployments of any workspace; the row names its workspace.
  return db().$transaction(async (tx) => {
    // platform-scoped: the old deployment, locked so a stop or a takeover waits for this request.
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM deployments WHERE id = ${deploymentId} FOR UPDATE`;
    if (!rows.length) throw notFound(`Deployment ${deploymentId}`);
    const old = await tx.deployment.findUniqueOrThrow({ where: { id: deploymentId } });
    return (await replaceInTx({ tx, actor, correlationId }, old, opts)).deployment;
  });
}

/** The replacement in flight for a deployment, if any (release windows wait for it). */
export async function replacementInFlight(oldId: string): Promise<Deployment | null> {
  // platform-scoped: a worker's look-up by deployment id (the row names its workspace).
  return db().deployment.findFirst({ where: { replacesDeploymentId: oldId, status: { in: ["planned", "applying"] } } });
}

const system = { kind: "system" as const, id: null };

/**
 * The deploy worker's last step for a healthy replacement (apply.service.ts):
 * probes the new process through the route the surface will use, then takes
 * the surface over, or stops the replacement when there is nothing left to
 * take over. After the commit the old process stops.
 */
export async function activateReplacement(
  id: string,
  cid: string,
  outcome: Extract<TDeployOutcome, { ok: true }>,
  healthPath: string,
): Promise<"active" | "obsolete" | "unreachable"> {
  const stateJson = outcome.state as unknown as Prisma.InputJsonValue;
  const upstream = await upstreamFor({ id, runnerHost: localHostId(), runtime: outcome.state });
  const checkedAt = new Date();
  const started = performance.now();
  let status = 0;
  try {
    const e = env();
    const probe = await forward(
      new Request(`http://capstan.internal${healthPath}`, { headers: { "user-agent": "capstan-reachability" } }),
      healthPath,
      { upstream: upstream!, prefix: "", sandboxDocument: false },
      { maxBodyBytes: e.CAPSTAN_SURFACE_MAX_BODY_BYTES, timeoutMs: e.CAPSTAN_SURFACE_TIMEOUT_MS },
      null,
    );
    status = probe.status;
    await probe.body?.cancel().catch(() => undefined);
  } catch {
    status = 502;
  }
  const reachability = {
    checked_at: checkedAt.toISOString(),
    status_code: status,
    latency_ms: Math.round(performance.now() - started),
  };
  const data = {
    runtime: stateJson,
    health: outcome.health as never,
    endpoint: outcome.endpoint as never,
    evidence: outcome.evidence as never,
    isolation: outcome.isolation as never,
  };
  if (status < 200 || status >= 400) return "unreachable";

  let oldRetired: Deployment | null = null;
  let surfaceId: string | null = null;
  let obsolete: Deployment | null = null;
  // platform-scoped: the worker's takeover of a claimed replacement (its row names the workspace).
  await db().$transaction(async (tx) => {
    const ctx: TMoveCtx = { tx, actor: system, correlationId: cid };
    const dep = await tx.deployment.findUniqueOrThrow({ where: { id } });
    if (dep.status !== "applying") throw new AppError("conflict", "stopped meanwhile", { reason: "concurrent_change" });
    // Activations of one environment take turns (as in apply.service.ts).
    await tx.$queryRaw`SELECT id FROM environments WHERE id = ${dep.environmentId} FOR UPDATE`;
    await tx.deployment.update({ where: { id }, data: { ...data, updatedAt: new Date() } });
    const old = await tx.deployment.findUniqueOrThrow({ where: { id: dep.replacesDeploymentId! } });
    const srf = await tx.surface.findUnique({ where: { deploymentId: old.id } });
    const others = await tx.deployment.count({
      where: { environmentId: dep.environmentId, status: "active", id: { not: old.id } },
    });
    const why = !replaceable(old)
      ? `deployment ${old.id} is ${old.status}${old.reasonCode ? ` (${old.reasonCode})` : ""}`
      : !srf || srf.status !== "active" || srf.expiresAt <= new Date()
        ? `its surface is ${srf?.status ?? "gone"}`
        : others
          ? "a newer deployment of the environment is active"
          : null;
    if (why) {
      obsolete = await retireInTx(
        ctx,
        await tx.deployment.findUniqueOrThrow({ where: { id } }),
        "stop",
        OBSOLETE_REASON,
        {
          findings: [
            {
              kind: "runtime",
              severity: "info",
              code: OBSOLETE_REASON,
              message: `Nothing left to take over: ${why}. This replacement stopped.`,
            },
          ],
        },
      );
      return;
    }
    // The surface first (deployment_id is unique), so retiring the old deployment leaves it alone.
    await tx.surface.update({
      where: { id: srf!.id },
      data: { deploymentId: id, reachability, updatedAt: new Date() },
    });
    if (old.status === "active") oldRetired = await retireInTx(ctx, old, "supersede", REPLACED_REASON);
    await moveDeployment(ctx, await tx.deployment.findUniqueOrThrow({ where: { id } }), "ready", {
      supersededDeploymentId: old.id,
      surfaceId: srf!.id,
      lockedUntil: null,
    });
    // A release served by the old deployment is served by the new one.
    await tx.release.updateMany({
      where: { deploymentId: old.id, status: { in: ["ready", "live"] } },
      data: { deploymentId: id, updatedAt: new Date() },
    });
    const details = {
      reason: dep.replaceReason,
      old_deployment_id: old.id,
      new_deployment_id: id,
      surface_id: srf!.id,
      old_host: old.runnerHost,
      new_host: dep.runnerHost,
    };
    await writeAudit(tx, {
      workspaceId: dep.workspaceId,
      actor: system,
      action: "deployment.replaced",
      target: { kind: "deployment", id },
      correlationId: cid,
      details,
    });
    await emitEvent(tx, {
      workspaceId: dep.workspaceId,
      type: "deployment.replaced",
      correlationId: cid,
      subject: old.id,
      data: { phase: "completed", ...details },
    });
    surfaceId = srf!.id;
  });
  if (obsolete) {
    await release(obsolete);
    return "obsolete";
  }
  forgetSurface(surfaceId!);
  if (oldRetired) {
    // Every replica forgets the surface's route at once through the change signal; a replica whose
    // listener is reconnecting keeps it at most SURFACE_CACHE_TTL_MS. The old process serves until then.
    await new Promise((resolve) => setTimeout(resolve, SURFACE_CACHE_TTL_MS + 250));
    await release(oldRetired);
  }
  return "active";
}

/**
 * A failed replacement of a deployment lost with its host: the surface that
 * was kept for it expires (in the caller's transaction), as it would have
 * without self-healing. Nothing to do when the old deployment still runs
 * (a drain keeps it serving).
 */
export async function abandonKeptSurface(ctx: TMoveCtx, oldId: string): Promise<void> {
  const old = await ctx.tx.deployment.findUnique({ where: { id: oldId } });
  if (!old || old.status !== "failed") return;
  const srf = await ctx.tx.surface.findUnique({ where: { deploymentId: old.id } });
  if (!srf || srf.status !== "active") return;
  await moveSurface(ctx, srf, "expire", { reasonCode: "deployment_failed" });
  await ctx.tx.deadline.updateMany({
    where: { id: srf.deadlineId, status: "registered" },
    data: { status: "cancelled", updatedAt: new Date() },
  });
  await closeSessionsTx(ctx.tx, { surfaceId: srf.id }, "surface_expired");
  forgetSurface(srf.id);
}
