import type { Deployment, Evaluation, Prisma, Revision } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import type { TRuntimeState } from "@/server/runtime";
import { runnerFor } from "@/server/domain/runners/runner-hosts.service";
import { requestDeployment } from "@/server/domain/deployments/deployments.service";
import { retire } from "@/server/domain/deployments/lifecycle";
import { closeSession, openSession } from "@/server/domain/sessions/sessions.service";
import { createInvocation } from "@/server/domain/sessions/invocations.service";
import type { TDescriptor, TFinding } from "@/server/domain/source/source.types";
import type { TEvaluationCheck, TEvaluationCheckName, TEvaluationFinding } from "./releases.contract";
import { moveEvaluation } from "./evaluations.service";
import { cutVersion } from "./versions.service";

/**
 * The evaluation worker. Each tick leases queued, deploying (and
 * abandoned checking) evaluations and advances each by one phase, never
 * waiting on another loop: queued -> static checks and a preview
 * deployment (slot `eval-<revision>`) -> deploying until the deploy worker has
 * finished it -> checking: surface, smoke requests sent as invocations on a
 * session of the requester, the app's log -> passed (a version is cut in the
 * same transaction) or failed. The first failing check decides; later
 * checks are skipped. The evaluation's deployment is stopped at the end.
 *
 * Tenancy: the claim and the first read of a claimed evaluation by id are
 * platform-scoped (every workspace's queue); everything after that runs on
 * scopedDb(e.workspaceId).
 */
const LEASE_SECONDS = 300;
/** One preview slot per revision: evaluations of other revisions of the product never supersede each other's deployment. */
const slotOf = (revisionId: string) => `eval-${revisionId.slice(4)}`;
const LOG_BYTES = 256 * 1024;
const CRASH = /Uncaught|UnhandledPromiseRejection|unhandledRejection|FATAL ERROR|Segmentation fault|^\s+at .+:\d+:\d+\)?$/m;
const system = { kind: "system" as const, id: null };

