import {
  Prisma,
  type Access,
  type Deployment,
  type Invocation,
  type Session,
  type Surface,
} from "@/generated/prisma/client";
import { preparedQuery } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { EVENT_TYPES } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { finishTicket, settleTicket } from "@/server/domain/usage/leases.service";
import type { TEvidenceGrant } from "@/server/domain/source/evidence.service";
import { invocationContext } from "./invocation-context";
import { recordInvocation } from "./invocation-record";
import type { InvocationTiming } from "./invocation-timing";
import { admit, type TDecision } from "./admission";
import { executeInvocation, prepareExecution, type TPrepared } from "./execution";
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
    id: i.id,
    workspace_id: i.workspaceId,
    product_id: i.productId,
    session_id: i.sessionId,
    surface_id: i.surfaceId,
    account_id: i.accountId,
    access_id: i.accessId,
    sequence: i.sequence,
    input: i.input as TInvocationInput,
    admission: (i.admission ?? null) as TAdmission | null,
    execution: (i.execution ?? null) as TExecution | null,
    created_at: iso(i.createdAt),
    updated_at: iso(i.updatedAt),
  };
}

async function checkEvidence(workspaceId: string, input: TInvocationInput): Promise<void> {
  for (const field of ["body_evidence", "query_evidence"] as const) {
    const ev = input[field];
    if (!ev) continue;
    const upload = await scopedDb(workspaceId).upload.findFirst({ where: { sha256: ev.sha256, uri: ev.uri } });
    if (!upload) {
      throw new AppError(
        "validation_failed",
        `${field} does not reference an upload of this workspace (POST /v1/workspaces/{ws}/uploads first)`,
        {
          reason: "evidence_not_found",
          errors: [{ path: `/${field}`, message: "no upload of this workspace has this uri and sha256" }],
        },
      );
    }
    if (Number(upload.sizeBytes) !== ev.size_bytes) {
      throw new AppError(
        "validation_failed",
        `${field}.size_bytes is ${ev.size_bytes} but the upload has ${upload.sizeBytes} bytes`,
        {
          reason: "evidence_mismatch",
          errors: [{ path: `/${field}/size_bytes`, message: `the upload has ${upload.sizeBytes} bytes` }],
        },
      );
    }
  }
}

function admissionOf(
  inv: {
    id: string;
    sessionId: string;
    workspaceId: string;
    productId: string;
    surfaceId: string;
    accountId: string | null;
  },
  d: TDecision,
  extra: { executionId: string | null; pendingId: string | null },
): TAdmission {
  return {
    invocation_id: inv.id,
    session_id: inv.sessionId,
    workspace_id: inv.workspaceId,
    product_id: inv.productId,
    surface_id: inv.surfaceId,
    account_id: inv.accountId,
    outcome: d.outcome,
    reason: d.reason,
    execution_id: extra.executionId,
    pending_operation_id: extra.pendingId,
    checks: d.checks,
    message: d.message,
    decided_at: new Date().toISOString(),
  };
}

type TContext = {
  session: Session;
  access: Access;
  surface: Surface;
  deployment: Deployment;
  release?: { audience: unknown } | null;
};

async function loadContext(session: Session): Promise<TContext> {
  const [access, surfaceWithDeployment] = await Promise.all([
    scopedDb(session.workspaceId).access.findUniqueOrThrow({ where: { id: session.accessId } }),
    scopedDb(session.workspaceId).surface.findUniqueOrThrow({
      where: { id: session.surfaceId },
      include: { deployment: true },
    }),
  ]);
  const { deployment, ...surface } = surfaceWithDeployment;
  return { session, access, surface, deployment };
}

/**
 * Runs an admitted invocation, then records its execution, charge, evidence
 * grants and event in one group-committed statement (invocation-record.ts).
 */
