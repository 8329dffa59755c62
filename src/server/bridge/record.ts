import type { Prisma } from "@/generated/prisma/client";
import { writeAudit, type TAuditAction } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { EVENT_TYPES, emitEvent } from "@/server/platform/outbox";
import { newId } from "@/server/platform/ids";
import { iso } from "@/server/platform/time";
import type { TResultReason, TUsage } from "./bridge.contract";

/**
 * Writes the outcome of one Bridge call in one transaction: the capability
 * invocation row, capability.invocation_requested 1.4.0 and
 * capability.invocation_resulted 1.1.0 (payloads per spec 6.2/6.3), and the
 * audits a denial, a blocked output or a fallback calls for.
 */
export type TRecord = {
  id: string;
  workspaceId: string;
  productId: string;
  revisionId: string | null;
  serviceIdentityId: string | null;
  executionId: string | null;
  bridgeInvocationId: string | null;
  environmentType: string | null;
  capability: string;
  action: string;
  request: Record<string, unknown>;
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
};

export async function recordInvocation(r: TRecord): Promise<void> {
  if (!r.audits.length && r.revisionId) return recordInOneStatement(r);
  await db().$transaction(async (tx) => {
    await tx.capabilityInvocation.create({
      data: {
        id: r.id, workspaceId: r.workspaceId, productId: r.productId, revisionId: r.revisionId,
        serviceIdentityId: r.serviceIdentityId, executionId: r.executionId, bridgeInvocationId: r.bridgeInvocationId,
        capability: r.capability, action: r.action, outcome: r.outcome, reason: r.reason, provider: r.provider,
        bindingId: r.bindingId, fallbackUsed: r.fallbackUsed, usageUnits: r.usage.units, usageUnit: r.usage.unit,
        requestSummary: { ...r.requestSummary, request: r.request } as Prisma.InputJsonValue,
        outputSummary: (r.outputSummary ?? undefined) as Prisma.InputJsonValue | undefined,
        correlationId: r.correlationId, latencyMs: r.latencyMs, overheadMs: r.overheadMs,
        requestedAt: r.requestedAt, finishedAt: r.finishedAt,
      },
    });
    // The requested event names the revision whose contract was checked; a call
    // with no confirmed contract at all has none, so only its result is emitted.
    if (r.revisionId) await emitEvent(tx, {
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
  });
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
 * The hot path (no audit to chain): the invocation row and both outbox events
 * in ONE statement (data-modifying CTEs commit together), one round trip.
 */
async function recordInOneStatement(r: TRecord): Promise<void> {
  const { requested, resulted } = eventData(r);
  const source = `/v1/workspaces/${r.workspaceId}`;
  const reqType = "capability.invocation_requested";
  const resType = "capability.invocation_resulted";
  await db().$executeRaw`
    WITH inv AS (
      INSERT INTO capability_invocations (id, workspace_id, product_id, revision_id, service_identity_id, execution_id,
        bridge_invocation_id, capability, action, outcome, reason, provider, binding_id, fallback_used, usage_units,
        usage_unit, request_summary, output_summary, correlation_id, latency_ms, overhead_ms, requested_at, finished_at)
      VALUES (${r.id}, ${r.workspaceId}, ${r.productId}, ${r.revisionId}, ${r.serviceIdentityId}, ${r.executionId},
        ${r.bridgeInvocationId}, ${r.capability}, ${r.action}, ${r.outcome}, ${r.reason}, ${r.provider}, ${r.bindingId},
        ${r.fallbackUsed}, ${r.usage.units}, ${r.usage.unit}, ${JSON.stringify({ ...r.requestSummary, request: r.request })}::jsonb,
        ${r.outputSummary ? JSON.stringify(r.outputSummary) : null}::jsonb, ${r.correlationId}, ${r.latencyMs}, ${r.overheadMs},
        ${r.requestedAt}, ${r.finishedAt})
      RETURNING id)
    INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data, created_at)
    SELECT v.id, ${r.workspaceId}, v.type, v.version, ${source}, inv.id, ${r.correlationId}, v.data::jsonb, v.created_at
      FROM inv, (VALUES
        (${newId("evt")}, ${reqType}, ${EVENT_TYPES[reqType]}, ${JSON.stringify(requested)}, ${r.requestedAt}::timestamptz),
        (${newId("evt")}, ${resType}, ${EVENT_TYPES[resType]}, ${JSON.stringify(resulted)}, ${r.finishedAt}::timestamptz)
      ) AS v(id, type, version, data, created_at)`;
}