export async function processEvaluations(limit = 4): Promise<number> {
  // platform-scoped: the claim scans every workspace's evaluations.
  const claimed = await db().$queryRaw<{ id: string }[]>`
    UPDATE evaluations SET locked_until = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = attempts + 1, updated_at = now()
     WHERE id IN (
       SELECT id FROM evaluations
        WHERE status IN ('queued', 'deploying', 'checking') AND (locked_until IS NULL OR locked_until < now())
        ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  for (const { id } of claimed) {
    await advance(id).catch((err) => logger.error("evaluation.tick_failed", { evaluation_id: id, error: String((err as Error)?.stack ?? err) }));
  }
  return claimed.length;
}

type TRun = { checks: TEvaluationCheck[]; findings: TEvaluationFinding[] };

const finding = (check: TEvaluationCheckName, kind: string, severity: string, code: string, message: string): TEvaluationFinding =>
  ({ id: newId("fnd"), check, kind, severity, code, message });

function mark(run: TRun, name: TEvaluationCheckName, status: "passed" | "failed", extra: Partial<TEvaluationCheck> = {}): void {
  const now = new Date().toISOString();
  let failedSeen = false;
  run.checks = run.checks.map((c) => {
    if (c.name === name) {
      failedSeen = status === "failed";
      return { ...c, ...extra, status, finished_at: now };
    }
    if (failedSeen && c.status === "pending") return { ...c, status: "skipped", finished_at: now };
    return c;
  });
}

async function advance(id: string): Promise<void> {
  // platform-scoped: the claimed row is read by id to learn its workspace; the rest is scoped to it.
  const e = await db().evaluation.findUniqueOrThrow({ where: { id } });
  const sdb = scopedDb(e.workspaceId);
  const run: TRun = { checks: e.checks as TEvaluationCheck[], findings: e.findings as TEvaluationFinding[] };
  if (e.status === "queued") return start(e, run);
  const dep = e.deploymentId ? await sdb.deployment.findUnique({ where: { id: e.deploymentId } }) : null;
  if (!dep) return finish(e, run, "deployment", [finding("deployment", "deployment", "error", "deployment_failed", "The evaluation's deployment is gone.")]);
  if (e.status === "deploying") {
    if (dep.status === "planned" || dep.status === "applying") {
      await sdb.evaluation.update({ where: { id }, data: { lockedUntil: null } });
      return;
    }
    if (dep.status !== "active") {
      const own = (dep.findings as TFinding[]).filter((f) => f.severity === "error").map((f) => finding("deployment", f.kind, f.severity, f.code, f.message));
      return finish(e, run, "deployment", [
        finding("deployment", "deployment", "error", "deployment_failed", `The preview deployment ${dep.id} ended ${dep.status}${dep.reasonCode ? ` (${dep.reasonCode})` : ""} instead of becoming active.`),
        ...own,
      ]);
    }
    mark(run, "deployment", "passed");
    const checking = await sdb.$transaction((tx) => moveEvaluation(tx, e, "check", { checks: run.checks as never }));
    return check(checking, run, dep);
  }
  return check(e, run, dep);
}

async function start(e: Evaluation, run: TRun): Promise<void> {
  const rev = await scopedDb(e.workspaceId).revision.findUniqueOrThrow({ where: { id: e.revisionId } });
  if (rev.descriptorStatus !== "confirmed") {
    return finish(e, run, "descriptor", [finding("descriptor", "descriptor", "error", "descriptor_unconfirmed", `The runtime descriptor is ${rev.descriptorStatus}, not confirmed: confirm it (descriptor:confirm) before evaluating.`)]);
  }
  mark(run, "descriptor", "passed");
  if (rev.contractStatus !== "ready") {
    const why = (rev.contractRejection as { reason?: string; message?: string } | null) ?? {};
    return finish(e, run, "contract", [rev.contractStatus === "rejected"
      ? finding("contract", "contract", "error", "contract_rejected", `The capability contract was rejected (${why.reason ?? "rejected"}${why.message ? `: ${why.message}` : ""}).`)
      : finding("contract", "contract", "error", "contract_pending", `The capability contract is ${rev.contractStatus}, not ready.`)]);
  }
  mark(run, "contract", "passed");
  let depId: string;
  try {
    const dep = await requestDeployment({ userId: e.createdBy, correlationId: e.correlationId }, e.workspaceId, e.revisionId, { environment_type: "preview", slot: slotOf(e.revisionId) });
    if (dep.status === "blocked") {
      return finish(e, run, "deployment", [
        finding("deployment", "deployment", "error", "deployment_blocked", `The preview deployment ${dep.id} was blocked (${dep.reason_code ?? "blocked"}).`),
        ...dep.findings.filter((f) => f.severity === "error").map((f) => finding("deployment", f.kind, f.severity, f.code, f.message)),
      ]);
    }
    depId = dep.id;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return finish(e, run, "deployment", [finding("deployment", "deployment", "error", "deployment_refused", err.message)]);
  }
  await scopedDb(e.workspaceId).$transaction((tx) => moveEvaluation(tx, e, "deploy", { deploymentId: depId, startedAt: new Date(), lockedUntil: null, checks: run.checks as never }));
}

async function check(e: Evaluation, run: TRun, dep: Deployment): Promise<void> {
  const srf = await scopedDb(e.workspaceId).surface.findUnique({ where: { deploymentId: dep.id } });
  if (!srf || srf.status !== "active") {
    return finish(e, run, "surface", [finding("surface", "surface", "error", "surface_unreachable", `The deployment's surface is ${srf?.status ?? "missing"}, not active.`)], dep);
  }
  mark(run, "surface", "passed");

  const rev = await scopedDb(e.workspaceId).revision.findUniqueOrThrow({ where: { id: e.revisionId } });
  const smoke = await smokeRequests(e, rev, srf.id);
  if (smoke.findings.length) {
    mark(run, "smoke", "failed", { invocation_ids: smoke.invocationIds });
    return finish(e, run, "smoke", smoke.findings, dep, smoke.sessionId);
  }
  mark(run, "smoke", "passed", { invocation_ids: smoke.invocationIds });

  const state = dep.runtime as TRuntimeState | null;
  const r = await runnerFor(dep.runnerHost);
  const alive = state ? await r.isRunning(state) : false;
  const log = await r.runLog(dep.id, LOG_BYTES);
  const crash = CRASH.exec(log);
  if (!alive || crash) {
    const f = !alive
      ? finding("logs", "runtime", "error", "app_crashed", `The app is no longer running after the smoke requests. Last output: ${log.slice(-400) || "(none)"}`)
      : finding("logs", "runtime", "error", "log_crash", `The app's log shows a crash: ${log.slice(Math.max(0, crash!.index - 200), crash!.index + 200).trim()}`);
    return finish(e, run, "logs", [f], dep, smoke.sessionId);
  }
  mark(run, "logs", "passed");
  return finish(e, run, null, [], dep, smoke.sessionId, rev);
}

