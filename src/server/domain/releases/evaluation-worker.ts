import type { Deployment, Evaluation, Prisma, Revision } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import type { TRuntimeState } from "@/server/runtime";
import { runnerFor } from "@/server/domain/runners/runner-hosts.service";
import { requestDeployment } from "@/server/domain/deployments/deployments.service";
import { retire } from "@/server/domain/deployments/lifecycle";
import type { TFinding } from "@/server/domain/source/source.types";
import type { TEvaluationCheck, TEvaluationCheckName, TEvaluationFinding } from "./releases.contract";
import { hungStep } from "./evaluation-deadline";
import { moveEvaluation } from "./evaluations.service";
import { cutVersion } from "./versions.service";
import { finding, smokeRequests } from "./smoke-requests";

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
 * Evaluations of one revision queue behind each other (they share the
 * revision's slot): a queued one starts only when it is the revision's oldest
 * unfinished one, so they start and finish in creation order and the
 * qualification (the latest finished) is well defined. Each run has an
 * overall deadline from the moment it leaves the queue
 * (CAPSTAN_EVALUATION_DEADLINE_SECONDS); its lease never outlives it, so
 * a run hung anywhere is picked up again and ended `failed` with a finding
 * naming the check that hung.
 *
 * Tenancy: the claim and the first read of a claimed evaluation by id are
 * platform-scoped (every workspace's queue); everything after that runs on
 * scopedDb(e.workspaceId).
 */
const LEASE_SECONDS = 300;
/** One preview slot per revision: evaluations of other revisions of the product never supersede each other's deployment. */
const slotOf = (revisionId: string) => `eval-${revisionId.slice(4)}`;
const LOG_BYTES = 256 * 1024;
const CRASH =
  /Uncaught|UnhandledPromiseRejection|unhandledRejection|FATAL ERROR|Segmentation fault|^\s+at .+:\d+:\d+\)?$/m;
const system = { kind: "system" as const, id: null };

/** `now` is the clock the deadline is judged by (tests pass a later one instead of sleeping). */
export async function processEvaluations(limit = 4, now: Date = new Date()): Promise<number> {
  const deadline = env().CAPSTAN_EVALUATION_DEADLINE_SECONDS;
  // platform-scoped: the claim scans every workspace's evaluations. A queued run starts only when no other run of its
  // revision is deploying or checking and none queued before it (creation order: (created_at, id)).
  const claimed = await db().$queryRaw<{ id: string }[]>`
    UPDATE evaluations
       SET locked_until = LEAST(now() + make_interval(secs => ${LEASE_SECONDS}), COALESCE(started_at, now()) + make_interval(secs => ${deadline + 1})),
           started_at = COALESCE(started_at, now()), attempts = attempts + 1, updated_at = now()
     WHERE id IN (
       SELECT e.id FROM evaluations e
        WHERE e.status IN ('queued', 'deploying', 'checking') AND (e.locked_until IS NULL OR e.locked_until < now())
          AND (e.status <> 'queued' OR NOT EXISTS (
                SELECT 1 FROM evaluations o
                 WHERE o.revision_id = e.revision_id AND o.id <> e.id
                   AND (o.status IN ('deploying', 'checking') OR (o.status = 'queued' AND (o.created_at, o.id) < (e.created_at, e.id)))))
        ORDER BY e.created_at, e.id LIMIT ${limit} FOR UPDATE OF e SKIP LOCKED)
    RETURNING id`;
  for (const { id } of claimed) {
    await advance(id, now, deadline).catch((err) =>
      logger.error("evaluation.tick_failed", { evaluation_id: id, error: String((err as Error)?.stack ?? err) }),
    );
  }
  return claimed.length;
}

type TRun = { checks: TEvaluationCheck[]; findings: TEvaluationFinding[] };

function mark(
  run: TRun,
  name: TEvaluationCheckName,
  status: "passed" | "failed",
  extra: Partial<TEvaluationCheck> = {},
): void {
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

async function advance(id: string, now: Date, deadlineSeconds: number): Promise<void> {
  // platform-scoped: the claimed row is read by id to learn its workspace; the rest is scoped to it.
  const e = await db().evaluation.findUniqueOrThrow({ where: { id } });
  const sdb = scopedDb(e.workspaceId);
  const run: TRun = { checks: e.checks as TEvaluationCheck[], findings: e.findings as TEvaluationFinding[] };
  const dep = e.deploymentId ? await sdb.deployment.findUnique({ where: { id: e.deploymentId } }) : null;
  if (e.startedAt && now.getTime() - e.startedAt.getTime() >= deadlineSeconds * 1000) {
    const hung = hungStep(e, run.checks, dep, deadlineSeconds);
    return finish(
      e,
      run,
      hung.check,
      [finding(hung.check, "evaluation", "error", "evaluation_deadline", hung.message)],
      dep ?? undefined,
      null,
      undefined,
      { stopUnfinished: true },
    );
  }
  if (e.status === "queued") return start(e, run);
  if (!dep)
    return finish(e, run, "deployment", [
      finding("deployment", "deployment", "error", "deployment_failed", "The evaluation's deployment is gone."),
    ]);
  if (e.status === "deploying") {
    if (dep.status === "planned" || dep.status === "applying") {
      await sdb.evaluation.update({ where: { id }, data: { lockedUntil: null } });
      return;
    }
    if (dep.status !== "active") {
      const own = (dep.findings as TFinding[])
        .filter((f) => f.severity === "error")
        .map((f) => finding("deployment", f.kind, f.severity, f.code, f.message));
      return finish(e, run, "deployment", [
        finding(
          "deployment",
          "deployment",
          "error",
          "deployment_failed",
          `The preview deployment ${dep.id} ended ${dep.status}${dep.reasonCode ? ` (${dep.reasonCode})` : ""} instead of becoming active.`,
        ),
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
    return finish(e, run, "descriptor", [
      finding(
        "descriptor",
        "descriptor",
        "error",
        "descriptor_unconfirmed",
        `The runtime descriptor is ${rev.descriptorStatus}, not confirmed: confirm it (descriptor:confirm) before evaluating.`,
      ),
    ]);
  }
  mark(run, "descriptor", "passed");
  if (rev.contractStatus !== "ready") {
    const why = (rev.contractRejection as { reason?: string; message?: string } | null) ?? {};
    return finish(e, run, "contract", [
      rev.contractStatus === "rejected"
        ? finding(
            "contract",
            "contract",
            "error",
            "contract_rejected",
            `The capability contract was rejected (${why.reason ?? "rejected"}${why.message ? `: ${why.message}` : ""}).`,
          )
        : finding(
            "contract",
            "contract",
            "error",
            "contract_pending",
            `The capability contract is ${rev.contractStatus}, not ready.`,
          ),
    ]);
  }
  mark(run, "contract", "passed");
  let depId: string;
  try {
    const dep = await requestDeployment(
      { userId: e.createdBy, correlationId: e.correlationId },
      e.workspaceId,
      e.revisionId,
      { environment_type: "preview", slot: slotOf(e.revisionId) },
    );
    if (dep.status === "blocked") {
      return finish(e, run, "deployment", [
        finding(
          "deployment",
          "deployment",
          "error",
          "deployment_blocked",
          `The preview deployment ${dep.id} was blocked (${dep.reason_code ?? "blocked"}).`,
        ),
        ...dep.findings
          .filter((f) => f.severity === "error")
          .map((f) => finding("deployment", f.kind, f.severity, f.code, f.message)),
      ]);
    }
    depId = dep.id;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return finish(e, run, "deployment", [
      finding("deployment", "deployment", "error", "deployment_refused", err.message),
    ]);
  }
  await scopedDb(e.workspaceId).$transaction((tx) =>
    moveEvaluation(tx, e, "deploy", { deploymentId: depId, lockedUntil: null, checks: run.checks as never }),
  );
}

async function check(e: Evaluation, run: TRun, dep: Deployment): Promise<void> {
  const srf = await scopedDb(e.workspaceId).surface.findUnique({ where: { deploymentId: dep.id } });
  if (!srf || srf.status !== "active") {
    return finish(
      e,
      run,
      "surface",
      [
        finding(
          "surface",
          "surface",
          "error",
          "surface_unreachable",
          `The deployment's surface is ${srf?.status ?? "missing"}, not active.`,
        ),
      ],
      dep,
    );
  }
  mark(run, "surface", "passed");
  await progress(e, run);

  const rev = await scopedDb(e.workspaceId).revision.findUniqueOrThrow({ where: { id: e.revisionId } });
  const smoke = await smokeRequests(e, rev, srf.id);
  if (smoke.findings.length) {
    mark(run, "smoke", "failed", { invocation_ids: smoke.invocationIds });
    return finish(e, run, "smoke", smoke.findings, dep, smoke.sessionId);
  }
  mark(run, "smoke", "passed", { invocation_ids: smoke.invocationIds });
  await progress(e, run);

  const state = dep.runtime as TRuntimeState | null;
  const r = await runnerFor(dep.runnerHost);
  const alive = state ? await r.isRunning(state) : false;
  const log = await r.runLog(dep.id, LOG_BYTES);
  const crash = CRASH.exec(log);
  if (!alive || crash) {
    const f = !alive
      ? finding(
          "logs",
          "runtime",
          "error",
          "app_crashed",
          `The app is no longer running after the smoke requests. Last output: ${log.slice(-400) || "(none)"}`,
        )
      : finding(
          "logs",
          "runtime",
          "error",
          "log_crash",
          `The app's log shows a crash: ${log.slice(Math.max(0, crash!.index - 200), crash!.index + 200).trim()}`,
        );
    return finish(e, run, "logs", [f], dep, smoke.sessionId);
  }
  mark(run, "logs", "passed");
  return finish(e, run, null, [], dep, smoke.sessionId, rev);
}

async function progress(e: Evaluation, run: TRun): Promise<void> {
  await scopedDb(e.workspaceId).evaluation.updateMany({
    where: { id: e.id, status: "checking" },
    data: { checks: run.checks as never, updatedAt: new Date() },
  });
}

async function finish(
  e: Evaluation,
  run: TRun,
  failedCheck: TEvaluationCheckName | null,
  findings: TEvaluationFinding[],
  dep?: Deployment,
  sessionId: string | null = null,
  rev?: Revision,
  opts: { stopUnfinished?: boolean } = {},
): Promise<void> {
  if (failedCheck) mark(run, failedCheck, "failed");
  const data = {
    checks: run.checks as unknown as Prisma.InputJsonValue,
    findings: [...run.findings, ...findings] as unknown as Prisma.InputJsonValue,
    finishedAt: new Date(),
    lockedUntil: null,
    ...(sessionId ? { sessionId } : {}),
  };
  await scopedDb(e.workspaceId).$transaction(async (tx) => {
    const current = await tx.evaluation.findUniqueOrThrow({ where: { id: e.id } });
    if (!failedCheck && rev) {
      const version = await cutVersion(tx, current, {
        contractHash: rev.contractHash!,
        descriptorHash: rev.descriptorHash!,
      });
      await moveEvaluation(tx, current, "pass", { ...data, verdict: "pass", versionId: version.id });
    } else {
      await moveEvaluation(tx, current, "fail", { ...data, verdict: "fail" });
    }
  });
  // An evaluation holds no resources afterwards (one ended at its deadline also stops a deployment still starting).
  const stoppable = opts.stopUnfinished ? ["planned", "applying", "active"] : ["active"];
  if (dep && stoppable.includes(dep.status)) {
    const now = await scopedDb(e.workspaceId).deployment.findUnique({ where: { id: dep.id } });
    if (now && stoppable.includes(now.status))
      await retire(now, "stop", "stopped", system).catch((err) =>
        logger.error("evaluation.stop_failed", { deployment_id: dep.id, error: String(err) }),
      );
  }
}
