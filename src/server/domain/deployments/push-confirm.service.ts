import type { PushDelivery, Revision } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import { isWidening } from "@/server/domain/source/contract-validation";
import { descriptorHash } from "@/server/domain/source/descriptor-detection";
import { baselineContract, markConfirmed } from "@/server/domain/source/revisions.service";
import type { TCapabilityEntry, TDescriptor } from "@/server/domain/source/source.types";
import { requestDeployment } from "./deployments.service";

/**
 * The second half of deploy on push (docs/decisions.md "Deploy on push"): a
 * delivery whose freeze has finished is claimed (FOR UPDATE SKIP LOCKED, so
 * any number of workers can run it) and decided:
 *  - freeze rejected or failed: `failed`, with the freeze's reason;
 *  - no confirmed revision before (the first one is always the owner's), the
 *    runtime descriptor changed, or the capability contract asks for more
 *    than the product's current one, or was rejected: `awaiting_owner`: the
 *    revision waits on its page, as a manual freeze does;
 *  - otherwise the revision is confirmed on behalf of the hook's creator
 *    (still a developer or more of the workspace) and deployed to preview:
 *    `deployed`, with the deployment's id.
 * "Unchanged descriptor": the new detected descriptor, with the fields an
 * owner set by hand on the last confirmed revision carried over, hashes the
 * same as that revision's confirmed descriptor.
 */
const LEASE_SECONDS = 120;

type TDecision = {
  status: "deployed" | "awaiting_owner" | "failed";
  reason: string | null;
  message: string | null;
  deploymentId?: string;
};

/** The new descriptor with the developer-set fields of the previous confirmation carried over. */
export function carryDeveloperFields(next: TDescriptor, prev: TDescriptor): TDescriptor {
  const out = structuredClone(next) as TDescriptor & Record<string, unknown>;
  out.field_sources = { ...next.field_sources };
  for (const [key, source] of Object.entries(prev.field_sources ?? {})) {
    if (source !== "developer") continue;
    out.field_sources[key] = "developer";
    const [top, sub] = key.split(".");
    const prevRec = prev as unknown as Record<string, Record<string, unknown> | undefined>;
    if (sub && top === "build_plan" && prev.build_plan && out.build_plan) {
      (out.build_plan as unknown as Record<string, unknown>)[sub] = structuredClone(
        (prev.build_plan as unknown as Record<string, unknown>)[sub],
      );
    } else if (!sub) {
      out[top!] = structuredClone(prevRec[top!]);
    }
  }
  return out;
}

