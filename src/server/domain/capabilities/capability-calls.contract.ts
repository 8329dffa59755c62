import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { zTimestamp } from "@/server/platform/time";
import { REASON_STATUS, type TResultReason } from "@/server/bridge/bridge.contract";

/** Capability invocations (spec: fields "not shown"): outcome, reason, usage and content summaries, never content. */
const ZContentSummary = z.object({ sha256: z.string(), size_bytes: z.number().int() });

export const ZCapabilityCall = z
  .object({
    id: zId("cap"),
    workspace_id: zWorkspaceId,
    product_id: z.string(),
    revision_id: z.string().nullable(),
    service_identity_id: z.string().nullable(),
    /** The deployment whose app made the call through its Bridge socket, or null. */
    deployment_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    bridge_invocation_id: z.string().nullable(),
    capability: z.string(),
    action: z.string(),
    outcome: z.enum(["requested", "completed", "denied", "failed"]),
    reason: z.string().nullable(),
    provider: z.string().nullable(),
    binding_id: z.string().nullable(),
    fallback_used: z.boolean(),
    usage: z.object({ units: z.number(), unit: z.string() }),
    /** The call's price with the rate card version in force at its start (docs/decisions.md "Billing"); null when unpriced. */
    charge: z
      .object({ amount_micros: z.number().int(), currency: z.string(), rate_card_version_id: z.string() })
      .nullable(),
    request: ZContentSummary.extend({ shape: z.record(z.string(), z.unknown()) }),
    output: ZContentSummary.nullable(),
    correlation_id: z.string(),
    latency_ms: z.number().int().nullable(),
    overhead_ms: z.number().int().nullable(),
    requested_at: z.string(),
    finished_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "CapabilityInvocation" });
export type TCapabilityCall = z.infer<typeof ZCapabilityCall>;
export const ZCapabilityCallList = zPage(ZCapabilityCall).meta({ id: "CapabilityInvocations" });

export const ZCapabilityCallListQuery = zListQuery.extend({
  product_id: zId("prod").optional(),
  outcome: z.enum(["requested", "completed", "denied", "failed"]).optional(),
  capability: z.enum(["ai.generate", "storage.object", "data.kv", "email.send"]).optional(),
});

const RESULT_REASONS = Object.keys(REASON_STATUS) as [TResultReason, ...TResultReason[]];

/**
 * The console's search of Bridge calls (tRPC only: the REST list takes only
 * the spec's parameters). Filters combine with AND; `since` is inclusive,
 * `until` exclusive; `since` after `until` is a 400. Each filter is served by a
 * (workspace_id, filter, created_at, id) index (test/list-indexes.int.test.ts).
 */
export const ZCapabilityCallSearchQuery = ZCapabilityCallListQuery.extend({
  reason: z.enum(RESULT_REASONS).optional(),
  service_identity_id: zId("svc").optional(),
  since: zTimestamp.optional(),
  until: zTimestamp.optional(),
});
export type TCapabilityCallSearchQuery = z.infer<typeof ZCapabilityCallSearchQuery>;
