import type { Invocation, Prisma } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { settleReservation } from "@/server/domain/usage/reservations.service";
import { admit, type TDecision } from "./admission";
import { executeInvocation } from "./execution";
import type { TAdmission, TExecution, TInvocation, TInvocationInput } from "./sessions.contract";
import type { TCaller } from "./access.service";
import { sessionFor } from "./sessions.service";

/**
 * POST /v1/sessions/{ses}/invocations: validates the request and its
 * evidence (422 and nothing written when an evidence reference is not an
 * upload of this workspace with that sha256 and size), decides admission
 * (admission.ts), writes the invocation with the next gap-free sequence of
 * its session (allocated in the same transaction as the row), and runs an
 * admitted invocation at once (execution.ts), settling the runtime budget
 * to the measured duration. A pending one creates a pending operation.
 */
export function toInvocation(i: Invocation): TInvocation {
  return {
    id: i.id, workspace_id: i.workspaceId, product_id: i.productId, session_id: i.sessionId, surface_id: i.surfaceId,
    account_id: i.accountId, access_id: i.accessId, sequence: i.sequence, input: i.input as TInvocationInput,
    admission: (i.admission ?? null) as TAdmission | null, execution: (i.execution ?? null) as TExecution | null,
    created_at: iso(i.createdAt), updated_at: iso(i.updatedAt),
  };
}

async function checkEvidence(workspaceId: string, input: TInvocationInput): Promise<void> {
  for (const field of ["body_evidence", "query_evidence"] as const) {
    const ev = input[field];
    if (!ev) continue;
    const upload = await db().upload.findFirst({ where: { workspaceId, sha256: ev.sha256, uri: ev.uri } });
    if (!upload) {
      throw new AppError("validation_failed", `${field} does not reference an upload of this workspace (POST /v1/workspaces/{ws}/uploads first)`, {
        reason: "evidence_not_found", errors: [{ path: `/${field}`, message: "no upload of this workspace has this uri and sha256" }],
      });
    }
    if (Number(upload.sizeBytes) !== ev.size_bytes) {
      throw new AppError("validation_failed", `${field}.size_bytes is ${ev.size_bytes} but the upload has ${upload.sizeBytes} bytes`, {
        reason: "evidence_mismatch", errors: [{ path: `/${field}/size_bytes`, message: `the upload has ${upload.sizeBytes} bytes` }],
      });
    }
  }
}

function admissionOf(inv: { id: string; sessionId: string; workspaceId: string; productId: string; surfaceId: string; accountId: string | null }, d: TDecision, extra: { executionId: string | null; pendingId: string | null }): TAdmission {
  return {
    invocation_id: inv.id, session_id: inv.sessionId, workspace_id: inv.workspaceId, product_id: inv.productId, surface_id: inv.surfaceId,
    account_id: inv.accountId, outcome: d.outcome, reason: d.reason, execution_id: extra.executionId, pending_operation_id: extra.pendingId,
    checks: d.checks, message: d.message, decided_at: new Date().toISOString(),
  };
}

async function loadContext(sessionId: string) {
  const session = await db().session.findUniqueOrThrow({ where: { id: sessionId } });
  const access = await db().access.findUniqueOrThrow({ where: { id: session.accessId } });
  const surface = await db().surface.findUniqueOrThrow({ where: { id: session.surfaceId } });
  const deployment = await db().deployment.findUniqueOrThrow({ where: { id: surface.deploymentId } });
  return { session, access, surface, deployment };
}

/** Runs an admitted invocation, records its execution and settles the runtime budget. */
async function run(inv: Invocation, d: TDecision, correlationId: string): Promise<Invocation> {
  const { session, deployment } = await loadContext(inv.sessionId);
  let execution: TExecution | null = null;
  try {
    execution = await executeInvocation(inv, session, deployment, inv.input as TInvocationInput);
  } finally {
    // Charged to what was used (the reservation held the deadline); a crash leaves it to the sweeper.
    if (d.reservation) await settleReservation(d.reservation.id, execution?.usage.duration_ms ?? 0);
  }
  return db().$transaction(async (tx) => {
    const admission = { ...(inv.admission as TAdmission), execution_id: execution!.execution_id };
    const row = await tx.invocation.update({
      where: { id: inv.id },
      data: { admission: admission as Prisma.InputJsonValue, execution: execution as unknown as Prisma.InputJsonValue, updatedAt: new Date() },
    });
    await emitEvent(tx, { workspaceId: inv.workspaceId, type: "invocation.changed", correlationId, subject: inv.id, data: { invocation_id: inv.id, session_id: inv.sessionId, status: "executed", execution_status: execution!.status, http_status: execution!.result.http_status } });
    return row;
  });
}

