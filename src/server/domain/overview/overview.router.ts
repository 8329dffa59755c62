import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { ZOverview, ZUsageSeries, ZUsageSeriesQuery } from "./overview.contract";
import { getOverview } from "./overview.service";
import { usageSeries } from "./usage-series.service";

const tags = ["Workspace overview"];

export const overviewRouter = router({
  get: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/overview",
        tags,
        summary: "What is live per environment, this month's spend and the last 7 days' failures that need action",
      },
    })
    .output(ZOverview)
    .query(({ ctx }) => getOverview(ctx.workspace.workspaceId, ctx.workspace.role)),

  usage: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/usage-series",
        tags,
        summary: "Bridge calls, usage and spend per UTC day, by capability and by product",
      },
    })
    .input(ZUsageSeriesQuery)
    .output(ZUsageSeries)
    .query(({ ctx, input }) => usageSeries(ctx.workspace.workspaceId, input)),
});
