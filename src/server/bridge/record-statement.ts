import { preparedQuery } from "@/server/platform/db/client";
import { EVENT_TYPES } from "@/server/platform/outbox";
import { newId } from "@/server/platform/ids";
import { iso } from "@/server/platform/time";
import type { TAuditAction } from "@/server/platform/audit";
import type { TTicket } from "@/server/domain/usage/leases.service";
import type { TResultReason, TUsage } from "./bridge.contract";

/**
 * The Bridge's hot record (docs/decisions.md "The record commit against its floor"): the settlement of the call's
 * reservation or lease draw, the capability invocation row and its two outbox events, in ONE named prepared
 * statement, so they commit together and before the answer. Two texts that never change:
 * - a batch (group commit under load): every value an array, unnested;
 * - a lone record (every call at concurrency 1, and every batch of one): every value a scalar. Unnesting 46 arrays
 *   for one row cost PostgreSQL more than the row itself (0.50 against 0.34 ms of execution per call, measured
 *   with `synchronous_commit` off on the same connection).
 * The settlements run first as initplans of the invocation insert's one-time filter; the events follow the row.
 */

/** One Bridge call's outcome, as the record statements and the audited path write it. */
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

/** The bodies of capability.invocation_requested 1.4.0 and capability.invocation_resulted 1.1.0 (spec 6.2/6.3). */
export function eventData(r: TRecord) {
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

const INVOCATION_COLUMNS = `capability_invocations (id, workspace_id, product_id, revision_id, service_identity_id,
           deployment_id, execution_id, bridge_invocation_id, capability, action, outcome, reason, provider, binding_id,
           fallback_used, usage_units, usage_unit, request_summary, output_summary, correlation_id, latency_ms,
           overhead_ms, requested_at, finished_at, charge_micros, charge_currency, rate_card_version_id)`;
const EVENT_COLUMNS = `outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data, created_at)`;

const BATCH_SQL = `
  WITH sd AS (SELECT capstan_settle_drawn_batch($1::text[], $2::text[], $3::float8[], $4::float8[], $5::text[], $6::bigint[], $7::bigint[]) AS n),
       sr AS (SELECT capstan_settle_batch($8::text[], $9::float8[], $10::text[], $11::bigint[]) AS n),
       inv AS (
         INSERT INTO ${INVOCATION_COLUMNS}
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
  INSERT INTO ${EVENT_COLUMNS}
  SELECT e.id, e.ws, e.type, e.version, '/v1/workspaces/' || e.ws, e.subject, e.corr, e.data::jsonb, e.at
    FROM unnest($39::text[], $40::text[], $41::text[], $42::text[], $43::text[], $44::text[], $45::text[], $46::timestamptz[])
      AS e(id, ws, type, version, subject, corr, data, at)
   WHERE e.subject IN (SELECT id FROM inv)`;

/** The same statement for one record. The settlement's sum is never null; the planner cannot know, so it runs first. */
const LONE_SQL = `
  WITH s AS (
         SELECT coalesce(CASE WHEN $1::text IS NOT NULL
                  THEN capstan_settle_drawn($1, $2::text, $3::float8, $4::float8, $5::text, $6::bigint, $7::bigint)::int END, 0)
              + coalesce(CASE WHEN $8::text IS NOT NULL
                  THEN capstan_settle($8, $9::float8, $10::text, $11::bigint)::int END, 0) AS n),
       inv AS (
         INSERT INTO ${INVOCATION_COLUMNS}
         SELECT $12::text, $13::text, $14::text, $15::text, $16::text, $17::text, $18::text, $19::text, $20::text,
                $21::text, $22::text, $23::text, $24::text, $25::text, $26::boolean, $27::float8, $28::text, $29::jsonb,
                $30::jsonb, $31::text, $32::int, $33::int, $34::timestamptz, $35::timestamptz, $36::bigint, $37::text,
                $38::text
          WHERE (SELECT n FROM s) IS NOT NULL
         RETURNING id)
  INSERT INTO ${EVENT_COLUMNS}
  SELECT e.id, e.ws, e.type, e.version, '/v1/workspaces/' || e.ws, e.subject, e.corr, e.data::jsonb, e.at
    FROM (VALUES ($39::text, $40::text, $41::text, $42::text, $43::text, $44::text, $45::text, $46::timestamptz),
                 ($47::text, $48::text, $49::text, $50::text, $51::text, $52::text, $53::text, $54::timestamptz))
      AS e(id, ws, type, version, subject, corr, data, at)
   WHERE e.id IS NOT NULL AND e.subject IN (SELECT id FROM inv)`;

const charge = (r: TRecord) => (r.charge ? r.charge.micros.toString() : null);

/** A lease draw's settlement: lease, invocation, drawn, actual, used binding, hold, charge (7 values). */
function drawValues(r: TRecord): unknown[] | null {
  if (r.settle?.ticket.kind !== "draw") return null;
  const d = r.settle.ticket;
  return [d.leaseId, d.invocationId, d.units, r.settle.units, r.settle.usedBindingId, d.hold.toString(), charge(r)];
}

/** A per-call reservation's settlement: reservation, actual, used binding, charge (4 values). */
function reservationValues(r: TRecord): unknown[] | null {
  if (r.settle?.ticket.kind !== "reservation") return null;
  return [r.settle.ticket.reservation.id, r.settle.units, r.settle.usedBindingId, charge(r)];
}

/** The invocation row's 27 values, in INVOCATION_COLUMNS' order. */
function rowValues(r: TRecord): unknown[] {
  return [
    r.id,
    r.workspaceId,
    r.productId,
    r.revisionId,
    r.serviceIdentityId,
    r.deploymentId,
    r.executionId,
    r.bridgeInvocationId,
    r.capability,
    r.action,
    r.outcome,
    r.reason,
    r.provider,
    r.bindingId,
    r.fallbackUsed,
    r.usage.units,
    r.usage.unit,
    JSON.stringify({ ...r.requestSummary, request: r.request }),
    r.outputSummary ? JSON.stringify(r.outputSummary) : null,
    r.correlationId,
    r.latencyMs,
    r.overheadMs,
    r.requestedAt.toISOString(),
    r.finishedAt.toISOString(),
    charge(r),
    r.charge?.currency ?? null,
    r.charge?.rateCardVersionId ?? null,
  ];
}

/** The record's outbox rows (8 values each): no requested event when the 6.2 request shape is unknown. */
function eventRows(r: TRecord): unknown[][] {
  const { requested, resulted } = eventData(r);
  const row = (type: keyof typeof EVENT_TYPES, data: unknown, at: Date) => [
    newId("evt"),
    r.workspaceId,
    type,
    EVENT_TYPES[type],
    r.id,
    r.correlationId,
    JSON.stringify(data),
    at.toISOString(),
  ];
  const rows = [row("capability.invocation_resulted", resulted, r.finishedAt)];
  if (r.requestDescribed) rows.unshift(row("capability.invocation_requested", requested, r.requestedAt));
  return rows;
}

/** Rows to columns: `width` arrays, one per value. */
const columns = (rows: unknown[][], width: number) =>
  Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));

