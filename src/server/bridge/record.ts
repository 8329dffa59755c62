import type { Prisma } from "@/generated/prisma/client";
import { writeAudit, type TAuditAction } from "@/server/platform/audit";
import { db, preparedQuery } from "@/server/platform/db/client";
import { Prisma as P } from "@/generated/prisma/client";
import { env } from "@/server/platform/env";
import { GroupCommit } from "@/server/platform/group-commit";
import { EVENT_TYPES, emitEvent } from "@/server/platform/outbox";
import { newId } from "@/server/platform/ids";
import { observeBridgeCall } from "@/server/platform/metrics";
import { iso } from "@/server/platform/time";
import type { TTicket } from "@/server/domain/usage/leases.service";
import type { TResultReason, TUsage } from "./bridge.contract";

/**
 * Writes the outcome of one Bridge call in one transaction: the capability
 * invocation row, capability.invocation_requested 1.4.0 and
 * capability.invocation_resulted 1.1.0 (payloads per spec 6.2/6.3), the
 * settlement of its budget reservation (the charge), and the audits a
 * denial, a blocked output or a fallback calls for. `recordCapabilityCall`
 * resolves only once that transaction committed: the response waits for it,
 * so a 2xx is never ahead of its record, charge and events.
 */
export type TRecord = {
  id: string;
  workspaceId: string;
  productId: string;
  revisionId: string | null;
  serviceIdentityId: string | null;
  deploymentId: string | null;
  executionId: string | null;
  bridgeInvocationId: string | null;
  environmentType: string | null;
  /** The fix run a platform call served (an AI-generated fix), else null/absent. */
  fixRunId?: string | null;
  capability: string;
  action: string;
  request: Record<string, unknown>;
  /** False when `request` is only {id, action}: the spec 6.2 shape could not be described, so no requested event. */
  requestDescribed: boolean;
  requestSummary: { sha256: string; size_bytes: number };
  outcome: "completed" | "denied" | "failed";
  reason: TResultReason | null;
  provider: string | null;
  bindingId: string | null;
  fallbackUsed: boolean;
  usage: TUsage;
  outputSummary: { sha256: string; size_bytes: number } | null;
  correlationId: string;
  requestedAt: Date;
  finishedAt: Date;
  latencyMs: number;
  overheadMs: number;
  audits: Array<{ action: TAuditAction; details: Record<string, unknown> }>;
  /** The reservation or lease draw this call held, settled at `units` in the record's own transaction. */
  settle: { ticket: TTicket; units: number; usedBindingId: string | null } | null;
  /** The call's price with the rate card version in force at its start (docs/decisions.md "Billing"); null/absent = unpriced. */
  charge?: { micros: bigint; currency: string; rateCardVersionId: string } | null;
};

/** Resolves once committed, with the record statement's round trip in ms (null on the audited path). */
export async function recordCapabilityCall(r: TRecord): Promise<number | null> {
  observeBridgeCall({
    capability: r.capability,
    outcome: r.outcome,
    reason: r.reason,
    totalMs: r.latencyMs,
    overheadMs: r.overheadMs,
    units: r.usage.units,
  });
  if (!r.audits.length && r.revisionId) {
    if (env().CAPSTAN_BRIDGE_RECORDS === "batched") return records.add(r);
    return insertBatch([r]);
  }
  await recordAudited(r);
  return null;
}

/**
 * Records with audits (denials, blocked outputs, fallbacks) are written
 * before the response, but a burst of them must not take one pooled
 * connection each only to queue on the workspace's audit-chain lock: they are
 * group-committed, one transaction per batch of up to AUDITED_BATCH, one batch
 * in flight per process. A batch that fails is retried record by record, so
 * one bad record fails only its own call.
 */
const AUDITED_BATCH = 50;
const audited: Array<{ r: TRecord; done: (err?: unknown) => void }> = [];
let draining = false;

function recordAudited(r: TRecord): Promise<void> {
  return new Promise((resolve, reject) => {
    audited.push({
      r,
      done: (err) =>
        err === undefined ? resolve() : reject(err instanceof Error ? err : new Error("record failed", { cause: err })),
    });
    if (!draining) void drainAudited();
  });
}

