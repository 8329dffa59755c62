import type { AuditRecord, OutboxEvent, Prisma } from "@/generated/prisma/client";
import { verifyAuditChain, type TAuditAction } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { likeLiteral } from "@/server/platform/like";
import { AppError, notFound } from "@/server/platform/errors";
import { eventSchemaUrl } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import { hasEventSchema } from "@/server/domain/events/event-schemas";
import {
  CORRELATION_EVENTS_MAX,
  RESTRICTED_AUDIT_PREFIXES,
  type TAuditListQuery,
  type TAuditRecord,
  type TChainVerification,
  type TCorrelationEvents,
  type TEventHeader,
} from "./audit.contract";

/** Owners and admins see every record; other roles do not see restricted actions (table in audit.contract.ts). */
export function canSeeAction(role: TRole, action: string): boolean {
  return roleAtLeast(role, "admin") || !RESTRICTED_AUDIT_PREFIXES.some((p) => action.startsWith(p));
}

function visibilityWhere(role: TRole): Prisma.AuditRecordWhereInput {
  if (roleAtLeast(role, "admin")) return {};
  return { NOT: RESTRICTED_AUDIT_PREFIXES.map((p) => ({ action: { startsWith: likeLiteral(p) } })) };
}

export function toAuditRecord(r: AuditRecord): TAuditRecord {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    sequence: Number(r.seq),
    action: r.action as TAuditAction,
    actor: { kind: r.actorKind as TAuditRecord["actor"]["kind"], id: r.actorId },
    target: r.targetKind !== null && r.targetId !== null ? { kind: r.targetKind, id: r.targetId } : null,
    correlation_id: r.correlationId,
    details: (r.details ?? {}) as Record<string, unknown>,
    prev_hash: r.prevHash,
    hash: r.hash,
    created_at: iso(r.createdAt),
  };
}

/**
 * Lists the audit records of a workspace that `role` may see, filtered by
 * action, actor, target, correlation id and a [since, until) time window,
 * keyset-paginated on (created_at, id).
 */
export async function listAuditRecords(
  workspaceId: string,
  role: TRole,
  q: TAuditListQuery,
): Promise<TPage<TAuditRecord>> {
  const since = q.since ? new Date(q.since) : undefined;
  const until = q.until ? new Date(q.until) : undefined;
  if (since && until && since > until) {
    throw new AppError("bad_request", "since must not be after until", {
      reason: "invalid_parameters",
      errors: [{ path: "/query/since", message: "must not be after until" }],
    });
  }
  const page = keysetArgs(q);
  const where: Prisma.AuditRecordWhereInput = {
    AND: [
      visibilityWhere(role),
      page.where,
      q.action ? { action: q.action } : {},
      q.actor_id ? { actorId: q.actor_id } : {},
      q.target_id ? { targetId: q.target_id } : {},
      q.correlation_id ? { correlationId: q.correlation_id } : {},
      since || until ? { createdAt: { ...(since ? { gte: since } : {}), ...(until ? { lt: until } : {}) } } : {},
    ],
  };
  const rows = await scopedDb(workspaceId).auditRecord.findMany({ where, orderBy: page.orderBy, take: page.take });
  return toPage(rows, q, toAuditRecord);
}

/** One record of the workspace; invisible to `role` or of another workspace: 404. */
export async function getAuditRecord(workspaceId: string, role: TRole, id: string): Promise<TAuditRecord> {
  const row = await scopedDb(workspaceId).auditRecord.findUnique({ where: { id } });
  if (!row || !canSeeAction(role, row.action)) throw notFound(`Audit record ${id}`);
  return toAuditRecord(row);
}

/** Recomputes the workspace's hash chain (see platform/audit.ts). */
export async function verifyWorkspaceChain(workspaceId: string): Promise<TChainVerification> {
  const r = await verifyAuditChain(workspaceId);
  return { ok: r.ok, broken_at: r.brokenAt, count: r.count };
}

export function toEventHeader(e: Omit<OutboxEvent, "data" | "seq">): TEventHeader {
  return {
    id: e.id,
    type: e.type,
    version: e.version,
    source: e.source,
    subject: e.subject,
    time: iso(e.createdAt),
    workspace_id: e.workspaceId,
    correlation_id: e.correlationId,
    dataschema: hasEventSchema(e.type) ? eventSchemaUrl(e.type, e.version) : null,
  };
}

/**
 * The events one correlation caused in a workspace, oldest first: headers
 * only, never data (a viewer may read a correlation whose payloads it should
 * not). An unknown correlation id is an empty list: this is a query, not a
 * resource. At most CORRELATION_EVENTS_MAX events are returned.
 */
export async function listCorrelationEvents(workspaceId: string, correlationId: string): Promise<TCorrelationEvents> {
  const rows = await scopedDb(workspaceId).outboxEvent.findMany({
    where: { correlationId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: CORRELATION_EVENTS_MAX,
    omit: { data: true },
  });
  return { correlation_id: correlationId, items: rows.map(toEventHeader), next_cursor: null };
}
