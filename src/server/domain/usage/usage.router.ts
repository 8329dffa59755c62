import { z } from "zod";
import { zWorkspaceId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { USAGE_CATEGORIES, ZBudget, ZBudgetList, ZBudgetRequest, ZPlan, ZPlanRequest } from "./usage.contract";
import { getPlan, setPlan } from "./plan.service";
import { listBudgets, setBudgetLimit } from "./budget.service";

const tags = ["Plan and budgets"];

export const usageRouter = router({
  plan: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/plan",
        tags,
        summary: "Get the workspace plan and entitlements",
      },
    })
    .output(ZPlan)
    .query(({ ctx }) => getPlan(ctx.workspace.workspaceId)),

  setPlan: workspaceProcedure("admin")
    .meta({ openapi: { method: "PUT", path: "/v1/workspaces/{ws}/plan", tags, summary: "Change the plan" } })
    .input(ZPlanRequest.extend({ ws: zWorkspaceId }))
    .output(ZPlan)
    .mutation(({ ctx, input }) =>
      setPlan(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.plan,
      ),
    ),

  budgets: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/budgets",
        tags,
        summary: "This UTC month's budget per usage category",
      },
    })
    .output(ZBudgetList)
    .query(({ ctx }) => listBudgets(ctx.workspace.workspaceId)),

  setBudget: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/workspaces/{ws}/budgets/{category}",
        tags,
        summary: "Set a monthly budget limit (null = unlimited)",
      },
    })
    .input(ZBudgetRequest.extend({ ws: zWorkspaceId, category: z.enum(USAGE_CATEGORIES) }))
    .output(ZBudget)
    .mutation(({ ctx, input }) =>
      setBudgetLimit(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.category,
        input.limit_units,
      ),
    ),
});
