import type { Deployment, Prisma } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { runner, type TDeployOutcome, type TRuntimeState } from "@/server/runtime";
import type { TDescriptor, TEvidence } from "@/server/domain/source/source.types";
import { claimEvidence } from "@/server/domain/source/evidence.service";
import { deploymentResources, resourceHandlers } from "@/server/domain/managed-resources/delivery";
import type { TEnvironmentType } from "./deployments.contract";
import { deploymentBridge, release, retireInTx } from "./lifecycle";
import { forgetSurface } from "./surface-cache";
import { probeSurface, surfaceTtlSeconds, surfaceUrls } from "./surfaces.service";
import { createSurfaceRow, moveDeployment, movePipeline, moveSurface, type TMoveCtx } from "./transitions";
import { isBlobStoreOutage } from "@/server/platform/blob-store";
import { limitsOfReport } from "./limits.service";
import { ensureRegistered, localHostId } from "@/server/domain/runners/runner-hosts.service";
import { activateReplacement, abandonKeptSurface } from "./replace.service";

/**
 * The deploy worker (runner role): leases planned deployments (FOR UPDATE
 * SKIP LOCKED) and places them on this host, which records itself on the
 * deployment (runner_host). Placement is pull-based: a live, uncordoned host claims only
 * while it is below its capacity and no live host with room is less loaded
 * than it (docs/decisions.md "Roles and runner hosts"); a replacement is never
 * claimed by the host it must avoid (the one it leaves). Then each goes to the
 * runner (unpack, install, build, start, health), and the healthy deployment
 * gets a surface: registers its expiry deadline, probes it through the surface
 * route and activates both in one transaction that also supersedes the
 * environment's previous active deployment. A stop that lands meanwhile wins:
 * the worker notices its move is refused and releases what it started.
 */
const LEASE_SECONDS = 900;
const system = { kind: "system" as const, id: null };

/*
 * Platform-scoped by design: the deploy worker claims planned deployments of
 * every workspace (by id, on db()); each row names its workspace, and every
 * row it writes (surface, deadline, evidence) takes that workspace from it.
 */
export async function processPlannedDeployments(limit = 2): Promise<number> {
  const claimed = await claimPlannedDeployments(limit);
  await Promise.all(claimed.map(applyClaimed));
  return claimed.length;
}

/** Applies a deployment this host claimed; a crash is logged (the claim's lease lets it be retried). */
export function applyClaimed(id: string): Promise<void> {
  return applyDeployment(id).catch((err) =>
    logger.error("deployment.apply_crashed", { deployment_id: id, error: String(err) }),
  );
}

/**
 * Claims up to `limit` planned deployments for this host (the placement rule
 * above, in one statement) and returns their ids. A claimed deployment counts
 * in this host's load until it is applied, so claiming again while earlier
 * claims are still building never exceeds the capacity.
 */
