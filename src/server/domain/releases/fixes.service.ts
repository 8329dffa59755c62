import type { Fix, Prisma, Revision } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { getOwnedRevision } from "@/server/domain/source/revisions.service";
import type { TDescriptor, TFinding } from "@/server/domain/source/source.types";
import { generateAiFix } from "./ai-fix";
import { editedRevision, patchedRevision, ruleFiles } from "./fix-apply";
import { proposeFix, type TFileChange, type TFindingRef } from "./fix-rules";
import type { TEvaluationFinding, TFix } from "./releases.contract";
import { FIX, type TFixEvent, type TFixStatus } from "./releases.states";

type TCaller = { userId: string; correlationId: string };

export function toFix(f: Fix): TFix {
  return {
    id: f.id,
    workspace_id: f.workspaceId,
    product_id: f.productId,
    revision_id: f.revisionId,
    finding: f.finding as TFix["finding"],
    rule: f.rule as TFix["rule"],
    kind: f.kind as TFix["kind"],
    status: f.status as TFixStatus,
    summary: f.summary,
    diff: f.diff,
    descriptor_edits: (f.descriptorEdits ?? null) as TFix["descriptor_edits"],
    new_revision_id: f.newRevisionId,
    decision: (f.decision ?? null) as TFix["decision"],
    findings: f.findings as TFix["findings"],
    capability_invocation_id: f.capabilityInvocationId,
    created_by: f.createdBy,
    created_at: iso(f.createdAt),
    updated_at: iso(f.updatedAt),
  };
}

const invalid = (path: string, message: string, reason = "validation_failed") =>
  new AppError("validation_failed", message, { reason, errors: [{ path, message }] });

async function ownedRevisionOf(workspaceId: string, productId: string, revisionId: string) {
  const rev = await getOwnedRevision(workspaceId, revisionId);
  if (rev.productId !== productId) throw notFound(`Revision ${revisionId}`);
  return rev;
}

type TFindingFound = TFindingRef & { evaluation?: { id: string; status: string; findings: TEvaluationFinding[] } };

async function findingOf(
  rev: Awaited<ReturnType<typeof getOwnedRevision>>,
  body: { finding_id?: string; finding_code?: string },
): Promise<TFindingFound> {
  if ((body.finding_id === undefined) === (body.finding_code === undefined)) {
    throw invalid(
      "/finding_id",
      "give exactly one of finding_id (an evaluation finding) and finding_code (a detection finding or contract_rejected)",
    );
  }
  if (body.finding_id) {
    const evals = await scopedDb(rev.workspaceId).evaluation.findMany({
      where: { revisionId: rev.id },
      select: { id: true, status: true, findings: true },
    });
    for (const e of evals) {
      const findings = e.findings as TEvaluationFinding[];
      const f = findings.find((x) => x.id === body.finding_id);
      if (f)
        return {
          id: f.id,
          check: f.check,
          code: f.code,
          message: f.message,
          evaluation: { id: e.id, status: e.status, findings },
        };
    }
    throw invalid(
      "/finding_id",
      `No evaluation of revision ${rev.id} has a finding ${body.finding_id}`,
      "finding_not_found",
    );
  }
  if (body.finding_code === "contract_rejected" && rev.contractStatus === "rejected") {
    const why = rev.contractRejection as { reason?: string; message?: string };
    return {
      id: null,
      check: null,
      code: "contract_rejected",
      message: `${why.reason ?? "rejected"}: ${why.message ?? ""}`.trim(),
    };
  }
  const f = (rev.findings as TFinding[]).find((x) => x.code === body.finding_code);
  if (!f) throw invalid("/finding_code", `Revision ${rev.id} has no finding ${body.finding_code}`, "finding_not_found");
  return { id: null, check: null, code: f.code, message: f.message };
}

async function record(
  tx: Prisma.TransactionClient,
  f: Fix,
  caller: TCaller,
  from: string | null,
  event: TFixEvent,
  details: Record<string, unknown>,
) {
  await writeAudit(tx, {
    workspaceId: f.workspaceId,
    actor: { kind: "user", id: caller.userId },
    action: event === "propose" || event === "fail" ? "fix.requested" : "fix.decided",
    target: { kind: "fix", id: f.id },
    correlationId: caller.correlationId,
    details: {
      revision_id: f.revisionId,
      product_id: f.productId,
      rule: f.rule,
      kind: f.kind,
      from,
      to: f.status,
      ...details,
    },
  });
  await emitEvent(tx, {
    workspaceId: f.workspaceId,
    type: "fix.changed",
    correlationId: caller.correlationId,
    subject: f.id,
    data: { fix_id: f.id, revision_id: f.revisionId, from, to: f.status, event, new_revision_id: f.newRevisionId },
  });
}