async function run(
  inv: Invocation,
  d: TDecision,
  correlationId: string,
  ctx: TContext,
  timing?: InvocationTiming,
  preparing?: Promise<TPrepared>,
): Promise<Invocation> {
  const { session, deployment } = ctx;
  let execution: TExecution;
  const grants: TEvidenceGrant[] = [];
  try {
    const input = inv.input as TInvocationInput;
    execution = await executeInvocation(inv, session, deployment, input, grants, timing, preparing);
  } catch (err) {
    // Not executed (an unexpected error, not a crash): the reservation goes back unused.
    if (d.ticket) {
      const t = d.ticket;
      await settleTicket(t, 0, null, null).catch(() => undefined);
      finishTicket(t);
    }
    throw err;
  }
  timing?.mark("execution");
  const admission = { ...(inv.admission as TAdmission), execution_id: execution.execution_id };
  try {
    // Charged what was used (the reservation held the deadline), in the statement that records the execution:
    // a crash before it leaves the draw in the journal (or the reservation) for recovery to charge once.
    const updatedAt = await recordInvocation({
      id: inv.id,
      workspaceId: inv.workspaceId,
      correlationId,
      admission,
      execution,
      ticket: d.ticket,
      usedMs: execution.usage.duration_ms,
      grants,
      event: {
        invocation_id: inv.id,
        session_id: inv.sessionId,
        status: "executed",
        execution_status: execution.status,
        http_status: execution.result.http_status,
      },
    });
    timing?.mark("record");
    return {
      ...inv,
      admission: admission as unknown as Prisma.JsonValue,
      execution: execution as unknown as Prisma.JsonValue,
      updatedAt: updatedAt ?? new Date(),
    };
  } finally {
    finishTicket(d.ticket);
  }
}

export async function createInvocation(
  caller: TCaller,
  sessionId: string,
  input: TInvocationInput,
  timing?: InvocationTiming,
): Promise<TInvocation> {
  timing?.mark("auth");
  // One statement for the session, the caller's role, access, surface, deployment and release (invocation-context.ts).
  const { session, role, ...ctx } = await invocationContext(caller.userId, sessionId);
  if (session.state !== "active")
    throw new AppError(
      "conflict",
      `Session ${sessionId} is closed (${session.closedReason ?? "closed"}); open a new session`,
      { reason: "session_closed" },
    );
  await checkEvidence(session.workspaceId, input);
  timing?.mark("context");
  const id = newId("inv");
  const decision = await admit({
    callerId: caller.userId,
    role,
    method: input.method,
    session,
    ...ctx,
    invocationId: id,
  });
  timing?.mark("admission");

  // An admitted invocation's execution is prepared (runner token, readings before the call) while its row's statement
  // is in flight: the statement goes out first, the preparation's CPU work runs while PostgreSQL executes it (from the
  // next turn of the event loop, once the query is on the socket). The app is still called only after the row is
  // written, and not at all when that fails.
  let inv: Invocation;
  let preparing: Promise<TPrepared> | undefined;
  try {
    const inserting = insertInvocation(id, session, input, decision, caller);
    if (decision.outcome === "admitted") {
      preparing = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
        prepareExecution(id, session, ctx.deployment, input),
      );
      preparing.catch(() => undefined); // awaited by run(); a failed insert leaves it unawaited
    }
    inv = await inserting;
    // Both done before the phase ends: `insert` is the longer of the two.
    if (preparing) await preparing.catch(() => undefined);
  } catch (err) {
    if (decision.ticket) {
      await settleTicket(decision.ticket, 0, null, null).catch(() => undefined);
      finishTicket(decision.ticket);
    }
    throw err;
  }
  timing?.mark("insert");
  if (decision.outcome === "admitted")
    inv = await run(inv, decision, caller.correlationId, { session, ...ctx }, timing, preparing);
  return toInvocation(inv);
}

/**
 * The next sequence of the session, the invocation, its pending operation
 * and its event in ONE statement (one round trip, one transaction): the
 * session row's counter is taken only if the row is inserted, so the
 * sequence is gap-free; a session closed meanwhile inserts nothing (409).
 * An admitted invocation's row commits without waiting for its WAL flush
 * (`synchronous_commit` off for this transaction only): nobody is answered
 * on it, and the record's commit, which is synchronous and comes before the
 * answer, flushes the WAL up to itself, so this row too. A crash of Capstan
 * loses nothing (PostgreSQL has the commit); only a crash of PostgreSQL
 * itself within its WAL writer delay can lose the row of an invocation that
 * was never answered, whose draw the journal still charges. Denied and
 * pending decisions are answered on this commit: they wait for the flush.
 */
