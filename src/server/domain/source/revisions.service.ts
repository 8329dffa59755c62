import type { Revision } from "@/generated/prisma/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import { isWidening } from "./contract-validation";
import { applyDescriptorEdits, descriptorHash } from "./descriptor-detection";
import type { TCapabilityContract, TRevision } from "./source.contract";
import {
  SourceRejection,
  type TCapabilityEntry,
  type TContractRejectionReason,
  type TDescriptor,
} from "./source.types";
import { signalChange } from "@/server/platform/change-signals";

export function toRevision(r: Revision): TRevision {
  const out: TRevision = {
    id: r.id,
    workspace_id: r.workspaceId,
    product_id: r.productId,
    input_revision_id: r.inputRevisionId,
    product_type: "hosted-app",
    descriptor: (r.descriptor ?? null) as TRevision["descriptor"],
    descriptor_hash: r.descriptorHash ?? (r.descriptor ? descriptorHash(r.descriptor as unknown as TDescriptor) : null),
    confirmed_by: r.confirmedBy,
    descriptor_status: r.descriptorStatus as TRevision["descriptor_status"],
    findings: (r.findings ?? []) as TRevision["findings"],
    commit_sha: r.commitSha,
    snapshot: (r.snapshot ?? null) as TRevision["snapshot"],
    source_freeze_id: r.freezeId,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
  if (r.contractStatus === "rejected" && r.contractRejection) {
    out.capability_contract = {
      status: "rejected",
      reason: (r.contractRejection as { reason: TContractRejectionReason }).reason,
    };
  }
  return out;
}

export async function getOwnedRevision(workspaceId: string, revisionId: string): Promise<Revision> {
  const r = await scopedDb(workspaceId).revision.findUnique({ where: { id: revisionId } });
  if (!r) throw notFound(`Revision ${revisionId}`);
  return r;
}

export async function getRevision(workspaceId: string, revisionId: string): Promise<TRevision> {
  return toRevision(await getOwnedRevision(workspaceId, revisionId));
}

export async function listRevisions(
  workspaceId: string,
  q: TListQuery & { product_id?: string },
): Promise<TPage<TRevision>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).revision.findMany({
    ...args,
    where: { ...args.where, ...(q.product_id ? { productId: q.product_id } : {}) },
  });
  return toPage(rows, q, toRevision);
}

/**
 * The baseline a new contract may not exceed without approval: the
 * product's most recently confirmed ready contract (what its service
 * identities call the Bridge under). Promotion to production compares with
 * production's live release separately (releases/promotion.service.ts).
 */
export async function baselineContract(
  workspaceId: string,
  productId: string,
  exceptRevisionId: string,
): Promise<TCapabilityEntry[] | null> {
  const prev = await scopedDb(workspaceId).revision.findFirst({
    where: { productId, contractStatus: "ready", id: { not: exceptRevisionId } },
    orderBy: [{ contractConfirmedAt: "desc" }, { id: "desc" }],
  });
  return prev ? (prev.capabilities as unknown as TCapabilityEntry[]) : null;
}

/**
 * descriptor:confirm (spec 2.6): applies the edits (edited fields become
 * `developer`), hashes the descriptor, records who confirmed, and makes a
 * valid contract ready (emitting capability.contract_ready 1.2.0). A contract
 * that asks for more than the baseline is refused (409 scope_widened) unless
 * an owner/admin sends approve_widening: true. Nothing changes on refusal.
 */