async function drainAudited(): Promise<void> {
  draining = true;
  try {
    while (audited.length) {
      const batch = audited.splice(0, AUDITED_BATCH);
      try {
        // platform-scoped: one transaction settles and audits a batch of calls of any workspace (each row names its own).
        await db().$transaction(
          async (tx) => {
            await settleIn(
              tx,
              batch.map((x) => x.r),
            );
            for (const x of batch) await writeAudited(tx, x.r);
          },
          { timeout: 30_000 },
        );
        for (const x of batch) x.done();
      } catch {
        for (const x of batch) {
          // platform-scoped: the same batch, retried call by call.
          await db()
            .$transaction(async (tx) => {
              await settleIn(tx, [x.r]);
              await writeAudited(tx, x.r);
            })
            .then(
              () => x.done(),
              (err: unknown) => x.done(err ?? new Error("record failed")),
            );
        }
      }
    }
  } finally {
    draining = false;
  }
}

async function writeAudited(tx: Prisma.TransactionClient, r: TRecord): Promise<void> {
  await tx.capabilityInvocation.create({
    data: {
      id: r.id,
      workspaceId: r.workspaceId,
      productId: r.productId,
      revisionId: r.revisionId,
      serviceIdentityId: r.serviceIdentityId,
      deploymentId: r.deploymentId,
      executionId: r.executionId,
      bridgeInvocationId: r.bridgeInvocationId,
      capability: r.capability,
      action: r.action,
      outcome: r.outcome,
      reason: r.reason,
      provider: r.provider,
      bindingId: r.bindingId,
      fallbackUsed: r.fallbackUsed,
      usageUnits: r.usage.units,
      usageUnit: r.usage.unit,
      requestSummary: { ...r.requestSummary, request: r.request } as Prisma.InputJsonValue,
      outputSummary: r.outputSummary ?? undefined,
      correlationId: r.correlationId,
      latencyMs: r.latencyMs,
      overheadMs: r.overheadMs,
      requestedAt: r.requestedAt,
      finishedAt: r.finishedAt,
      chargeMicros: r.charge?.micros ?? null,
      chargeCurrency: r.charge?.currency ?? null,
      rateCardVersionId: r.charge?.rateCardVersionId ?? null,
    },
  });
  // The requested event names the revision whose contract was checked; a call
  // with no confirmed contract at all has none, so only its result is emitted.
  // The same event bodies as the batched statement (eventData), so the two paths cannot drift apart.
  const { requested, resulted } = eventData(r);
  if (r.revisionId && r.requestDescribed)
    await emitEvent(tx, {
      workspaceId: r.workspaceId,
      type: "capability.invocation_requested",
      correlationId: r.correlationId,
      subject: r.id,
      data: requested,
    });
  await emitEvent(tx, {
    workspaceId: r.workspaceId,
    type: "capability.invocation_resulted",
    correlationId: r.correlationId,
    subject: r.id,
    data: resulted,
  });
  for (const a of r.audits) {
    await writeAudit(tx, {
      workspaceId: r.workspaceId,
      actor: { kind: "service", id: r.serviceIdentityId },
      action: a.action,
      target: { kind: "capability_invocation", id: r.id },
      correlationId: r.correlationId,
      details: a.details,
    });
  }
}

function eventData(r: TRecord) {
  const requested = {
    capability_invocation_id: r.id,
    execution_id: r.executionId,
    bridge_invocation_id: r.bridgeInvocationId,
    product_id: r.productId,
    revision_id: r.revisionId,
    workspace_id: r.workspaceId,
    request: r.request,
    input: { kind: "inline", json: r.requestSummary },
    requested_at: iso(r.requestedAt),
    ...(r.environmentType ? { environment_type: r.environmentType } : {}),
    ...(r.fixRunId ? { fix_run_id: r.fixRunId } : {}),
  };
  const resulted = {
    capability_invocation_id: r.id,
    workspace_id: r.workspaceId,
    product_id: r.productId,
    outcome: r.outcome,
    reason: r.reason,
    output: r.outputSummary ? { kind: "inline", json: r.outputSummary } : null,
    provider: r.provider,
    fallback_used: r.fallbackUsed,
    usage: r.usage,
    finished_at: iso(r.finishedAt),
    ...(r.bindingId ? { binding_id: r.bindingId } : {}),
  };
  return { requested, resulted };
}

/**
 * The settlements of a batch as one scalar expression: capstan_settle_batch
 * for per-call reservations and capstan_settle_drawn_batch for lease draws
 * (each takes the budget rows in id order, as reservations do); null when no
 * record of the batch held either.
 */
