import { assertMayDeploy } from "@/server/domain/billing/collection/standing.service";
import type { Deployment, PipelineRun, Prisma, Revision } from "@/generated/prisma/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { runner, type TIsolationReport } from "@/server/runtime";
import { getOwnedRevision } from "@/server/domain/source/revisions.service";
import type { TDescriptor, TFinding } from "@/server/domain/source/source.types";
import type { TDeployment, TEnvironmentType, TPipelineRun } from "./deployments.contract";
import { DEPLOYMENT, type TDeploymentStatus } from "./deployments.states";
import { retire } from "./lifecycle";
import { deploymentLimits } from "./limits.service";
import { createDeploymentRow, createPipelineRow, movePipeline } from "./transitions";

type TCaller = { userId: string; correlationId: string };

export function toDeployment(d: Deployment): TDeployment {
  const out: TDeployment = {
    id: d.id,
    workspace_id: d.workspaceId,
    product_id: d.productId,
    revision_id: d.revisionId,
    environment_type: d.environmentType as TEnvironmentType,
    slot: d.slot,
    status: d.status as TDeploymentStatus,
    required_isolation_profile: "isolated-vm",
    egress: "deny",
    findings: d.findings as TFinding[],
    environment_id: d.environmentId,
    superseded_deployment_id: d.supersededDeploymentId,
    runner_host: d.runnerHost ?? null,
    source: d.source as TDeployment["source"],
    evidence: { build_log: null, health_attempts: null, ...(d.evidence as object) },
    started_at: d.startedAt ? iso(d.startedAt) : null,
    stopped_at: d.stoppedAt ? iso(d.stoppedAt) : null,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
  if (d.pipelineRunId) out.pipeline_run_id = d.pipelineRunId;
  if (d.reasonCode) out.reason_code = d.reasonCode;
  if (d.isolation) out.isolation = d.isolation as TDeployment["isolation"];
  if (d.health) out.health = d.health as TDeployment["health"];
  if (d.endpoint) out.endpoint = d.endpoint as TDeployment["endpoint"];
  if (d.surfaceId) out.surface_id = d.surfaceId;
  return out;
}

export function toPipelineRun(r: PipelineRun): TPipelineRun {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    revision_id: r.revisionId,
    product_id: r.productId,
    intent: "preview",
    status: r.status as TPipelineRun["status"],
    findings: r.findings as TFinding[],
    deployment_id: r.deploymentId,
    ...(r.reasonCode ? { reason_code: r.reasonCode } : {}),
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

/** What the isolation policy and the revision allow, decided before anything is written. */
export function authorize(
  rev: Pick<Revision, "descriptor">,
  environmentType: TEnvironmentType,
  isolation: TIsolationReport,
  allowUnenforcedProduction: boolean,
): { blocked: string | null; findings: TFinding[]; unenforcedRun: boolean } {
  const findings: TFinding[] = [];
  const unenforcedLimits = Object.entries(isolation.limits ?? {})
    .filter(([, l]) => !l.enforced)
    .map(([k]) => k);
  const enforcedParts = [
    isolation.filesystem && "filesystem",
    isolation.network && "no network",
    `limits${unenforcedLimits.length ? ` except ${unenforcedLimits.join(", ")}` : ""}`,
  ].filter(Boolean);
  const what = `${isolation.runner} runner, ${isolation.sandbox !== "none" ? `${isolation.sandbox} sandbox (${enforcedParts.join(", ")})` : `no sandbox (${isolation.sandbox_unavailable_reason ?? "unavailable"})`}, no kernel or VM boundary`;
  if (!(rev.descriptor as TDescriptor | null)?.build_plan) {
    findings.push({
      kind: "descriptor",
      severity: "error",
      code: "build_plan_missing",
      message:
        "The confirmed descriptor has no build plan (install, build, start, port, health): freeze a revision the detector can plan, or confirm one with a build plan.",
    });
    return { blocked: "build_plan_missing", findings, unenforcedRun: false };
  }
  // Capstan not running as root (the shipped image: uid 10001): the app cannot get a uid of its own. Said in words.
  if (isolation.identity && !isolation.identity.dedicated) {
    findings.push({
      kind: "isolation",
      severity: "warning",
      code: "identity_shared",
      message: `Capstan does not run as root on this runner, so the app runs as Capstan's own uid${isolation.identity.uid !== null ? ` ${isolation.identity.uid}` : ""}, not a uid of its own: only the sandbox separates it from Capstan's files and processes and from the other deployments${isolation.sandbox === "none" ? " (and there is no sandbox: it can read Capstan's files and environment)" : ""}; no per-uid process limit and no disk cap (tmpfs) apply.`,
    });
  }
  if (!isolation.enforced) {
    if (environmentType === "production" && !allowUnenforcedProduction) {
      findings.push({
        kind: "isolation",
        severity: "error",
        code: "isolation_unenforced",
        message: `Production requires the isolated-vm profile, which this runner cannot enforce (${what}). Deploy to preview or staging, or ask the operator to run a runner that enforces isolated-vm (or to set CAPSTAN_ALLOW_UNENFORCED_PRODUCTION=1).`,
      });
      return { blocked: "isolation_unenforced", findings, unenforcedRun: false };
    }
    findings.push({
      kind: "isolation",
      severity: "warning",
      code: "isolation_unenforced",
      message: `Runs without the isolated-vm profile: ${what}.`,
    });
    if (isolation.sandbox === "none") {
      findings.push({
        kind: "isolation",
        severity: "warning",
        code: "sandbox_unavailable",
        message: `The app runs as a plain process of the Capstan host with network access: ${isolation.sandbox_unavailable_reason ?? "no sandbox"}.`,
      });
    }
    return { blocked: null, findings, unenforcedRun: true };
  }
  return { blocked: null, findings, unenforcedRun: false };
}

/**
 * POST /v1/workspaces/{ws}/revisions/{rev}/deployments: checks the revision
 * (409 naming why: descriptor unconfirmed, contract rejected or pending),
 * then in one transaction finds or creates the environment, drives the
 * preview pipeline run through authorization, and writes the deployment as
 * `planned` (the deploy worker picks it up) or `blocked` with findings.
 */
export async function requestDeployment(
  caller: TCaller,
  workspaceId: string,
  revisionId: string,
  body: { environment_type: TEnvironmentType; slot?: string },
  /** A release deployment: its source, and a step (freezing the release) in the same transaction. */
  opts: {
    source?: { kind: "release"; release_id: string; version_id: string };
    inTx?: (tx: Prisma.TransactionClient, dep: Deployment) => Promise<void>;
  } = {},
): Promise<TDeployment> {
  // Restricted or suspended for non-payment: no new deployments (403 billing_restricted, the reason in words).
  await assertMayDeploy(workspaceId);
  const rev = await getOwnedRevision(workspaceId, revisionId);
  if (rev.descriptorStatus !== "confirmed") {
    throw new AppError(
      "conflict",
      `Revision ${revisionId} has no confirmed runtime descriptor (${rev.descriptorStatus}): confirm it with descriptor:confirm first`,
      { reason: "descriptor_unconfirmed" },
    );
  }
  if (rev.contractStatus === "rejected") {
    const why = (rev.contractRejection as { reason?: string; message?: string } | null) ?? {};
    throw new AppError(
      "conflict",
      `Revision ${revisionId}'s capability contract was rejected (${why.reason ?? "rejected"}${why.message ? `: ${why.message}` : ""}); fix capabilities.json and freeze a new revision`,
      { reason: "contract_rejected" },
    );
  }
  if (rev.contractStatus !== "ready") {
    throw new AppError(
      "conflict",
      `Revision ${revisionId}'s capability contract is not ready (${rev.contractStatus})`,
      { reason: "contract_pending" },
    );
  }
  const environmentType = body.environment_type;
  const slot = body.slot ?? "default";
  // Limits first: a descriptor asking for more than the plan allows is a 422 before anything is written.
  const limits = await deploymentLimits(workspaceId, rev.descriptor as TDescriptor | null);
  const isolation = await runner().isolation(limits);
  const auth = authorize(rev, environmentType, isolation, env().CAPSTAN_ALLOW_UNENFORCED_PRODUCTION);
  const actor = { kind: "user" as const, id: caller.userId };

  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const ctx = { tx, actor, correlationId: caller.correlationId };
    const environment = await tx.environment.upsert({
      where: { productId_type_slot: { productId: rev.productId, type: environmentType, slot } },
      create: { id: newId("env"), workspaceId, productId: rev.productId, type: environmentType, slot },
      update: {},
    });
    const id = newId("dep");
    let run: PipelineRun | null = null;
    if (environmentType === "preview") {
      run = await createPipelineRow(ctx, {
        id: newId("pipe"),
        workspaceId,
        productId: rev.productId,
        revisionId,
        deploymentId: id,
        correlationId: caller.correlationId,
      });
      run = await movePipeline(ctx, run, rev.snapshot ? "snapshot_ready" : "snapshot_missing");
      run = await movePipeline(ctx, run, auth.blocked ? "block" : "admit", {
        findings: auth.findings as never,
        reasonCode: auth.blocked,
      });
    }
    const audits =
      auth.blocked === "isolation_unenforced"
        ? [{ action: "isolation.blocked" as const, details: { isolation } }]
        : auth.unenforcedRun
          ? [{ action: "isolation.unenforced_run" as const, details: { isolation } }]
          : [];
    const dep = await createDeploymentRow(
      ctx,
      auth.blocked ? "block" : "request",
      {
        id,
        workspaceId,
        productId: rev.productId,
        revisionId,
        environmentId: environment.id,
        environmentType,
        slot,
        reasonCode: auth.blocked,
        findings: auth.findings,
        isolation: isolation,
        source: opts.source ?? { kind: "revision" },
        releaseId: opts.source?.release_id ?? null,
        pipelineRunId: run?.id ?? null,
        runner: runner().name,
        correlationId: caller.correlationId,
        createdBy: caller.userId,
      },
      audits,
    );
    if (opts.inTx) await opts.inTx(tx, dep);
    return dep;
  });
  return toDeployment(row);
}