export async function confirmDescriptor(
  caller: { userId: string; role: TRole; correlationId: string },
  workspaceId: string,
  productId: string,
  revisionId: string,
  body: { edits?: Parameters<typeof applyDescriptorEdits>[1]; approve_widening?: boolean },
): Promise<TRevision> {
  const rev = await getOwnedRevision(workspaceId, revisionId);
  if (rev.productId !== productId) throw notFound(`Revision ${revisionId}`);
  if (rev.descriptorStatus === "pending")
    throw new AppError("conflict", "The source is not frozen yet", { reason: "freeze_pending" });
  if (rev.descriptorStatus === "unavailable")
    throw new AppError("conflict", "The source freeze did not produce a descriptor", {
      reason: "descriptor_unavailable",
    });
  if (rev.descriptorStatus === "confirmed")
    throw new AppError("conflict", "This revision is already confirmed", { reason: "already_confirmed" });
  if (body.approve_widening && !roleAtLeast(caller.role, "admin")) {
    throw new AppError("forbidden", "approve_widening requires the owner or admin role", { reason: "role_required" });
  }

  let descriptor: TDescriptor;
  try {
    descriptor = applyDescriptorEdits(rev.descriptor as unknown as TDescriptor, body.edits ?? {});
  } catch (err) {
    if (err instanceof SourceRejection) {
      const field = err.detail && "field" in err.detail ? err.detail.field : "edits";
      throw new AppError("validation_failed", err.message, {
        reason: err.code,
        errors: [{ path: `/edits/${field.replace(/\./g, "/")}`, message: err.message, code: err.code }],
      });
    }
    throw err;
  }

  const capabilities = rev.contractStatus === "valid" ? (rev.capabilities as unknown as TCapabilityEntry[]) : null;
  if (capabilities) {
    const baseline = await baselineContract(workspaceId, productId, revisionId);
    const widening = baseline ? isWidening(baseline, capabilities) : { widened: false };
    if (widening.widened && !body.approve_widening) {
      throw new AppError(
        "conflict",
        `The capability contract asks for more than the product's current contract (${widening.why}); an owner or admin must confirm with approve_widening: true`,
        {
          reason: "scope_widened",
        },
      );
    }
  }

  return markConfirmed(workspaceId, productId, revisionId, descriptor, capabilities, {
    userId: caller.userId,
    correlationId: caller.correlationId,
  });
}

/**
 * The confirmation itself (a still-detected revision only: 409
 * already_confirmed otherwise): the descriptor with its hash and who
 * confirmed, a valid contract made ready with its event. Also used by deploy
 * on push for a revision whose descriptor and contract did not change.
 */
export async function markConfirmed(
  workspaceId: string,
  productId: string,
  revisionId: string,
  descriptor: TDescriptor,
  capabilities: TCapabilityEntry[] | null,
  by: { userId: string; correlationId: string },
): Promise<TRevision> {
  const caller = by;
  const now = new Date();
  const hash = descriptorHash(descriptor);
  const confirmed = await scopedDb(workspaceId).$transaction(async (tx) => {
    // Guard against a concurrent confirmation: only a still-detected revision moves.
    const moved = await tx.revision.updateMany({
      where: { id: revisionId, descriptorStatus: "detected" },
      data: {
        descriptor: descriptor,
        descriptorHash: hash,
        descriptorStatus: "confirmed",
        confirmedBy: caller.userId,
        confirmedAt: now,
        updatedAt: now,
        ...(capabilities ? { contractStatus: "ready", contractConfirmedAt: now } : {}),
      },
    });
    if (moved.count !== 1)
      throw new AppError("conflict", "This revision is already confirmed", { reason: "already_confirmed" });
    const updated = await tx.revision.findUniqueOrThrow({ where: { id: revisionId } });
    if (capabilities) {
      await emitEvent(tx, {
        workspaceId,
        type: "capability.contract_ready",
        correlationId: caller.correlationId,
        subject: revisionId,
        data: {
          product_id: productId,
          revision_id: revisionId,
          workspace_id: workspaceId,
          capabilities,
          contract_hash: updated.contractHash!,
          confirmed_at: iso(now),
        },
      });
    }
    return toRevision(updated);
  });
  // The product's active contract changed: the Bridge's contract caches everywhere re-read it.
  if (capabilities) signalChange("contracts", productId);
  return confirmed;
}

/** Spec 2.7 API view; a rejected contract answers the spec's rejected body. */
export async function getCapabilityContract(
  workspaceId: string,
  revisionId: string,
): Promise<TCapabilityContract | { capability_contract: { status: "rejected"; reason: TContractRejectionReason } }> {
  const r = await getOwnedRevision(workspaceId, revisionId);
  if (r.contractStatus === "rejected") {
    return {
      capability_contract: {
        status: "rejected",
        reason: (r.contractRejection as { reason: TContractRejectionReason }).reason,
      },
    };
  }
  if (r.contractStatus !== "ready") {
    throw new AppError(
      "conflict",
      "The capability contract is not confirmed yet: confirm the revision's descriptor first",
      { reason: "contract_pending" },
    );
  }
  return {
    id: r.id,
    product_id: r.productId,
    revision_id: r.id,
    workspace_id: r.workspaceId,
    capabilities: r.capabilities as unknown as TCapabilityContract["capabilities"],
    contract_hash: r.contractHash!,
    confirmed_at: iso(r.contractConfirmedAt!),
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}