function settleCall(batch: TRecord[]): P.Sql | null {
  // The charge goes with the settlement: a prepaid call's wallet hold is released and its price debited there.
  const charge = (r: TRecord) => (r.charge ? r.charge.micros.toString() : null);
  const rsv = batch.flatMap((r) =>
    r.settle?.ticket.kind === "reservation"
      ? [{ s: r.settle, id: r.settle.ticket.reservation.id, charge: charge(r) }]
      : [],
  );
  const drw = batch.flatMap((r) =>
    r.settle?.ticket.kind === "draw" ? [{ s: r.settle, d: r.settle.ticket, charge: charge(r) }] : [],
  );
  const parts: P.Sql[] = [];
  if (rsv.length) {
    parts.push(P.sql`(SELECT capstan_settle_batch(ARRAY[${P.join(rsv.map((x) => P.sql`${x.id}::text`))}]::text[],
    ARRAY[${P.join(rsv.map((x) => P.sql`${x.s.units}::float8`))}]::float8[],
    ARRAY[${P.join(rsv.map((x) => P.sql`${x.s.usedBindingId}::text`))}]::text[],
    ARRAY[${P.join(rsv.map((x) => P.sql`${x.charge}::bigint`))}]::bigint[]))`);
  }
  if (drw.length) {
    parts.push(P.sql`(SELECT capstan_settle_drawn_batch(ARRAY[${P.join(drw.map((x) => P.sql`${x.d.leaseId}::text`))}]::text[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.d.invocationId}::text`))}]::text[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.d.units}::float8`))}]::float8[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.s.units}::float8`))}]::float8[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.s.usedBindingId}::text`))}]::text[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.d.hold.toString()}::bigint`))}]::bigint[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.charge}::bigint`))}]::bigint[]))`);
  }
  if (!parts.length) return null;
  return P.sql`SELECT ${P.join(parts, " + ")} AS n`;
}

async function settleIn(tx: Prisma.TransactionClient, batch: TRecord[]): Promise<void> {
  const call = settleCall(batch);
  if (call) await tx.$queryRaw(call);
}

/**
 * The hot path (no audit to chain). In `batched` mode (the default) records
 * are group-committed: a lone call is written at once; calls that finish
 * while a write is in flight go together in the next one (up to FLUSH_MAX),
 * ONE statement per batch that settles the batch's reservations and inserts
 * the invocation rows and both outbox events per call. Every caller waits for
 * the commit of its batch before answering (flush, then answer everyone
 * waiting on it). `sync` writes one such statement per call. A failed batch is
 * retried record by record, so one bad record fails only its own call.
 */
const FLUSH_MAX = 100;
const records = new GroupCommit<TRecord, number>(async (batch) => {
  // One batch in flight per process: on the hot pg pool, without the ORM's per-query work.
  const ms = await insertBatch(batch);
  return batch.map(() => ms);
}, FLUSH_MAX);

/** Resolves once every record handed over so far is written (shutdown drain, tests, bench). */
export async function flushRecords(): Promise<void> {
  await records.idle();
  while (draining) await new Promise((r) => setImmediate(r));
}

/**
 * The hot path's record as ONE named prepared statement whose text never changes with the batch (every
 * value an array, unnested): parsed and planned once per connection, then only bound and executed. The
 * settlements are initplans the invocation insert's one-time filter runs first, so they commit with it.
 */
const RECORD_SQL = `
  WITH sd AS (SELECT capstan_settle_drawn_batch($1::text[], $2::text[], $3::float8[], $4::float8[], $5::text[], $6::bigint[], $7::bigint[]) AS n),
       sr AS (SELECT capstan_settle_batch($8::text[], $9::float8[], $10::text[], $11::bigint[]) AS n),
       inv AS (
         INSERT INTO capability_invocations (id, workspace_id, product_id, revision_id, service_identity_id, deployment_id,
           execution_id, bridge_invocation_id, capability, action, outcome, reason, provider, binding_id, fallback_used,
           usage_units, usage_unit, request_summary, output_summary, correlation_id, latency_ms, overhead_ms, requested_at,
           finished_at, charge_micros, charge_currency, rate_card_version_id)
         SELECT x.id, x.ws, x.prod, x.rev, x.svc, x.dep, x.exe, x.binv, x.cap, x.act, x.outcome, x.reason, x.provider,
                x.binding, x.fallback, x.units, x.unit, x.req::jsonb, x.out::jsonb, x.corr, x.latency, x.overhead, x.requested,
                x.finished, x.charge, x.currency, x.card
           FROM unnest($12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[],
                       $20::text[], $21::text[], $22::text[], $23::text[], $24::text[], $25::text[], $26::boolean[],
                       $27::float8[], $28::text[], $29::text[], $30::text[], $31::text[], $32::int[], $33::int[],
                       $34::timestamptz[], $35::timestamptz[], $36::bigint[], $37::text[], $38::text[])
             AS x(id, ws, prod, rev, svc, dep, exe, binv, cap, act, outcome, reason, provider, binding, fallback, units, unit,
                  req, out, corr, latency, overhead, requested, finished, charge, currency, card)
          WHERE (SELECT n FROM sd) IS NOT NULL AND (SELECT n FROM sr) IS NOT NULL
         RETURNING id)
  INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data, created_at)
  SELECT e.id, e.ws, e.type, e.version, '/v1/workspaces/' || e.ws, e.subject, e.corr, e.data::jsonb, e.at
    FROM unnest($39::text[], $40::text[], $41::text[], $42::text[], $43::text[], $44::text[], $45::text[], $46::timestamptz[])
      AS e(id, ws, type, version, subject, corr, data, at)
   WHERE e.subject IN (SELECT id FROM inv)`;

