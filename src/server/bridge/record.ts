import type { Prisma } from "@/generated/prisma/client";
import { writeAudit, type TAuditAction } from "@/server/platform/audit";
import { db, rawQuery } from "@/server/platform/db/client";
import { Prisma as P } from "@/generated/prisma/client";
import { env } from "@/server/platform/env";
import { GroupCommit } from "@/server/platform/group-commit";
import { EVENT_TYPES, emitEvent } from "@/server/platform/outbox";
import { newId } from "@/server/platform/ids";
import { observeBridgeCall } from "@/server/platform/metrics";
import { iso } from "@/server/platform/time";
import type { TResultReason, TUsage } from "./bridge.contract";

/**
 * Writes the outcome of one Bridge call in one transaction: the capability
 * invocation row, capability.invocation_requested 1.4.0 and
 * capability.invocation_resulted 1.1.0 (payloads per spec 6.2/6.3), the
 * settlement of its budget reservation (the charge), and the audits a
 * denial, a blocked output or a fallback calls for. `recordInvocation`
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
  /** The reservation this call held, settled at `units` in the record's own transaction. */
  settle: { reservationId: string; units: number; usedBindingId: string | null } | null;
  /** The call's price with the rate card version in force at its start (docs/decisions.md "Billing"); null/absent = unpriced. */
  charge?: { micros: bigint; currency: string; rateCardVersionId: string } | null;
};

export async function recordInvocation(r: TRecord): Promise<void> {
  observeBridgeCall({ capability: r.capability, outcome: r.outcome, reason: r.reason, totalMs: r.latencyMs, overheadMs: r.overheadMs, units: r.usage.units });
  if (!r.audits.length && r.revisionId) {
    if (env().CAPSTAN_BRIDGE_RECORDS === "batched") return records.add(r);
    return insertBatch([r], "pooled");
  }
  return recordAudited(r);
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
    audited.push({ r, done: (err) => (err === undefined ? resolve() : reject(err instanceof Error ? err : new Error("record failed", { cause: err }))) });
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
        await db().$transaction(async (tx) => {
          await settleIn(tx, batch.map((x) => x.r));
          for (const x of batch) await writeAudited(tx, x.r);
        }, { timeout: 30_000 });
        for (const x of batch) x.done();
      } catch {
        for (const x of batch) {
          // platform-scoped: the same batch, retried call by call.
          await db()
            .$transaction(async (tx) => {
              await settleIn(tx, [x.r]);
              await writeAudited(tx, x.r);
            })
            .then(() => x.done(), (err: unknown) => x.done(err ?? new Error("record failed")));
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
      id: r.id, workspaceId: r.workspaceId, productId: r.productId, revisionId: r.revisionId,
      serviceIdentityId: r.serviceIdentityId, deploymentId: r.deploymentId, executionId: r.executionId, bridgeInvocationId: r.bridgeInvocationId,
      capability: r.capability, action: r.action, outcome: r.outcome, reason: r.reason, provider: r.provider,
      bindingId: r.bindingId, fallbackUsed: r.fallbackUsed, usageUnits: r.usage.units, usageUnit: r.usage.unit,
      requestSummary: { ...r.requestSummary, request: r.request } as Prisma.InputJsonValue,
      outputSummary: (r.outputSummary ?? undefined),
      correlationId: r.correlationId, latencyMs: r.latencyMs, overheadMs: r.overheadMs,
      requestedAt: r.requestedAt, finishedAt: r.finishedAt,
      chargeMicros: r.charge?.micros ?? null, chargeCurrency: r.charge?.currency ?? null, rateCardVersionId: r.charge?.rateCardVersionId ?? null,
    },
  });
  // The requested event names the revision whose contract was checked; a call
  // with no confirmed contract at all has none, so only its result is emitted.
  if (r.revisionId && r.requestDescribed) await emitEvent(tx, {
    workspaceId: r.workspaceId, type: "capability.invocation_requested", correlationId: r.correlationId, subject: r.id,
    data: {
      capability_invocation_id: r.id, execution_id: r.executionId, bridge_invocation_id: r.bridgeInvocationId,
      product_id: r.productId, revision_id: r.revisionId, workspace_id: r.workspaceId,
      request: r.request, input: { kind: "inline", json: r.requestSummary }, requested_at: iso(r.requestedAt),
      ...(r.environmentType ? { environment_type: r.environmentType } : {}),
    },
  });
  await emitEvent(tx, {
    workspaceId: r.workspaceId, type: "capability.invocation_resulted", correlationId: r.correlationId, subject: r.id,
    data: {
      capability_invocation_id: r.id, workspace_id: r.workspaceId, product_id: r.productId, outcome: r.outcome,
      reason: r.reason, output: r.outputSummary ? { kind: "inline", json: r.outputSummary } : null,
      provider: r.provider, fallback_used: r.fallbackUsed, usage: r.usage, finished_at: iso(r.finishedAt),
      ...(r.bindingId ? { binding_id: r.bindingId } : {}),
    },
  });
  for (const a of r.audits) {
    await writeAudit(tx, {
      workspaceId: r.workspaceId, actor: { kind: "service", id: r.serviceIdentityId }, action: a.action,
      target: { kind: "capability_invocation", id: r.id }, correlationId: r.correlationId, details: a.details,
    });
  }
}

