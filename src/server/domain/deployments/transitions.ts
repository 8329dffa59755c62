import type { Deployment, PipelineRun, Prisma, Surface } from "@/generated/prisma/client";
import { writeAudit, type TActor, type TAuditAction } from "@/server/platform/audit";
import { AppError } from "@/server/platform/errors";
import { emitEvent } from "@/server/platform/outbox";
import {
  DEPLOYMENT,
  DEPLOYMENT_AUDIT,
  PIPELINE,
  SURFACE,
  type TDeploymentEvent,
  type TDeploymentStatus,
  type TPipelineEvent,
  type TPipelineStatus,
  type TSurfaceEvent,
  type TSurfaceStatus,
} from "./deployments.states";

/**
 * The only writers of deployment, pipeline-run and surface status. Each
 * move checks the edge against its table, updates the row only if it is
 * still in the state the caller read (a concurrent move makes this one a
 * 409, never a lost update), and writes the audit record and the outbox
 * event in the caller's transaction.
 */
export type TMoveCtx = { tx: Prisma.TransactionClient; actor: TActor; correlationId: string };

const concurrent = (what: string, id: string) =>
  new AppError("conflict", `The ${what} ${id} changed concurrently; read it again`, { reason: "concurrent_change" });

export async function moveDeployment(
  ctx: TMoveCtx,
  dep: Deployment,
  event: TDeploymentEvent,
  data: Prisma.DeploymentUncheckedUpdateManyInput = {},
  extraAudits: Array<{ action: TAuditAction; details?: Record<string, unknown> }> = [],
): Promise<Deployment> {
  const from = dep.status as TDeploymentStatus;
  const to = DEPLOYMENT.next(from, event);
  const now = new Date();
  const moved = await ctx.tx.deployment.updateMany({
    where: { id: dep.id, status: from },
    data: { ...data, status: to, updatedAt: now },
  });
  if (moved.count !== 1) throw concurrent("deployment", dep.id);
  const row = await ctx.tx.deployment.findUniqueOrThrow({ where: { id: dep.id } });
  await recordDeployment(ctx, row, event, from, extraAudits);
  return row;
}

/** The creation edge (null -> planned | blocked). */
export async function createDeploymentRow(
  ctx: TMoveCtx,
  event: "request" | "block",
  data: Omit<Prisma.DeploymentUncheckedCreateInput, "status">,
  extraAudits: Array<{ action: TAuditAction; details?: Record<string, unknown> }> = [],
): Promise<Deployment> {
  const status = DEPLOYMENT.next(null, event);
  const row = await ctx.tx.deployment.create({ data: { ...data, status } });
  await recordDeployment(ctx, row, event, null, extraAudits);
  return row;
}

async function recordDeployment(
  ctx: TMoveCtx,
  row: Deployment,
  event: TDeploymentEvent,
  from: string | null,
  extraAudits: Array<{ action: TAuditAction; details?: Record<string, unknown> }>,
): Promise<void> {
  const details = {
    product_id: row.productId,
    revision_id: row.revisionId,
    environment_type: row.environmentType,
    slot: row.slot,
    from,
    to: row.status,
    event,
    reason_code: row.reasonCode,
  };
  const action = DEPLOYMENT_AUDIT[event];
  const target = { kind: "deployment", id: row.id };
  if (action)
    await writeAudit(ctx.tx, {
      workspaceId: row.workspaceId,
      actor: ctx.actor,
      action,
      target,
      correlationId: ctx.correlationId,
      details,
    });
  for (const a of extraAudits) {
    await writeAudit(ctx.tx, {
      workspaceId: row.workspaceId,
      actor: ctx.actor,
      action: a.action,
      target,
      correlationId: ctx.correlationId,
      details: { ...details, ...a.details },
    });
  }
  await emitEvent(ctx.tx, {
    workspaceId: row.workspaceId,
    type: "deployment.changed",
    correlationId: ctx.correlationId,
    subject: row.id,
    data: { deployment_id: row.id, ...details },
  });
}

export async function movePipeline(
  ctx: TMoveCtx,
  run: PipelineRun,
  event: TPipelineEvent,
  data: Prisma.PipelineRunUncheckedUpdateManyInput = {},
): Promise<PipelineRun> {
  const from = run.status as TPipelineStatus;
  const to = PIPELINE.next(from, event);
  const moved = await ctx.tx.pipelineRun.updateMany({
    where: { id: run.id, status: from },
    data: { ...data, status: to, updatedAt: new Date() },
  });
  if (moved.count !== 1) throw concurrent("pipeline run", run.id);
  const row = await ctx.tx.pipelineRun.findUniqueOrThrow({ where: { id: run.id } });
  await emitEvent(ctx.tx, {
    workspaceId: row.workspaceId,
    type: "pipeline_run.changed",
    correlationId: ctx.correlationId,
    subject: row.id,
    data: {
      pipeline_run_id: row.id,
      revision_id: row.revisionId,
      deployment_id: row.deploymentId,
      from,
      to,
      event,
      reason_code: row.reasonCode,
    },
  });
  return row;
}

export async function createPipelineRow(
  ctx: TMoveCtx,
  data: Omit<Prisma.PipelineRunUncheckedCreateInput, "status">,
): Promise<PipelineRun> {
  const row = await ctx.tx.pipelineRun.create({ data: { ...data, status: PIPELINE.next(null, "create") } });
  await emitEvent(ctx.tx, {
    workspaceId: row.workspaceId,
    type: "pipeline_run.changed",
    correlationId: ctx.correlationId,
    subject: row.id,
    data: {
      pipeline_run_id: row.id,
      revision_id: row.revisionId,
      deployment_id: row.deploymentId,
      from: null,
      to: row.status,
      event: "create",
      reason_code: null,
    },
  });
  return row;
}

export async function moveSurface(
  ctx: TMoveCtx,
  srf: Surface,
  event: TSurfaceEvent,
  data: Prisma.SurfaceUncheckedUpdateManyInput = {},
): Promise<Surface> {
  const from = srf.status as TSurfaceStatus;
  const to = SURFACE.next(from, event);
  const moved = await ctx.tx.surface.updateMany({
    where: { id: srf.id, status: from },
    data: { ...data, status: to, updatedAt: new Date() },
  });
  if (moved.count !== 1) throw concurrent("surface", srf.id);
  const row = await ctx.tx.surface.findUniqueOrThrow({ where: { id: srf.id } });
  await emitSurface(ctx, row, from, event);
  return row;
}

export async function createSurfaceRow(
  ctx: TMoveCtx,
  data: Omit<Prisma.SurfaceUncheckedCreateInput, "status">,
): Promise<Surface> {
  const row = await ctx.tx.surface.create({ data: { ...data, status: SURFACE.next(null, "create") } });
  await emitSurface(ctx, row, null, "create");
  return row;
}

async function emitSurface(ctx: TMoveCtx, row: Surface, from: string | null, event: TSurfaceEvent): Promise<void> {
  await emitEvent(ctx.tx, {
    workspaceId: row.workspaceId,
    type: "surface.changed",
    correlationId: ctx.correlationId,
    subject: row.id,
    data: {
      surface_id: row.id,
      deployment_id: row.deploymentId,
      from,
      to: row.status,
      event,
      reason_code: row.reasonCode,
      url: row.url,
    },
  });
}
