import { z } from "zod";
import { zWorkspaceId } from "@/server/platform/ids";

/** Spec 2.15: plans, entitlements and monthly budgets per usage category. */
export const PLANS = ["free", "team", "enterprise"] as const;
export type TPlanName = (typeof PLANS)[number];
export const USAGE_CATEGORIES = ["ai_tokens", "runtime", "provider_call", "storage"] as const;
export type TUsageCategory = (typeof USAGE_CATEGORIES)[number];

export const ZPlanRequest = z.strictObject({ plan: z.enum(PLANS) }).meta({ id: "PlanRequest" });

export const ZEntitlements = z.object({
  ai_tokens: z.boolean(),
  runtime: z.boolean(),
  provider_call: z.boolean(),
  storage: z.boolean(),
});

export const ZPlan = z
  .object({
    id: zWorkspaceId,
    workspace_id: zWorkspaceId,
    plan: z.enum(PLANS),
    entitlements: ZEntitlements,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Plan" });
export type TPlan = z.infer<typeof ZPlan>;

export const ZBudgetRequest = z
  .strictObject({ limit_units: z.number().min(0).nullable() })
  .meta({ id: "BudgetRequest", description: "limit_units: a number >= 0, or null for unlimited" });

export const ZBudget = z
  .object({
    id: z.string(),
    workspace_id: zWorkspaceId,
    usage_category: z.enum(USAGE_CATEGORIES),
    month: z.string().regex(/^\d{4}-\d{2}$/),
    limit_units: z.number().min(0).nullable(),
    used_units: z.number().min(0),
    reserved_units: z.number().min(0),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Budget" });
export type TBudget = z.infer<typeof ZBudget>;

export const ZBudgetList = z.object({ items: z.array(ZBudget), next_cursor: z.null() }).meta({ id: "Budgets" });