export async function createInvocation(caller: TCaller, sessionId: string, input: TInvocationInput): Promise<TInvocation> {
  const { session, role } = await sessionFor(caller, sessionId, { othersNeed: "viewer" });
  if (session.state !== "active") throw new AppError("conflict", `Session ${sessionId} is closed (${session.closedReason ?? "closed"}); open a new session`, { reason: "session_closed" });
  await checkEvidence(session.workspaceId, input);
  const ctx = await loadContext(sessionId);
  const decision = await admit({ callerId: caller.userId, role, method: input.method, ...ctx });

  let inv: Invocation;
  try {
    inv = await db().$transaction(async (tx) => {
      const seq = await tx.$queryRaw<{ seq: number }[]>`
        UPDATE sessions SET next_sequence = next_sequence + 1, updated_at = now() WHERE id = ${sessionId} AND state = 'active' RETURNING next_sequence - 1 AS seq`;
      if (!seq.length) throw new AppError("conflict", `Session ${sessionId} was closed meanwhile; open a new session`, { reason: "session_closed" });
      const id = newId("inv");
      const pendingId = decision.outcome === "pending" ? newId("pend") : null;
      const base = { id, sessionId, workspaceId: session.workspaceId, productId: session.productId, surfaceId: session.surfaceId, accountId: session.accountId };
      const row = await tx.invocation.create({
        data: {
          ...base, accessId: session.accessId, sequence: Number(seq[0]!.seq), input: input as unknown as Prisma.InputJsonValue,
          admission: admissionOf(base, decision, { executionId: null, pendingId }) as unknown as Prisma.InputJsonValue, correlationId: caller.correlationId,
        },
      });
      if (pendingId) {
        await tx.pendingOperation.create({ data: { id: pendingId, workspaceId: session.workspaceId, kind: "invocation_consent", subjectId: id, reason: decision.reason, requestedBy: caller.userId } });
      }
      await emitEvent(tx, { workspaceId: session.workspaceId, type: "invocation.changed", correlationId: caller.correlationId, subject: id, data: { invocation_id: id, session_id: sessionId, status: decision.outcome, reason: decision.reason } });
      return row;
    });
  } catch (err) {
    if (decision.reservation) await settleReservation(decision.reservation.id, 0);
    throw err;
  }
  if (decision.outcome === "admitted") inv = await run(inv, decision, caller.correlationId);
  return toInvocation(inv);
}

export async function getInvocation(caller: TCaller, sessionId: string, invocationId: string): Promise<TInvocation> {
  await sessionFor(caller, sessionId, { othersNeed: "viewer" });
  const inv = await db().invocation.findUnique({ where: { id: invocationId } });
  if (!inv || inv.sessionId !== sessionId) throw notFound(`Invocation ${invocationId}`);
  return toInvocation(inv);
}

export async function listInvocations(caller: TCaller, sessionId: string, q: TListQuery): Promise<TPage<TInvocation>> {
  await sessionFor(caller, sessionId, { othersNeed: "viewer" });
  const args = keysetArgs(q);
  const rows = await db().invocation.findMany({ ...args, where: { ...args.where, sessionId } });
  return toPage(rows, q, toInvocation);
}

/** Re-decides a pending invocation after an owner/admin approved it, and runs it when admitted. */
export async function readmit(inv: Invocation, correlationId: string): Promise<Invocation> {
  const ctx = await loadContext(inv.sessionId);
  const role = (await db().membership.findUnique({ where: { workspaceId_userId: { workspaceId: inv.workspaceId, userId: inv.accountId ?? "" } }, select: { role: true } }))?.role ?? null;
  const decision = await admit({ callerId: inv.accountId ?? "", role: role as never, method: (inv.input as TInvocationInput).method, ...ctx, consented: true });
  const prev = inv.admission as TAdmission;
  const admission = admissionOf(inv, decision, { executionId: null, pendingId: prev.pending_operation_id });
  const row = await db().invocation.update({ where: { id: inv.id }, data: { admission: admission as unknown as Prisma.InputJsonValue, updatedAt: new Date() } });
  return decision.outcome === "admitted" ? run(row, decision, correlationId) : row;
}
