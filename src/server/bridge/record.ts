import type { Prisma } from "@/generated/prisma/client";
import { writeAudit, type TAuditAction } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { emitEvent } from "@/server/platform/outbox";
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