/** Writes the batch; resolves with the statement's round trip (ms) once it committed. */
async function insertBatch(batch: TRecord[]): Promise<number> {
  const charge = (r: TRecord) => (r.charge ? r.charge.micros.toString() : null);
  const drw = batch.flatMap((r) => (r.settle?.ticket.kind === "draw" ? [{ r, s: r.settle, d: r.settle.ticket }] : []));
  const rsv = batch.flatMap((r) =>
    r.settle?.ticket.kind === "reservation" ? [{ r, s: r.settle, id: r.settle.ticket.reservation.id }] : [],
  );
  const reqType = "capability.invocation_requested";
  const resType = "capability.invocation_resulted";
  // Same rule as the transactional path: no requested event when the 6.2 request shape is unknown.
  const ev: Array<{ type: string; r: TRecord; data: unknown; at: Date }> = [];
  for (const r of batch) {
    const { requested, resulted } = eventData(r);
    if (r.requestDescribed) ev.push({ type: reqType, r, data: requested, at: r.requestedAt });
    ev.push({ type: resType, r, data: resulted, at: r.finishedAt });
  }
  const col = <T>(f: (r: TRecord) => T) => batch.map(f);
  // Raw SQL on purpose: the Bridge's hot record; every row names its workspace.
  const startedAt = performance.now();
  await preparedQuery("capstan_bridge_record", RECORD_SQL, [
    drw.map((x) => x.d.leaseId),
    drw.map((x) => x.d.invocationId),
    drw.map((x) => x.d.units),
    drw.map((x) => x.s.units),
    drw.map((x) => x.s.usedBindingId),
    drw.map((x) => x.d.hold.toString()),
    drw.map((x) => charge(x.r)),
    rsv.map((x) => x.id),
    rsv.map((x) => x.s.units),
    rsv.map((x) => x.s.usedBindingId),
    rsv.map((x) => charge(x.r)),
    col((r) => r.id),
    col((r) => r.workspaceId),
    col((r) => r.productId),
    col((r) => r.revisionId),
    col((r) => r.serviceIdentityId),
    col((r) => r.deploymentId),
    col((r) => r.executionId),
    col((r) => r.bridgeInvocationId),
    col((r) => r.capability),
    col((r) => r.action),
    col((r) => r.outcome),
    col((r) => r.reason),
    col((r) => r.provider),
    col((r) => r.bindingId),
    col((r) => r.fallbackUsed),
    col((r) => r.usage.units),
    col((r) => r.usage.unit),
    col((r) => JSON.stringify({ ...r.requestSummary, request: r.request })),
    col((r) => (r.outputSummary ? JSON.stringify(r.outputSummary) : null)),
    col((r) => r.correlationId),
    col((r) => r.latencyMs),
    col((r) => r.overheadMs),
    col((r) => r.requestedAt.toISOString()),
    col((r) => r.finishedAt.toISOString()),
    col(charge),
    col((r) => r.charge?.currency ?? null),
    col((r) => r.charge?.rateCardVersionId ?? null),
    ev.map(() => newId("evt")),
    ev.map((e) => e.r.workspaceId),
    ev.map((e) => e.type),
    ev.map((e) => EVENT_TYPES[e.type as typeof reqType | typeof resType]),
    ev.map((e) => e.r.id),
    ev.map((e) => e.r.correlationId),
    ev.map((e) => JSON.stringify(e.data)),
    ev.map((e) => e.at.toISOString()),
  ]);
  return performance.now() - startedAt;
}
