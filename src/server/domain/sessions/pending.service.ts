import type { Invocation, PendingOperation } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import type { TCaller } from "./access.service";
import { readmit, toInvocation } from "./invocations.service";
import type { TAdmission, TInvocation, TPendingOperation } from "./sessions.contract";

/**
 * Pending operations: an invocation waiting for consent (pending_consent).
 * An owner or admin approves or denies it (audit pending.resolved, once:
 * a second resolution is a 409). Approval re-runs the admission with
 * consent given, so a later check can still deny it; an admitted invocation
 * runs at once. Denial makes it `denied` / `permission_denied`.
 */
export function toPending(p: PendingOperation, inv: Invocation | null): TPendingOperation {
  return {
    invocation: inv ? toInvocation(inv) : null,
    id: p.id,
    workspace_id: p.workspaceId,
    kind: "invocation_consent",
    subject_id: p.subjectId,
    status: p.status as TPendingOperation["status"],
    reason: p.reason,
    requested_by: p.requestedBy,
    resolved_by: p.resolvedBy,
    resolved_at: p.resolvedAt ? iso(p.resolvedAt) : null,
    note: p.note,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  };
}

export async function listPending(
  workspaceId: string,
  q: TListQuery & { status?: "pending" | "approved" | "denied" },
): Promise<TPage<TPendingOperation>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).pendingOperation.findMany({
    ...args,
    where: { ...args.where, ...(q.status ? { status: q.status } : {}) },
  });
  const invs = await scopedDb(workspaceId).invocation.findMany({ where: { id: { in: rows.map((r) => r.subjectId) } } });
  const byId = new Map(invs.map((i) => [i.id, i]));
  return toPage(rows, q, (r) => toPending(r, byId.get(r.subjectId) ?? null));
}

export async function resolvePending(
  caller: TCaller,
  workspaceId: string,
  pendingId: string,
  body: { decision: "approve" | "deny"; note?: string },
): Promise<{ pending_operation: TPendingOperation; invocation: TInvocation }> {
  const p = await scopedDb(workspaceId).pendingOperation.findUnique({ where: { id: pendingId } });
  if (!p) throw notFound(`Pending operation ${pendingId}`);
  const status = body.decision === "approve" ? "approved" : "denied";
  const { pending, inv } = await scopedDb(workspaceId).$transaction(async (tx) => {
    const now = new Date();
    const moved = await tx.pendingOperation.updateMany({
      where: { id: pendingId, status: "pending" },
      data: { status, resolvedBy: caller.userId, resolvedAt: now, note: body.note ?? null, updatedAt: now },
    });
    if (moved.count !== 1)
      throw new AppError("conflict", `Pending operation ${pendingId} is already ${p.status}`, {
        reason: "already_resolved",
      });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "pending.resolved",
      target: { kind: "pending_operation", id: pendingId },
      correlationId: caller.correlationId,
      details: { decision: body.decision, subject_id: p.subjectId, kind: p.kind },
    });
    let inv = await tx.invocation.findUniqueOrThrow({ where: { id: p.subjectId } });
    if (status === "denied") {
      const admission: TAdmission = {
        ...(inv.admission as TAdmission),
        outcome: "denied",
        reason: "permission_denied",
        message: `An owner or admin denied this request${body.note ? `: ${body.note}` : "."}`.slice(0, 512),
        decided_at: now.toISOString(),
      };
      inv = await tx.invocation.update({ where: { id: inv.id }, data: { admission: admission, updatedAt: now } });
      await emitEvent(tx, {
        workspaceId,
        type: "invocation.changed",
        correlationId: caller.correlationId,
        subject: inv.id,
        data: { invocation_id: inv.id, session_id: inv.sessionId, status: "denied", reason: "permission_denied" },
      });
    }
    return { pending: await tx.pendingOperation.findUniqueOrThrow({ where: { id: pendingId } }), inv };
  });
  const after = status === "approved" ? await readmit(inv, caller.correlationId) : inv;
  return { pending_operation: toPending(pending, after), invocation: toInvocation(after) };
}