function loneParams(r: TRecord): unknown[] {
  const [first, second] = eventRows(r);
  const none = (n: number) => Array<null>(n).fill(null);
  return [
    ...(drawValues(r) ?? none(7)),
    ...(reservationValues(r) ?? none(4)),
    ...rowValues(r),
    ...first!,
    ...(second ?? none(8)),
  ];
}

function batchParams(batch: TRecord[]): unknown[] {
  const present = (v: unknown[] | null): v is unknown[] => v !== null;
  return [
    ...columns(batch.map(drawValues).filter(present), 7),
    ...columns(batch.map(reservationValues).filter(present), 4),
    ...columns(batch.map(rowValues), 27),
    ...columns(batch.flatMap(eventRows), 8),
  ];
}

/** Writes the records in one statement; resolves with its round trip (ms) once it committed. */
export async function writeRecords(batch: TRecord[]): Promise<number> {
  // Raw SQL on purpose: the Bridge's hot record; every row names its workspace.
  const lone = batch.length === 1;
  const params = lone ? loneParams(batch[0]!) : batchParams(batch);
  const startedAt = performance.now();
  if (lone) await preparedQuery("capstan_bridge_record_one", LONE_SQL, params);
  else await preparedQuery("capstan_bridge_record", BATCH_SQL, params);
  return performance.now() - startedAt;
}
