import { z } from "zod";
import { AUDIT_ACTIONS } from "@/server/platform/audit";
import { zAnyId, zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { zTimestamp } from "@/server/platform/time";

/**
 * Audit records and correlations (spec 4.2; the AuditRecord and
 * CorrelationEvents fields are "not shown": decided here, see docs/decisions.md).
 *
 * Visibility of audit records by the caller's role:
 *
 * | action prefix                                                | owner | admin | developer | viewer |
 * |--------------------------------------------------------------|-------|-------|-----------|--------|
 * | `billing.`, `credential.`, `binding.`, `service_identity.`   | yes   | yes   | no        | no     |
 * | everything else                                              | yes   | yes   | yes       | yes    |
 *
 * A record the caller may not see is left out of lists (also when the
 * `action` filter names it: the page is then empty, not a 403) and is a 404
 * on the single read, exactly like a record of another workspace.
 */
export const RESTRICTED_AUDIT_PREFIXES = ["billing.", "credential.", "binding.", "service_identity."] as const;

export const ZAuditAction = z.enum(AUDIT_ACTIONS);

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const ZAuditRecord = z
  .object({
    id: zId("aud"),
    workspace_id: zWorkspaceId,
    sequence: z.number().int().min(1).describe("Position in the workspace's hash chain, from 1 without gaps"),
    action: ZAuditAction,
    actor: z.object({
      kind: z.enum(["user", "service", "system"]),
      id: z.string().nullable().describe("usr_ or svc_ id; null for the system"),
    }),
    target: z.object({ kind: z.string(), id: z.string() }).nullable(),
    correlation_id: z.string().describe("The evt_ correlation id of the request or job that caused the record"),
    details: z.record(z.string(), z.unknown()).describe("Action-specific facts; secret-looking fields are redacted"),
    prev_hash: sha256.nullable().describe("hash of the previous record of the chain; null for the first"),
    hash: sha256.describe("sha256(prev_hash | sequence | RFC 8785 canonical JSON of the record body)"),
    created_at: z.string(),
  })
  .meta({ id: "AuditRecord" });
export type TAuditRecord = z.infer<typeof ZAuditRecord>;

export const ZAuditRecordList = zPage(ZAuditRecord).meta({ id: "AuditRecords" });

/**
 * Query of GET /v1/workspaces/{ws}/audit-records. Filters combine with AND.
 * `since` is inclusive, `until` exclusive; `since` after `until` is a 400.
 * The spec states no cursor maximum for this list; we cap it at 512 chars.
 */
export const ZAuditListQuery = zListQuery.extend({
  cursor: z.string().min(1).max(512).optional(),
  action: ZAuditAction.optional(),
  actor_id: z.string().min(1).max(128).optional(),
  target_id: z.string().min(1).max(256).optional(),
  correlation_id: zAnyId.optional().describe("An id with any prefix of spec 2.1"),
  since: zTimestamp.optional().describe("Records created at or after this instant"),
  until: zTimestamp.optional().describe("Records created before this instant"),
});
export type TAuditListQuery = z.infer<typeof ZAuditListQuery>;

export const ZAuditRecordGet = z.object({ aud: zId("aud") });

export const ZChainVerification = z.object({
  ok: z.boolean(),
  broken_at: zId("aud").nullable().describe("The first record whose sequence, prev_hash or hash does not check out"),
  count: z.number().int().min(0),
});
export type TChainVerification = z.infer<typeof ZChainVerification>;

/** A CloudEvents header of an outbox event: everything but `data`. */
export const ZEventHeader = z
  .object({
    id: zId("evt"),
    type: z.string(),
    version: z.string(),
    source: z.string(),
    subject: z.string().nullable(),
    time: z.string(),
    workspace_id: zWorkspaceId,
    correlation_id: z.string(),
    dataschema: z
      .string()
      .nullable()
      .describe("URL of the data's JSON Schema; null for types without a published schema"),
  })
  .meta({ id: "EventHeader" });
export type TEventHeader = z.infer<typeof ZEventHeader>;

/** Events of one correlation, oldest first; at most CORRELATION_EVENTS_MAX of them. */
export const ZCorrelationEvents = z
  .object({ correlation_id: zId("evt"), items: z.array(ZEventHeader), next_cursor: z.null() })
  .meta({ id: "CorrelationEvents" });
export type TCorrelationEvents = z.infer<typeof ZCorrelationEvents>;

export const CORRELATION_EVENTS_MAX = 1000;

export const ZCorrelationGet = z.object({ evt: zId("evt") });