export async function getOwnedDeployment(workspaceId: string, id: string): Promise<Deployment> {
  const d = await scopedDb(workspaceId).deployment.findUnique({ where: { id } });
  if (!d) throw notFound(`Deployment ${id}`);
  return d;
}

export async function getDeployment(workspaceId: string, id: string): Promise<TDeployment> {
  return toDeployment(await getOwnedDeployment(workspaceId, id));
}

export async function listDeployments(
  workspaceId: string,
  q: TListQuery & { revision_id?: string; release_id?: string; product_id?: string; status?: TDeploymentStatus },
): Promise<TPage<TDeployment>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).deployment.findMany({
    ...args,
    where: {
      ...args.where,
      ...(q.revision_id ? { revisionId: q.revision_id } : {}),
      ...(q.release_id ? { releaseId: q.release_id } : {}),
      ...(q.product_id ? { productId: q.product_id } : {}),
      ...(q.status ? { status: q.status } : {}),
    },
  });
  return toPage(rows, q, toDeployment);
}

export async function getPipelineRun(workspaceId: string, id: string): Promise<TPipelineRun> {
  const r = await scopedDb(workspaceId).pipelineRun.findUnique({ where: { id } });
  if (!r) throw notFound(`Pipeline run ${id}`);
  return toPipelineRun(r);
}

/**
 * POST .../deployments/{dep}:stop. A planned, applying or active deployment
 * becomes `superseded` with reason_code `stopped` (audit deployment.stopped);
 * its surface expires and its process group, directory and socket are gone
 * before the answer. Anything already ended is a 409.
 */
export async function stopDeployment(caller: TCaller, workspaceId: string, id: string): Promise<TDeployment> {
  const dep = await getOwnedDeployment(workspaceId, id);
  if (!DEPLOYMENT.can(dep.status as TDeploymentStatus, "stop")) {
    throw new AppError(
      "conflict",
      `Deployment ${id} is ${dep.status}${dep.reasonCode ? ` (${dep.reasonCode})` : ""}: there is nothing to stop`,
      { reason: "deployment_not_running" },
    );
  }
  return toDeployment(await retire(dep, "stop", "stopped", { kind: "user", id: caller.userId }, caller.correlationId));
}