export async function claimPlannedDeployments(limit: number): Promise<string[]> {
  await ensureRegistered();
  const me = localHostId();
  // platform-scoped: the deploy worker claims planned deployments of every workspace.
  const claimed = await db().$queryRaw<{ id: string }[]>`
    WITH load AS (
      SELECT h.id, h.capacity, (SELECT count(*) FROM deployments d WHERE d.runner_host = h.id
               AND (d.status IN ('applying', 'active') OR (d.status = 'planned' AND d.locked_until > now())))::int AS n
        FROM runner_hosts h WHERE h.state = 'live' AND h.lease_expires_at > now() AND h.cordoned_at IS NULL),
    mine AS (SELECT n, capacity FROM load WHERE id = ${me})
    UPDATE deployments SET locked_until = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = attempts + 1, runner_host = ${me}, updated_at = now(),
      reason_code = CASE WHEN reason_code = 'no_runner_capacity' THEN NULL ELSE reason_code END
     WHERE id IN (
       SELECT d.id FROM deployments d
        WHERE d.status = 'planned' AND (d.locked_until IS NULL OR d.locked_until < now())
          AND (d.avoid_host IS NULL OR d.avoid_host <> ${me})
          AND (SELECT n FROM mine) <= (SELECT min(n) FROM load WHERE n < capacity AND load.id IS DISTINCT FROM d.avoid_host)
        ORDER BY d.created_at
        LIMIT COALESCE((SELECT LEAST(${limit}, GREATEST(0, capacity - n)) FROM mine), 0) FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  return claimed.map((c) => c.id);
}

// platform-scoped: the worker's moves of a claimed deployment (its row names the workspace; moves may place it on a runner host).
const tx = <T>(correlationId: string, fn: (ctx: TMoveCtx) => Promise<T>) =>
  db().$transaction((t) => fn({ tx: t, actor: system, correlationId }));

/** True when the error is a refused move because the deployment changed meanwhile (a stop). */
const superseded = (err: unknown) =>
  err instanceof AppError && (err.reason === "concurrent_change" || err.reason === "illegal_transition");

export async function applyDeployment(id: string): Promise<void> {
  // platform-scoped: a claimed deployment, by id.
  const planned = await db().deployment.findUniqueOrThrow({ where: { id } });
  if (planned.status !== "planned") return;
  const cid = planned.correlationId;
  const r = runner();
  const applying = await tx(cid, async (ctx) => {
    const dep = await moveDeployment(ctx, planned, "apply", { runnerHost: r.hostId, startedAt: new Date() });
    if (dep.pipelineRunId)
      await movePipeline(
        ctx,
        await ctx.tx.pipelineRun.findUniqueOrThrow({ where: { id: dep.pipelineRunId } }),
        "request",
      );
    return dep;
  });
  // platform-scoped: the claimed deployment's own revision.
  const rev = await db().revision.findUniqueOrThrow({ where: { id: applying.revisionId } });
  const descriptor = rev.descriptor as unknown as TDescriptor;

  let outcome: TDeployOutcome;
  try {
    outcome = await r.deploy({
      deploymentId: id,
      snapshot: rev.snapshot as unknown as TEvidence,
      buildPlan: descriptor.build_plan!,
      bridge: deploymentBridge(applying),
      limits: limitsOfReport(applying.isolation),
      resources: await deploymentResources(applying),
      resourceHandlers: resourceHandlers(applying),
      // Each step as it begins and ends, for the deployment page (a stop meanwhile leaves them as they were).
      onSteps: async (steps) => {
        // platform-scoped: the claimed deployment, by id.
        await db().deployment.updateMany({ where: { id, status: "applying" }, data: { buildSteps: steps } });
      },
      // Recorded at once so a stop or the reconciler can find the process even before it is healthy.
      onStarted: async (state) => {
        // platform-scoped: the claimed deployment, by id.
        await db().deployment.updateMany({ where: { id, status: "applying" }, data: { runtime: state } });
      },
    });
  } catch (err) {
    // A blob store outage (the snapshot cannot be read, the build log cannot be kept) is said as such, not as a runner fault.
    const outage = isBlobStoreOutage(err);
    logger.error("deployment.runner_failed", {
      deployment_id: id,
      error: outage ? (err as Error).message : String((err as Error)?.stack ?? err),
    });
    const [code, message] = outage
      ? ["blob_store_unavailable", `${(err as Error).message}; deploy again once the blob store answers.`]
      : ["runner_error", "The runner failed unexpectedly; deploy again, and quote the deployment id if it persists."];
    outcome = {
      ok: false,
      reasonCode: code,
      state: null,
      health: null,
      evidence: { build_log: null, health_attempts: null },
      findings: [{ kind: "runtime", severity: "error", code, message }],
    };
  }
  await claimEvidence(applying.workspaceId, [
    { evidence: outcome.evidence.build_log, contentType: "text/plain; charset=utf-8" },
    { evidence: outcome.evidence.health_attempts, contentType: "application/json" },
  ]);
  const evidence = outcome.evidence as unknown as Prisma.InputJsonValue;
  const stateJson = (outcome.state ?? null) as unknown as Prisma.InputJsonValue;
  const buildSteps = (outcome.steps ?? []) as unknown as Prisma.InputJsonValue;

  if (!outcome.ok) {
    await finishFailed(id, cid, outcome.reasonCode, outcome.findings, {
      evidence,
      buildSteps,
      runtime: stateJson ?? undefined,
      health: outcome.health ?? undefined,
      ...(outcome.isolation ? { isolation: outcome.isolation } : {}),
    });
    return;
  }

  // A replacement takes over its old deployment's surface instead of getting one (replace.service.ts).
  if (planned.replacesDeploymentId) {
    let done: Awaited<ReturnType<typeof activateReplacement>>;
    try {
      done = await activateReplacement(id, cid, outcome, descriptor.build_plan!.health.path);
    } catch (err) {
      if (!superseded(err)) throw err;
      await release({ id, runtime: stateJson as never, surfaceId: null });
      return;
    }
    if (done === "unreachable") {
      await finishFailed(
        id,
        cid,
        "surface_unreachable",
        [
          {
            kind: "surface",
            severity: "error",
            code: "surface_unreachable",
            message: `The new process did not answer ${descriptor.build_plan!.health.path} through the route its surface would use, although it was healthy on its socket.`,
          },
        ],
        { runtime: stateJson },
      );
    }
    return;
  }

  // Healthy: a surface, its deadline, then the probe through the route.
  let surfaceId: string;
  try {
    surfaceId = await tx(cid, async (ctx) => {
      const dep = await ctx.tx.deployment.findUniqueOrThrow({ where: { id } });
      if (dep.status !== "applying")
        throw new AppError("conflict", "stopped meanwhile", { reason: "concurrent_change" });
      await ctx.tx.deployment.update({
        where: { id },
        data: {
          runtime: stateJson,
          buildSteps,
          health: outcome.health as never,
          endpoint: outcome.endpoint as never,
          evidence,
          isolation: outcome.isolation as never,
          updatedAt: new Date(),
        },
      });
      const run = dep.pipelineRunId
        ? await ctx.tx.pipelineRun.findUniqueOrThrow({ where: { id: dep.pipelineRunId } })
        : null;
      if (run) await movePipeline(ctx, run, "report");
      const srfId = newId("srf");
      const ddlId = newId("ddl");
      const expiresAt = new Date(Date.now() + surfaceTtlSeconds(dep.environmentType as TEnvironmentType) * 1000);
      const urls = surfaceUrls(srfId);
      let srf = await createSurfaceRow(ctx, {
        id: srfId,
        workspaceId: dep.workspaceId,
        productId: dep.productId,
        deploymentId: id,
        environmentId: dep.environmentId,
        environmentType: dep.environmentType,
        expiresAt,
        deadlineId: ddlId,
        url: urls.url,
        route: { host: urls.host, path: "/" },
      });
      await ctx.tx.deadline.create({
        data: { id: ddlId, workspaceId: dep.workspaceId, subjectKind: "surface", subjectId: srfId, dueAt: expiresAt },
      });
      srf = await moveSurface(ctx, srf, "register");
      await ctx.tx.deployment.update({ where: { id }, data: { surfaceId: srfId } });
      return srf.id;
    });
  } catch (err) {
    if (!superseded(err)) throw err;
    await release({ id, runtime: stateJson as never, surfaceId: null });
    return;
  }

  forgetSurface(surfaceId);
  const checkedAt = new Date();
  const started = performance.now();
  const probe = await probeSurface(
    new Request(`http://capstan.internal/s/${surfaceId}${descriptor.build_plan!.health.path}`, {
      headers: { "user-agent": "capstan-reachability" },
    }),
    surfaceId,
    descriptor.build_plan!.health.path,
    { allowValidating: true, reachabilityProbe: true },
  );
  const reachability = {
    checked_at: checkedAt.toISOString(),
    status_code: probe.status,
    latency_ms: Math.round(performance.now() - started),
  };
  const reachable = probe.status >= 200 && probe.status < 400;

  if (!reachable) {
    await tx(cid, async (ctx) => {
      const srf = await ctx.tx.surface.findUniqueOrThrow({ where: { id: surfaceId } });
      if (srf.status === "validating")
        await moveSurface(ctx, srf, "unreachable", { reachability, reasonCode: "unreachable" });
    });
    await finishFailed(
      id,
      cid,
      "surface_unreachable",
      [
        {
          kind: "surface",
          severity: "error",
          code: "surface_unreachable",
          message: `The surface route answered ${probe.status} for ${descriptor.build_plan!.health.path} although the app was healthy on its socket.`,
        },
      ],
      {},
    );
    return;
  }

  let old: Deployment[] = [];
  try {
    await tx(cid, async (ctx) => {
      const dep = await ctx.tx.deployment.findUniqueOrThrow({ where: { id } });
      // Activations of one environment take turns, so two finishing at once supersede each other in order.
      await ctx.tx.$queryRaw`SELECT id FROM environments WHERE id = ${dep.environmentId} FOR UPDATE`;
      // Supersede first: at most one active deployment per environment (a unique index says so too).
      const previous = await ctx.tx.deployment.findMany({
        where: { environmentId: dep.environmentId, status: "active", id: { not: id } },
      });
      old = [];
      for (const p of previous) old.push(await retireInTx(ctx, p, "supersede", "superseded"));
      await moveDeployment(ctx, dep, "ready", { supersededDeploymentId: previous[0]?.id ?? null, lockedUntil: null });
      const srf = await ctx.tx.surface.findUniqueOrThrow({ where: { id: surfaceId } });
      await moveSurface(ctx, srf, "reachable", { reachability, activatedAt: new Date() });
      if (dep.pipelineRunId)
        await movePipeline(
          ctx,
          await ctx.tx.pipelineRun.findUniqueOrThrow({ where: { id: dep.pipelineRunId } }),
          "complete",
        );
    });
  } catch (err) {
    if (!superseded(err)) throw err;
    await release({ id, runtime: stateJson as never, surfaceId });
    return;
  }
  forgetSurface(surfaceId);
  for (const p of old) await release(p);
}