/**
 * POST .../products/{prod}/revisions/{rev}/fixes: the finding is resolved
 * (an evaluation finding by id, or a detection finding / contract_rejected
 * by code), the deterministic rules read the frozen files, and the proposal
 * is stored (audit fix.requested). No rule: 422 no_fix_rule, nothing written.
 */
export async function requestFix(
  caller: TCaller,
  workspaceId: string,
  productId: string,
  revisionId: string,
  body: { finding_id?: string; finding_code?: string; generator?: "rules" | "ai" },
): Promise<TFix> {
  const rev = await ownedRevisionOf(workspaceId, productId, revisionId);
  if (body.generator === "ai" && body.finding_id === undefined) {
    throw invalid(
      "/finding_id",
      "an AI-generated fix is asked for a finding of a failed evaluation: give its finding_id",
    );
  }
  const { evaluation, ...finding } = await findingOf(rev, body);
  if (body.generator === "ai") return requestAiFix(caller, rev, finding, evaluation!);
  const proposal = proposeFix({
    finding,
    descriptor: rev.descriptor as unknown as TDescriptor | null,
    contractRejection: rev.contractRejection as { reason?: string } | null,
    files: await ruleFiles(rev),
  });
  if (!proposal) {
    throw invalid(
      body.finding_id ? "/finding_id" : "/finding_code",
      `No deterministic fix rule covers the finding ${finding.code} of revision ${rev.id}`,
      "no_fix_rule",
    );
  }
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const f = await tx.fix.create({
      data: {
        id: newId("fix"),
        workspaceId,
        productId,
        revisionId,
        finding,
        rule: proposal.rule,
        kind: proposal.kind,
        status: FIX.next(null, "propose"),
        summary: proposal.summary,
        diff: proposal.kind === "source_patch" ? proposal.diff : null,
        files: proposal.kind === "source_patch" ? proposal.files : [],
        descriptorEdits: proposal.kind === "descriptor_edit" ? (proposal.edits as Prisma.InputJsonValue) : undefined,
        correlationId: caller.correlationId,
        createdBy: caller.userId,
      },
    });
    await record(tx, f, caller, null, "propose", { finding });
    return f;
  });
  return toFix(row);
}

/**
 * The AI-generated fix of a failed evaluation's finding (ai-fix.ts): the
 * model's answer is stored as a `proposed` source patch only when it is a
 * unified diff that applies to the frozen snapshot; otherwise the fix is
 * `failed` with a finding saying why, and there is nothing to approve.
 * Never approved by itself: approval is the same step as a rule fix's.
 */
async function requestAiFix(
  caller: TCaller,
  rev: Revision,
  finding: TFindingRef,
  evaluation: NonNullable<TFindingFound["evaluation"]>,
): Promise<TFix> {
  if (evaluation.status !== "failed") {
    throw invalid(
      "/finding_id",
      `The evaluation ${evaluation.id} of finding ${finding.id} is ${evaluation.status}: an AI fix is asked for a failed evaluation`,
      "evaluation_not_failed",
    );
  }
  const id = newId("fix");
  const result = await generateAiFix({
    fixId: id,
    rev,
    finding,
    findings: evaluation.findings,
    correlationId: caller.correlationId,
  });
  const row = await scopedDb(rev.workspaceId).$transaction(async (tx) => {
    const f = await tx.fix.create({
      data: {
        id,
        workspaceId: rev.workspaceId,
        productId: rev.productId,
        revisionId: rev.id,
        finding,
        rule: "ai_generated",
        kind: "source_patch",
        status: FIX.next(null, result.ok ? "propose" : "fail"),
        summary: result.ok ? result.summary : `No proposal: ${result.finding.message}`,
        diff: result.ok ? result.diff : null,
        files: result.ok ? result.changes : [],
        findings: result.ok ? [] : [result.finding],
        capabilityInvocationId: result.invocationId,
        correlationId: caller.correlationId,
        createdBy: caller.userId,
      },
    });
    await record(tx, f, caller, null, result.ok ? "propose" : "fail", {
      finding,
      capability_invocation_id: result.invocationId,
      ...(result.ok ? {} : { finding_code: result.finding.code }),
    });
    return f;
  });
  return toFix(row);
}

