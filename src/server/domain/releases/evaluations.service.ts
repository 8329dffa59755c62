import { Prisma, type Evaluation } from "@/generated/prisma/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { getOwnedRevision } from "@/server/domain/source/revisions.service";
import {
  EVALUATION_CHECKS,
  type TEvaluation,
  type TEvaluationCheck,
  type TEvaluationFinding,
} from "./releases.contract";
import { EVALUATION, type TEvaluationEvent, type TEvaluationStatus } from "./releases.states";

type TCaller = { userId: string; correlationId: string };

export function toEvaluation(e: Evaluation): TEvaluation {
  return {
    id: e.id,
    workspace_id: e.workspaceId,
    product_id: e.productId,
    revision_id: e.revisionId,
    request_key: e.requestKey,
    status: e.status as TEvaluationStatus,
    verdict: (e.verdict ?? null) as TEvaluation["verdict"],
    checks: e.checks as TEvaluationCheck[],
    findings: e.findings as TEvaluationFinding[],
    deployment_id: e.deploymentId,
    session_id: e.sessionId,
    version_id: e.versionId,
    created_by: e.createdBy,
    started_at: e.startedAt ? iso(e.startedAt) : null,
    finished_at: e.finishedAt ? iso(e.finishedAt) : null,
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
  };
}

/**
 * POST /v1/workspaces/{ws}/revisions/{rev}/evaluations: queues a run (the
 * evaluation worker does the work). Idempotent per (revision, request_key):
 * the same key answers the existing evaluation; no key means a new run.
 */
export async function requestEvaluation(
  caller: TCaller,
  workspaceId: string,
  revisionId: string,
  body: { request_key?: string },
): Promise<TEvaluation> {
  const rev = await getOwnedRevision(workspaceId, revisionId);
  const requestKey = body.request_key ?? newId("evt").slice(4);
  const existing = await scopedDb(workspaceId).evaluation.findUnique({
    where: { revisionId_requestKey: { revisionId, requestKey } },
  });
  if (existing) return toEvaluation(existing);
  const checks: TEvaluationCheck[] = EVALUATION_CHECKS.map((name) => ({ name, status: "pending", finished_at: null }));
  try {
    const row = await scopedDb(workspaceId).$transaction(async (tx) => {
      const e = await tx.evaluation.create({
        data: {
          id: newId("qual"),
          workspaceId,
          productId: rev.productId,
          revisionId,
          requestKey,
          status: EVALUATION.next(null, "create"),
          checks: checks,
          correlationId: caller.correlationId,
          createdBy: caller.userId,
        },
      });
      await emitChanged(tx, e, null, "create", caller.correlationId);
      return e;
    });
    return toEvaluation(row);
  } catch (err) {
    // Two requests with one key at once: the loser answers the winner's evaluation.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") {
      return toEvaluation(
        await scopedDb(workspaceId).evaluation.findUniqueOrThrow({
          where: { revisionId_requestKey: { revisionId, requestKey } },
        }),
      );
    }
    throw err;
  }
}

async function emitChanged(
  tx: Prisma.TransactionClient,
  e: Evaluation,
  from: string | null,
  event: TEvaluationEvent,
  correlationId: string,
): Promise<void> {
  await emitEvent(tx, {
    workspaceId: e.workspaceId,
    type: "evaluation.changed",
    correlationId,
    subject: e.id,
    data: {
      evaluation_id: e.id,
      revision_id: e.revisionId,
      product_id: e.productId,
      from,
      to: e.status,
      event,
      verdict: e.verdict,
      version_id: e.versionId,
    },
  });
}

/** The only writer of an evaluation's status: compare-and-set plus its event, in the caller's transaction. */
export async function moveEvaluation(
  tx: Prisma.TransactionClient,
  e: Evaluation,
  event: TEvaluationEvent,
  data: Prisma.EvaluationUncheckedUpdateManyInput = {},
): Promise<Evaluation> {
  const from = e.status as TEvaluationStatus;
  const to = EVALUATION.next(from, event);
  const moved = await tx.evaluation.updateMany({
    where: { id: e.id, status: from },
    data: { ...data, status: to, updatedAt: new Date() },
  });
  if (moved.count !== 1)
    throw new AppError("conflict", `The evaluation ${e.id} changed concurrently; read it again`, {
      reason: "concurrent_change",
    });
  const row = await tx.evaluation.findUniqueOrThrow({ where: { id: e.id } });
  await emitChanged(tx, row, from, event, e.correlationId);
  return row;
}

export async function getEvaluation(workspaceId: string, id: string): Promise<TEvaluation> {
  const e = await scopedDb(workspaceId).evaluation.findUnique({ where: { id } });
  if (!e) throw notFound(`Evaluation ${id}`);
  return toEvaluation(e);
}

export async function listEvaluations(
  workspaceId: string,
  revisionId: string,
  q: TListQuery,
): Promise<TPage<TEvaluation>> {
  await getOwnedRevision(workspaceId, revisionId);
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).evaluation.findMany({ ...args, where: { ...args.where, revisionId } });
  return toPage(rows, q, toEvaluation);
}
