import type { Prisma } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { emitEvent } from "@/server/platform/outbox";
import { scopedDb } from "@/server/platform/db/scoped";
import { iso } from "@/server/platform/time";
import type { TPlan, TPlanName, TUsageCategory } from "./usage.contract";
import { signalChange } from "@/server/platform/change-signals";

/**
 * Entitlements per plan: the one table in code. A category a plan is not
 * entitled to is refused at the Bridge (usage_denied) whatever the budget.
 */
export const PLAN_ENTITLEMENTS: Record<TPlanName, Record<TUsageCategory, boolean>> = {
  free: { ai_tokens: true, runtime: true, provider_call: false, storage: true },
  team: { ai_tokens: true, runtime: true, provider_call: true, storage: true },
  enterprise: { ai_tokens: true, runtime: true, provider_call: true, storage: true },
};

function toPlan(workspaceId: string, row: { plan: string; createdAt: Date; updatedAt: Date }): TPlan {
  const plan = row.plan as TPlanName;
  return {
    id: workspaceId,
    workspace_id: workspaceId,
    plan,
    entitlements: { ...PLAN_ENTITLEMENTS[plan] },
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export async function getPlan(workspaceId: string): Promise<TPlan> {
  // Every workspace gets a plan row at creation; upsert covers ws_platform and older rows.
  const row = await scopedDb(workspaceId).plan.upsert({
    where: { workspaceId },
    create: { workspaceId, plan: "free" },
    update: {},
  });
  return toPlan(workspaceId, row);
}

export async function setPlan(
  caller: { userId: string; correlationId: string },
  workspaceId: string,
  plan: TPlanName,
): Promise<TPlan> {
  const result = await scopedDb(workspaceId).$transaction((tx) => applyPlan(tx, caller, workspaceId, plan));
  signalChange("plan", workspaceId); // the Bridge's plan caches everywhere
  return result;
}

/**
 * Sets the plan inside the caller's transaction (audit plan.changed and the
 * event when it changes). The caller signals the change after commit. `tx` is
 * the workspace's scoped transaction (setPlan, setSubscription); the plan row
 * is addressed by its key (workspace_id) all the same.
 */
export async function applyPlan(
  tx: Prisma.TransactionClient,
  caller: { userId: string; correlationId: string },
  workspaceId: string,
  plan: TPlanName,
  /** A change made by the platform itself (a scheduled subscription change applied by renewal). */
  system = false,
): Promise<TPlan> {
  const before = await tx.plan.findUnique({ where: { workspaceId } });
  const row = await tx.plan.upsert({
    where: { workspaceId },
    create: { workspaceId, plan },
    update: before?.plan === plan ? {} : { plan, updatedAt: new Date() },
  });
  if (before?.plan !== plan) {
    await writeAudit(tx, {
      workspaceId,
      actor: system ? { kind: "system", id: null } : { kind: "user", id: caller.userId },
      action: "plan.changed",
      target: { kind: "workspace", id: workspaceId },
      correlationId: caller.correlationId,
      details: { from: before?.plan ?? null, to: plan },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "plan.changed",
      correlationId: caller.correlationId,
      subject: workspaceId,
      data: { workspace_id: workspaceId, from: before?.plan ?? null, to: plan, entitlements: PLAN_ENTITLEMENTS[plan] },
    });
  }
  return toPlan(workspaceId, row);
}