async function finishFailed(
  id: string,
  cid: string,
  reasonCode: string,
  findings: unknown[],
  data: Prisma.DeploymentUncheckedUpdateManyInput,
): Promise<void> {
  let dep: Deployment | null = null;
  try {
    dep = await tx(cid, async (ctx) => {
      const current = await ctx.tx.deployment.findUniqueOrThrow({ where: { id } });
      if (current.status !== "applying") return current;
      if (Object.keys(data).length)
        await ctx.tx.deployment.update({ where: { id }, data: { ...data, updatedAt: new Date() } as never });
      const run = current.pipelineRunId
        ? await ctx.tx.pipelineRun.findUniqueOrThrow({ where: { id: current.pipelineRunId } })
        : null;
      if (run?.status === "requested") await movePipeline(ctx, run, "report");
      const failed = await retireInTx(
        ctx,
        await ctx.tx.deployment.findUniqueOrThrow({ where: { id } }),
        "fail",
        reasonCode,
        { findings },
      );
      if (failed.replacesDeploymentId) await abandonKeptSurface(ctx, failed.replacesDeploymentId);
      return failed;
    });
  } finally {
    const runtime = dep?.runtime ?? (data.runtime as unknown as TRuntimeState | undefined) ?? null;
    await release({ id, runtime: runtime, surfaceId: dep?.surfaceId ?? null });
  }
}
