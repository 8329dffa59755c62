import type { CapabilityInvocation } from "@/generated/prisma/client";
import { toWire } from "@/server/domain/billing/money";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { keysetArgs, toPage, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import type { TCapabilityCall, TCapabilityCallSearchQuery } from "./capability-calls.contract";

function toView(r: CapabilityInvocation): TCapabilityCall {
  const req = r.requestSummary as { sha256: string; size_bytes: number; request: Record<string, unknown> };
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    product_id: r.productId,
    revision_id: r.revisionId,
    service_identity_id: r.serviceIdentityId,
    deployment_id: r.deploymentId,
    execution_id: r.executionId,
    bridge_invocation_id: r.bridgeInvocationId,
    capability: r.capability,
    action: r.action,
    outcome: r.outcome as TCapabilityCall["outcome"],
    reason: r.reason,
    provider: r.provider,
    binding_id: r.bindingId,
    fallback_used: r.fallbackUsed,
    usage: { units: r.usageUnits, unit: r.usageUnit },
    charge:
      r.chargeMicros !== null && r.chargeCurrency && r.rateCardVersionId
        ? {
            amount_micros: toWire(r.chargeMicros),
            currency: r.chargeCurrency,
            rate_card_version_id: r.rateCardVersionId,
          }
        : null,
    request: { sha256: req.sha256, size_bytes: req.size_bytes, shape: req.request },
    output: (r.outputSummary ?? null) as TCapabilityCall["output"],
    correlation_id: r.correlationId,
    latency_ms: r.latencyMs,
    overhead_ms: r.overheadMs,
    requested_at: iso(r.requestedAt),
    finished_at: isoOrNull(r.finishedAt),
    created_at: iso(r.createdAt),
  };
}

/**
 * Bridge calls of a workspace, newest first by default, keyset-paginated on
 * (created_at, id). The REST list passes product, outcome and capability; the
 * console's search adds reason, service identity and a [since, until) window.
 */
export async function listCapabilityCalls(
  workspaceId: string,
  q: TCapabilityCallSearchQuery,
): Promise<TPage<TCapabilityCall>> {
  const since = q.since ? new Date(q.since) : undefined;
  const until = q.until ? new Date(q.until) : undefined;
  if (since && until && since > until) {
    throw new AppError("bad_request", "since must not be after until", {
      reason: "invalid_parameters",
      errors: [{ path: "/query/since", message: "must not be after until" }],
    });
  }
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).capabilityInvocation.findMany({
    ...args,
    where: {
      ...args.where,
      ...(q.product_id ? { productId: q.product_id } : {}),
      ...(q.outcome ? { outcome: q.outcome } : {}),
      ...(q.capability ? { capability: q.capability } : {}),
      ...(q.reason ? { reason: q.reason } : {}),
      ...(q.service_identity_id ? { serviceIdentityId: q.service_identity_id } : {}),
      ...(since || until ? { createdAt: { ...(since ? { gte: since } : {}), ...(until ? { lt: until } : {}) } } : {}),
    },
  });
  return toPage(rows, q, toView);
}

export async function getCapabilityCall(workspaceId: string, id: string): Promise<TCapabilityCall> {
  const r = await scopedDb(workspaceId).capabilityInvocation.findUnique({ where: { id } });
  if (!r) throw notFound(`Capability invocation ${id}`);
  return toView(r);
}
