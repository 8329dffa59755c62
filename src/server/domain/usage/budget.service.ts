import type { Budget } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { emitEvent } from "@/server/platform/outbox";
import { scopedDb } from "@/server/platform/db/scoped";
import { iso, utcMonth } from "@/server/platform/time";
import { USAGE_CATEGORIES, type TBudget, type TUsageCategory } from "./usage.contract";

/** Stable per workspace + category + month, readable in logs. */
export function budgetId(workspaceId: string, category: TUsageCategory, month: string): string {
  return `bgt_${workspaceId}_${category}_${month}`;
}

function toBudget(b: Budget): TBudget {
  return {
    id: b.id,
    workspace_id: b.workspaceId,
    usage_category: b.usageCategory as TUsageCategory,
    month: b.month,
    limit_units: b.limitUnits,
    used_units: b.usedUnits,
    reserved_units: b.reservedUnits,
    created_at: iso(b.createdAt),
    updated_at: iso(b.updatedAt),
  };
}

/**
 * Materialises this month's four budget rows (a new month starts with the
 * previous month's limits, or unlimited) and returns them in category order.
 */
export async function ensureMonthBudgets(workspaceId: string, month = utcMonth()): Promise<Budget[]> {
  const scoped = scopedDb(workspaceId);
  const existing = await scoped.budget.findMany({ where: { month } });
  if (existing.length < USAGE_CATEGORIES.length) {
    const have = new Set(existing.map((b) => b.usageCategory));
    const missing = USAGE_CATEGORIES.filter((c) => !have.has(c));
    const previous = await scoped.budget.findMany({
      where: { usageCategory: { in: missing }, month: { lt: month } },
      orderBy: { month: "desc" },
      distinct: ["usageCategory"],
    });
    const carried = new Map(previous.map((b) => [b.usageCategory, b.limitUnits]));
    await scoped.budget.createMany({
      data: missing.map((c) => ({
        id: budgetId(workspaceId, c, month),
        workspaceId,
        usageCategory: c,
        month,
        limitUnits: carried.get(c) ?? null,
      })),
      skipDuplicates: true,
    });
  }
  const rows = await scoped.budget.findMany({ where: { month } });
  return USAGE_CATEGORIES.map((c) => rows.find((r) => r.usageCategory === c)!);
}

export async function listBudgets(workspaceId: string): Promise<{ items: TBudget[]; next_cursor: null }> {
  return { items: (await ensureMonthBudgets(workspaceId)).map(toBudget), next_cursor: null };
}

export async function setBudgetLimit(
  caller: { userId: string; correlationId: string },
  workspaceId: string,
  category: TUsageCategory,
  limitUnits: number | null,
): Promise<TBudget> {
  const month = utcMonth();
  await ensureMonthBudgets(workspaceId, month);
  return scopedDb(workspaceId).$transaction(async (tx) => {
    const id = budgetId(workspaceId, category, month);
    const before = await tx.budget.findUniqueOrThrow({ where: { id } });
    const row = await tx.budget.update({ where: { id }, data: { limitUnits, updatedAt: new Date() } });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "budget.changed",
      target: { kind: "budget", id },
      correlationId: caller.correlationId,
      details: { usage_category: category, month, from: before.limitUnits, to: limitUnits },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "budget.changed",
      correlationId: caller.correlationId,
      subject: id,
      data: { workspace_id: workspaceId, budget_id: id, usage_category: category, month, limit_units: limitUnits },
    });
    return toBudget(row);
  });
}