const INSERT_SQL = `
  WITH sc AS (SELECT set_config('synchronous_commit', CASE WHEN $17::boolean THEN 'off' ELSE current_setting('synchronous_commit') END, true) AS v),
  seq AS (
    UPDATE sessions SET next_sequence = next_sequence + 1, updated_at = now()
     WHERE id = $1 AND state = 'active' AND (SELECT v FROM sc) IS NOT NULL RETURNING next_sequence - 1 AS n),
  inv AS (
    INSERT INTO invocations (id, workspace_id, product_id, session_id, surface_id, account_id, access_id, sequence, input, admission, correlation_id)
    SELECT $2, $3, $4, $1, $5, $6, $7, n, $8::jsonb, $9::jsonb, $10 FROM seq
    RETURNING sequence, created_at),
  pend AS (
    INSERT INTO pending_operations (id, workspace_id, kind, subject_id, reason, requested_by)
    SELECT $11::text, $3, 'invocation_consent', $2, $12, $13 FROM inv WHERE $11::text IS NOT NULL),
  ev AS (
    INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data)
    SELECT $14, $3, 'invocation.changed', $15, '/v1/workspaces/' || $3, $2, $10, $16::jsonb FROM inv)
  SELECT sequence, created_at FROM inv`;

async function insertInvocation(
  id: string,
  session: Session,
  input: TInvocationInput,
  decision: TDecision,
  caller: TCaller,
): Promise<Invocation> {
  const pendingId = decision.outcome === "pending" ? newId("pend") : null;
  const base = {
    id,
    sessionId: session.id,
    workspaceId: session.workspaceId,
    productId: session.productId,
    surfaceId: session.surfaceId,
    accountId: session.accountId,
  };
  const admission = admissionOf(base, decision, { executionId: null, pendingId });
  const event = { invocation_id: id, session_id: session.id, status: decision.outcome, reason: decision.reason };
  // Raw SQL on purpose (one round trip, a named prepared statement): every insert names the session's workspace.
  const rows = await preparedQuery<{ sequence: number; created_at: Date }>("capstan_invocation_insert", INSERT_SQL, [
    session.id,
    id,
    session.workspaceId,
    session.productId,
    session.surfaceId,
    session.accountId,
    session.accessId,
    JSON.stringify(input),
    JSON.stringify(admission),
    caller.correlationId,
    pendingId,
    decision.reason,
    caller.userId,
    newId("evt"),
    EVENT_TYPES["invocation.changed"],
    JSON.stringify(event),
    decision.outcome === "admitted",
  ]);
  if (!rows.length)
    throw new AppError("conflict", `Session ${session.id} was closed meanwhile; open a new session`, {
      reason: "session_closed",
    });
  return {
    ...base,
    accessId: session.accessId,
    sequence: Number(rows[0]!.sequence),
    input: input as unknown as Prisma.JsonValue,
    admission: admission as unknown as Prisma.JsonValue,
    execution: null,
    correlationId: caller.correlationId,
    createdAt: rows[0]!.created_at,
    updatedAt: rows[0]!.created_at,
  };
}

export async function getInvocation(caller: TCaller, sessionId: string, invocationId: string): Promise<TInvocation> {
  const { session } = await sessionFor(caller, sessionId, { othersNeed: "viewer" });
  const inv = await scopedDb(session.workspaceId).invocation.findUnique({ where: { id: invocationId } });
  if (!inv || inv.sessionId !== sessionId) throw notFound(`Invocation ${invocationId}`);
  return toInvocation(inv);
}

export async function listInvocations(caller: TCaller, sessionId: string, q: TListQuery): Promise<TPage<TInvocation>> {
  const { session } = await sessionFor(caller, sessionId, { othersNeed: "viewer" });
  const args = keysetArgs(q);
  const rows = await scopedDb(session.workspaceId).invocation.findMany({
    ...args,
    where: { ...args.where, sessionId },
  });
  return toPage(rows, q, toInvocation);
}

/** Re-decides a pending invocation after an owner/admin approved it, and runs it when admitted. */
export async function readmit(inv: Invocation, correlationId: string): Promise<Invocation> {
  const sdb = scopedDb(inv.workspaceId);
  const ctx = await loadContext(await sdb.session.findUniqueOrThrow({ where: { id: inv.sessionId } }));
  const role =
    (
      await sdb.membership.findUnique({
        where: { workspaceId_userId: { workspaceId: inv.workspaceId, userId: inv.accountId ?? "" } },
        select: { role: true },
      })
    )?.role ?? null;
  const decision = await admit({
    callerId: inv.accountId ?? "",
    role: role as never,
    method: (inv.input as TInvocationInput).method,
    ...ctx,
    invocationId: inv.id,
    consented: true,
  });
  const prev = inv.admission as TAdmission;
  const admission = admissionOf(inv, decision, { executionId: null, pendingId: prev.pending_operation_id });
  const row = await sdb.invocation.update({
    where: { id: inv.id },
    data: { admission: admission, updatedAt: new Date() },
  });
  return decision.outcome === "admitted" ? run(row, decision, correlationId, ctx) : row;
}