function eventData(r: TRecord) {
  const requested = {
    capability_invocation_id: r.id, execution_id: r.executionId, bridge_invocation_id: r.bridgeInvocationId,
    product_id: r.productId, revision_id: r.revisionId, workspace_id: r.workspaceId,
    request: r.request, input: { kind: "inline", json: r.requestSummary }, requested_at: iso(r.requestedAt),
    ...(r.environmentType ? { environment_type: r.environmentType } : {}),
  };
  const resulted = {
    capability_invocation_id: r.id, workspace_id: r.workspaceId, product_id: r.productId, outcome: r.outcome,
    reason: r.reason, output: r.outputSummary ? { kind: "inline", json: r.outputSummary } : null,
    provider: r.provider, fallback_used: r.fallbackUsed, usage: r.usage, finished_at: iso(r.finishedAt),
    ...(r.bindingId ? { binding_id: r.bindingId } : {}),
  };
  return { requested, resulted };
}

/**
 * The settlements of a batch as one capstan_settle_batch call (which takes the
 * budget rows in id order, as reservations do); null when no record of the
 * batch held a reservation.
 */
function settleCall(batch: TRecord[]): P.Sql | null {
  // The charge goes with the settlement: a prepaid call's wallet hold is released and its price debited there.
  const items = batch.flatMap((r) => (r.settle ? [{ ...r.settle, charge: r.charge ? r.charge.micros.toString() : null }] : []));
  if (!items.length) return null;
  return P.sql`SELECT capstan_settle_batch(ARRAY[${P.join(items.map((x) => P.sql`${x.reservationId}::text`))}]::text[],
    ARRAY[${P.join(items.map((x) => P.sql`${x.units}::float8`))}]::float8[],
    ARRAY[${P.join(items.map((x) => P.sql`${x.usedBindingId}::text`))}]::text[],
    ARRAY[${P.join(items.map((x) => P.sql`${x.charge}::bigint`))}]::bigint[]) AS n`;
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
const records = new GroupCommit<TRecord, void>(async (batch) => {
  // One batch in flight per process: on the hot pg pool, without the ORM's per-query work.
  await insertBatch(batch, "hot");
  return batch.map(() => undefined);
}, FLUSH_MAX);

/** Resolves once every record handed over so far is written (shutdown drain, tests, bench). */
export async function flushRecords(): Promise<void> {
  await records.idle();
  while (draining) await new Promise((r) => setImmediate(r));
}

async function insertBatch(batch: TRecord[], via: "hot" | "pooled"): Promise<void> {
  const invRows = batch.map((r) => P.sql`(${r.id}, ${r.workspaceId}, ${r.productId}, ${r.revisionId}, ${r.serviceIdentityId}, ${r.deploymentId}, ${r.executionId},
        ${r.bridgeInvocationId}, ${r.capability}, ${r.action}, ${r.outcome}, ${r.reason}, ${r.provider}, ${r.bindingId},
        ${r.fallbackUsed}, ${r.usage.units}, ${r.usage.unit}, ${JSON.stringify({ ...r.requestSummary, request: r.request })}::jsonb,
        ${r.outputSummary ? JSON.stringify(r.outputSummary) : null}::jsonb, ${r.correlationId}, ${r.latencyMs}::int, ${r.overheadMs}::int,
        ${r.requestedAt}::timestamptz, ${r.finishedAt}::timestamptz,
        ${r.charge ? r.charge.micros.toString() : null}::bigint, ${r.charge?.currency ?? null}, ${r.charge?.rateCardVersionId ?? null})`);
  const reqType = "capability.invocation_requested";
  const resType = "capability.invocation_resulted";
  const evRows = batch.flatMap((r) => {
    const { requested, resulted } = eventData(r);
    const source = `/v1/workspaces/${r.workspaceId}`;
    // Same rule as the transactional path: no requested event when the 6.2 request shape is unknown.
    return [
      ...(r.requestDescribed
        ? [P.sql`(${newId("evt")}, ${r.workspaceId}, ${reqType}, ${EVENT_TYPES[reqType]}, ${source}, ${r.id}, ${r.correlationId}, ${JSON.stringify(requested)}::jsonb, ${r.requestedAt}::timestamptz)`]
        : []),
      P.sql`(${newId("evt")}, ${r.workspaceId}, ${resType}, ${EVENT_TYPES[resType]}, ${source}, ${r.id}, ${r.correlationId}, ${JSON.stringify(resulted)}::jsonb, ${r.finishedAt}::timestamptz)`,
    ];
  });
  const settle = settleCall(batch);
  // The settlement is a CTE the events insert joins (one row), so it runs in this statement and commits with it.
  const statement = P.sql`
    WITH ${settle ? P.sql`s AS (${settle}),` : P.empty} inv AS (
      INSERT INTO capability_invocations (id, workspace_id, product_id, revision_id, service_identity_id, deployment_id, execution_id,
        bridge_invocation_id, capability, action, outcome, reason, provider, binding_id, fallback_used, usage_units,
        usage_unit, request_summary, output_summary, correlation_id, latency_ms, overhead_ms, requested_at, finished_at,
        charge_micros, charge_currency, rate_card_version_id)
      VALUES ${P.join(invRows)}
      RETURNING id)
    INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data, created_at)
    SELECT v.* FROM (VALUES ${P.join(evRows)}) AS v(id, workspace_id, type, version, source, subject, correlation_id, data, created_at)
      ${settle ? P.sql`CROSS JOIN s` : P.empty}
     WHERE EXISTS (SELECT 1 FROM inv)`;
  if (via === "hot") await rawQuery(statement.text, statement.values);
  // Raw SQL on purpose: the same statement as the hot path's; every row names its workspace.
  else await db().$executeRaw(statement);
}