async function smokeRequests(e: Evaluation, rev: Revision, surfaceId: string): Promise<{ findings: TEvaluationFinding[]; invocationIds: string[]; sessionId: string | null }> {
  const caller = { userId: e.createdBy, correlationId: e.correlationId };
  const health = (rev.descriptor as unknown as TDescriptor).build_plan?.health.path ?? "/";
  const paths = [...new Set([health, "/"])];
  let sessionId: string | null = null;
  const invocationIds: string[] = [];
  const findings: TEvaluationFinding[] = [];
  try {
    sessionId = (await openSession(caller, surfaceId)).id;
    for (const path of paths) {
      const inv = await createInvocation(caller, sessionId, { kind: "http_request", method: "GET", path, body_evidence: null });
      invocationIds.push(inv.id);
      const x = inv.execution;
      if (inv.admission?.outcome !== "admitted" || !x) {
        findings.push(finding("smoke", "invocation", "error", "smoke_denied", `GET ${path} was not admitted (${inv.admission?.reason ?? "no admission"}): ${inv.admission?.message ?? ""}`.trim()));
      } else if (x.status === "timed_out") {
        findings.push(finding("smoke", "invocation", "error", "smoke_timeout", `GET ${path} did not answer within the invocation deadline.`));
      } else if (x.result.http_status === null) {
        findings.push(finding("smoke", "invocation", "error", "smoke_runtime_error", `GET ${path} got no answer: ${x.failure?.message ?? x.status}.`));
      } else if (x.result.http_status >= 500) {
        findings.push(finding("smoke", "invocation", "error", "smoke_server_error", `GET ${path} answered ${x.result.http_status}.`));
      } else if (path === health && x.result.http_status === 404) {
        findings.push(finding("smoke", "invocation", "error", "health_path_not_found", `GET ${path} (the health path) answered 404.`));
      }
    }
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    findings.push(finding("smoke", "invocation", "error", "smoke_denied", `The smoke session could not be opened: ${err.message}`));
  } finally {
    if (sessionId) await closeSession(caller, sessionId).catch(() => undefined);
  }
  return { findings, invocationIds, sessionId };
}

async function finish(
  e: Evaluation, run: TRun, failedCheck: TEvaluationCheckName | null, findings: TEvaluationFinding[],
  dep?: Deployment, sessionId: string | null = null, rev?: Revision,
): Promise<void> {
  if (failedCheck) mark(run, failedCheck, "failed");
  const data = {
    checks: run.checks as unknown as Prisma.InputJsonValue, findings: [...run.findings, ...findings] as unknown as Prisma.InputJsonValue,
    finishedAt: new Date(), lockedUntil: null, ...(sessionId ? { sessionId } : {}),
  };
  await scopedDb(e.workspaceId).$transaction(async (tx) => {
    const current = await tx.evaluation.findUniqueOrThrow({ where: { id: e.id } });
    if (!failedCheck && rev) {
      const version = await cutVersion(tx, current, { contractHash: rev.contractHash!, descriptorHash: rev.descriptorHash! });
      await moveEvaluation(tx, current, "pass", { ...data, verdict: "pass", versionId: version.id });
    } else {
      await moveEvaluation(tx, current, "fail", { ...data, verdict: "fail" });
    }
  });
  if (dep && dep.status === "active") {
    const now = await scopedDb(e.workspaceId).deployment.findUnique({ where: { id: dep.id } });
    if (now?.status === "active") await retire(now, "stop", "stopped", system).catch((err) => logger.error("evaluation.stop_failed", { deployment_id: dep.id, error: String(err) }));
  }
}
