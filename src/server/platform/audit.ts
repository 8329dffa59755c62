import type { Prisma } from "@/generated/prisma/client";
import { canonicalJson } from "./canonical-json";
import type { TDb } from "./db/client";
import { scopedDb } from "./db/scoped";
import { newId } from "./ids";
import { redact } from "./logger";
import { sha256Hex } from "./crypto";

/**
 * Append-only audit trail, hash-chained per workspace:
 *   hash = sha256(prev_hash | seq | canonical JSON of the record body).
 * Writes take a per-workspace transaction-scoped advisory lock so the chain
 * has no forks; call it inside the transaction of the change it records.
 * The table has a trigger refusing UPDATE and DELETE.
 */
export const AUDIT_ACTIONS = [
  "billing.payment_succeeded",
  "billing.payment_failed",
  "billing.refunded",
  "billing.subscription_changed",
  "billing.profile_changed",
  "billing.invoice_issued",
  "billing.granted",
  "billing.adjusted",
  "billing.tier_changed",
  "billing.rate_card_updated",
  "credential.created",
  "credential.revoked",
  "binding.requested",
  "binding.ready",
  "binding.failed",
  "binding.revoked",
  "binding.expired",
  "service_identity.created",
  "service_identity.revoked",
  "service_identity.secret_rotated",
  "member.upserted",
  "member.role_changed",
  "platform.bootstrapped",
  "product.created",
  "release.created",
  "deployment.requested",
  "deployment.ready",
  "deployment.stopped",
  "plan.changed",
  "budget.changed",
  "capability.denied",
  "capability.output_blocked",
  "capability.fallback",
  "bridge.rejected",
  "usage.denied",
  "access.qualified",
  "access.denied",
  "access.revoked",
  "isolation.unenforced_run",
  "isolation.blocked",
  "pending.resolved",
  "fix.requested",
  "fix.decided",
  "adjudication.decided",
  "authz.forbidden",
  "authz.workspace_mismatch",
  "audit.exported",
  "audit.retention_deleted",
  "product.renamed",
  "service_identity.renamed",
  "binding.renamed",
  "webhook.renamed",
  // Invitations (docs/decisions.md "Invitations"); joining is the spec's member.upserted.
  "member.invited",
  "member.invitation_resent",
  "member.invitation_revoked",
  // Test buttons (docs/decisions.md "Test buttons"): details carry `test: true`.
  "webhook.tested",
  "binding.tested",
  // Workspace settings (docs/decisions.md "Onboarding checklist and workspace settings"): details { from, to }.
  "workspace.renamed",
  // The production path (docs/decisions.md "The production path: staging, promotion, rollback"): details name the releases and the deployment.
  "release.promoted",
  "release.rolled_back",
  // Runner hosts (docs/decisions.md "Operations"): ws_platform records, target the host.
  "runner_host.cordoned",
  "runner_host.uncordoned",
  "runner_host.drain_started",
  "runner_host.drained",
  // Replacing a deployment (drain, lost host, changed credentials): details name the old and new deployment and host.
  "deployment.replaced",
] as const;
export type TAuditAction = (typeof AUDIT_ACTIONS)[number];

export type TActor = { kind: "user" | "service" | "system"; id: string | null };

export type TAuditInput = {
  workspaceId: string;
  actor: TActor;
  action: TAuditAction;
  target?: { kind: string; id: string };
  correlationId: string;
  details?: Record<string, unknown>;
};

type TTx = Prisma.TransactionClient | TDb;

/** The hashed body of a record: everything but seq, prev_hash and hash. */
export function auditBody(r: {
  id: string;
  workspaceId: string;
  actorKind: string;
  actorId: string | null;
  action: string;
  targetKind: string | null;
  targetId: string | null;
  correlationId: string;
  details: unknown;
  createdAt: Date;
}): string {
  return canonicalJson({
    id: r.id,
    workspace_id: r.workspaceId,
    actor_kind: r.actorKind,
    actor_id: r.actorId,
    action: r.action,
    target_kind: r.targetKind,
    target_id: r.targetId,
    correlation_id: r.correlationId,
    details: r.details,
    created_at: r.createdAt.toISOString(),
  });
}

export function chainHash(prevHash: string | null, seq: bigint | number, body: string): string {
  return sha256Hex(`${prevHash ?? ""}|${seq.toString()}|${body}`);
}

export async function writeAudit(tx: TTx, input: TAuditInput): Promise<string> {
  const id = newId("aud");
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"audit:" + input.workspaceId}, 0))`;
  // Taken under the lock, so created_at order agrees with seq order.
  const createdAt = new Date();
  const details = redact(input.details ?? {}) as Record<string, unknown>;
  const body = auditBody({
    id,
    workspaceId: input.workspaceId,
    actorKind: input.actor.kind,
    actorId: input.actor.id,
    action: input.action,
    targetKind: input.target?.kind ?? null,
    targetId: input.target?.id ?? null,
    correlationId: input.correlationId,
    details,
    createdAt,
  });
  const last = await tx.$queryRaw<{ seq: bigint; hash: string }[]>`
    SELECT seq, hash FROM audit_records WHERE workspace_id = ${input.workspaceId} ORDER BY seq DESC LIMIT 1`;
  const prev = last[0];
  const seq = (prev?.seq ?? BigInt(0)) + BigInt(1);
  await tx.auditRecord.create({
    data: {
      id,
      workspaceId: input.workspaceId,
      seq,
      actorId: input.actor.id,
      actorKind: input.actor.kind,
      action: input.action,
      targetId: input.target?.id ?? null,
      targetKind: input.target?.kind ?? null,
      correlationId: input.correlationId,
      details: details as Prisma.InputJsonValue,
      prevHash: prev?.hash ?? null,
      hash: chainHash(prev?.hash ?? null, seq, body),
      createdAt,
    },
  });
  return id;
}

/** Writes one audit record in its own transaction (for records not tied to a change, e.g. authz denials). */
export async function writeAuditStandalone(input: TAuditInput): Promise<string> {
  return scopedDb(input.workspaceId).$transaction((tx) => writeAudit(tx, input));
}

/** Recomputes a workspace's chain; returns the first broken record id, or null when intact. */
export async function verifyAuditChain(
  workspaceId: string,
): Promise<{ ok: boolean; brokenAt: string | null; count: number }> {
  let prev: string | null = null;
  let expectedSeq = BigInt(1);
  let count = 0;
  // Batches by seq keep memory flat on long chains.
  for (;;) {
    const rows = await scopedDb(workspaceId).auditRecord.findMany({
      where: { seq: { gte: expectedSeq } },
      orderBy: { seq: "asc" },
      take: 1000,
    });
    if (!rows.length) break;
    for (const r of rows) {
      count++;
      const body = auditBody({ ...r, details: r.details });
      if (r.seq !== expectedSeq || r.prevHash !== prev || r.hash !== chainHash(prev, r.seq, body)) {
        return { ok: false, brokenAt: r.id, count: await scopedDb(workspaceId).auditRecord.count() };
      }
      prev = r.hash;
      expectedSeq += BigInt(1);
    }
  }
  return { ok: true, brokenAt: null, count };
}