async function getOwnedFix(workspaceId: string, productId: string, revisionId: string, id: string): Promise<Fix> {
  const f = await scopedDb(workspaceId).fix.findUnique({ where: { id } });
  if (!f || f.productId !== productId || f.revisionId !== revisionId) throw notFound(`Fix ${id}`);
  return f;
}

export async function getFix(workspaceId: string, productId: string, revisionId: string, id: string): Promise<TFix> {
  return toFix(await getOwnedFix(workspaceId, productId, revisionId, id));
}

export async function listFixes(
  workspaceId: string,
  productId: string,
  revisionId: string,
  q: TListQuery,
): Promise<TPage<TFix>> {
  await ownedRevisionOf(workspaceId, productId, revisionId);
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).fix.findMany({ ...args, where: { ...args.where, revisionId } });
  return toPage(rows, q, toFix);
}

const decided = (f: Fix) => new AppError("conflict", `Fix ${f.id} is already ${f.status}`, { reason: "fix_decided" });

async function decide(
  tx: Prisma.TransactionClient,
  f: Fix,
  event: "approve" | "reject",
  data: Prisma.FixUncheckedUpdateManyInput,
): Promise<Fix> {
  const moved = await tx.fix.updateMany({
    where: { id: f.id, status: "proposed" },
    data: { ...data, status: FIX.next(f.status as TFixStatus, event), updatedAt: new Date() },
  });
  if (moved.count !== 1) throw decided(f);
  return tx.fix.findUniqueOrThrow({ where: { id: f.id } });
}

/**
 * :approve applies the fix: a new revision (its own frozen freeze, ref
 * `fix:<fix id>`, descriptor detected: a person confirms it) linked from the
 * fix; audit fix.decided. The original revision is untouched.
 */
export async function approveFix(
  caller: TCaller,
  workspaceId: string,
  productId: string,
  revisionId: string,
  id: string,
  note: string | null,
): Promise<TFix> {
  const f = await getOwnedFix(workspaceId, productId, revisionId, id);
  if (f.status !== "proposed") throw decided(f);
  const rev = await getOwnedRevision(workspaceId, revisionId);
  const product = await scopedDb(workspaceId).product.findUniqueOrThrow({ where: { id: productId } });
  const cols =
    f.kind === "source_patch"
      ? await patchedRevision(rev, f.files as unknown as TFileChange[])
      : editedRevision(rev, f.descriptorEdits as Record<string, unknown>);
  const snapshot = cols.snapshot as { uri: string; sha256: string; size_bytes: number };
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const newRevisionId = newId("rev");
    const freezeId = newId("frz");
    const now = new Date();
    const out = await decide(tx, f, "approve", {
      newRevisionId,
      decision: { decision: "approve", note, decided_by: caller.userId, decided_at: iso(now) },
    });
    await tx.sourceFreeze.create({
      data: {
        id: freezeId,
        workspaceId,
        productId,
        revisionId: newRevisionId,
        status: "frozen",
        repoUrl: product.repoUrl,
        ref: `fix:${f.id}`,
        snapshotUri: snapshot.uri,
        snapshotSha256: snapshot.sha256,
        snapshotSize: BigInt(snapshot.size_bytes),
        correlationId: caller.correlationId,
        createdBy: caller.userId,
        finishedAt: now,
      },
    });
    await tx.revision.create({
      data: {
        id: newRevisionId,
        workspaceId,
        productId,
        inputRevisionId: rev.inputRevisionId,
        freezeId,
        descriptorStatus: "detected",
        ...cols,
      },
    });
    await record(tx, out, caller, "proposed", "approve", { decision: "approve", note, new_revision_id: newRevisionId });
    return out;
  });
  return toFix(row);
}

export async function rejectFix(
  caller: TCaller,
  workspaceId: string,
  productId: string,
  revisionId: string,
  id: string,
  note: string,
): Promise<TFix> {
  const f = await getOwnedFix(workspaceId, productId, revisionId, id);
  if (f.status !== "proposed") throw decided(f);
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const out = await decide(tx, f, "reject", {
      decision: { decision: "reject", note, decided_by: caller.userId, decided_at: iso(new Date()) },
    });
    await record(tx, out, caller, "proposed", "reject", { decision: "reject", note });
    return out;
  });
  return toFix(row);
}