async function decide(d: PushDelivery, rev: Revision, hookCreator: string): Promise<TDecision> {
  const ws = d.workspaceId;
  const prev = await scopedDb(ws).revision.findFirst({
    where: { productId: d.productId, descriptorStatus: "confirmed", id: { not: rev.id } },
    orderBy: [{ confirmedAt: "desc" }, { id: "desc" }],
  });
  if (!prev)
    return {
      status: "awaiting_owner",
      reason: "first_revision",
      message: "The product has no confirmed revision yet: an owner confirms the first one on its revision page.",
    };
  if (rev.contractStatus === "rejected") {
    const why = (rev.contractRejection as { reason?: string; message?: string } | null) ?? {};
    return {
      status: "failed",
      reason: "contract_rejected",
      message: `The capability contract was rejected (${why.reason ?? "rejected"}${why.message ? `: ${why.message}` : ""}); fix capabilities.json and push again.`,
    };
  }
  const descriptor = carryDeveloperFields(
    rev.descriptor as unknown as TDescriptor,
    prev.descriptor as unknown as TDescriptor,
  );
  if (descriptorHash(descriptor) !== descriptorHash(prev.descriptor as unknown as TDescriptor)) {
    return {
      status: "awaiting_owner",
      reason: "descriptor_changed",
      message:
        "The runtime descriptor changed since the last confirmed revision: review and confirm it on the revision page.",
    };
  }
  const capabilities = rev.contractStatus === "valid" ? (rev.capabilities as unknown as TCapabilityEntry[]) : null;
  const baseline = (await baselineContract(ws, d.productId, rev.id)) ?? [];
  const widening = capabilities ? isWidening(baseline, capabilities) : { widened: false };
  if (widening.widened) {
    return {
      status: "awaiting_owner",
      reason: "contract_widened",
      message: `The capability contract asks for more than the product's current one (${widening.why}): an owner or admin approves it on the revision page.`,
    };
  }
  const member = await scopedDb(ws).membership.findFirst({ where: { userId: hookCreator } });
  if (!member || !roleAtLeast(member.role as TRole, "developer")) {
    return {
      status: "awaiting_owner",
      reason: "hook_creator_not_member",
      message:
        "Whoever set up the push hook is no longer a developer of this workspace: an owner confirms the revision, and may recreate the hook.",
    };
  }
  const by = {
    userId: hookCreator,
    correlationId: (await scopedDb(ws).sourceFreeze.findUniqueOrThrow({ where: { id: d.freezeId! } })).correlationId,
  };
  try {
    await markConfirmed(ws, d.productId, rev.id, descriptor, capabilities, by);
  } catch (err) {
    // Confirmed meanwhile by an owner: deploy it all the same.
    if (!(err instanceof AppError && err.reason === "already_confirmed")) throw err;
  }
  try {
    const dep = await requestDeployment(by, ws, rev.id, { environment_type: "preview" });
    return {
      status: "deployed",
      reason: dep.status === "blocked" ? (dep.reason_code ?? "blocked") : null,
      message: dep.status === "blocked" ? "The deployment was blocked: its page says why." : null,
      deploymentId: dep.id,
    };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: "failed", reason: err.reason ?? err.code, message: err.message };
  }
}

export async function processPushDeliveries(limit = 4): Promise<number> {
  // platform-scoped: the claim scans every workspace's deliveries whose freeze has finished.
  const claimed = await db().$queryRaw<{ id: string }[]>`
    UPDATE push_deliveries SET locked_until = now() + make_interval(secs => ${LEASE_SECONDS}), updated_at = now()
     WHERE id IN (
       SELECT d.id FROM push_deliveries d JOIN source_freezes f ON f.id = d.freeze_id
        WHERE d.status = 'freezing' AND f.status <> 'pending' AND (d.locked_until IS NULL OR d.locked_until < now())
        ORDER BY d.created_at LIMIT ${limit} FOR UPDATE OF d SKIP LOCKED)
    RETURNING id`;
  for (const { id } of claimed) {
    await processOne(id).catch((err: unknown) =>
      logger.error("push_delivery.failed", { push_delivery_id: id, error: String(err) }),
    );
  }
  return claimed.length;
}

async function processOne(id: string): Promise<void> {
  // platform-scoped: a claimed delivery read by id; its row names the workspace, everything after is scoped to it.
  const d = await db().pushDelivery.findUniqueOrThrow({
    where: { id },
    include: { hook: { select: { createdBy: true } } },
  });
  const sdb = scopedDb(d.workspaceId);
  const freeze = await sdb.sourceFreeze.findUniqueOrThrow({ where: { id: d.freezeId! } });
  let decision: TDecision;
  if (freeze.status !== "frozen") {
    const detail = (freeze.problem as { detail?: string } | null)?.detail;
    decision = {
      status: "failed",
      reason: `freeze_${freeze.status}`,
      message: `The source freeze ${freeze.status}${detail ? `: ${detail}` : ""}`,
    };
  } else {
    decision = await decide(
      d,
      await sdb.revision.findUniqueOrThrow({ where: { id: d.revisionId! } }),
      d.hook.createdBy,
    );
  }
  await sdb.pushDelivery.updateMany({
    where: { id, status: "freezing" },
    data: {
      status: decision.status,
      reasonCode: decision.reason,
      message: decision.message?.slice(0, 1000) ?? null,
      deploymentId: decision.deploymentId ?? null,
      lockedUntil: null,
      commitSha: d.commitSha ?? freeze.commitSha,
      updatedAt: new Date(),
    },
  });
}
