import { z } from "zod";
import { zId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { ZCapabilityInvocation, ZCapabilityInvocationList, ZInvocationListQuery, ZInvocationSearchQuery } from "./invocations.contract";
import { getInvocation, listInvocations } from "./invocations.service";

const tags = ["Capability invocations"];

export const invocationsRouter = router({
  list: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/capability-invocations", tags, summary: "Bridge calls with outcome, reason, provider and usage" } })
    .input(ZInvocationListQuery)
    .output(ZCapabilityInvocationList)
    .query(({ ctx, input }) => listInvocations(ctx.workspace.workspaceId, input)),

  /** Console only (no REST path): the list with the console's extra filters (reason, service identity, time window). */
  search: workspaceProcedure("viewer")
    .input(ZInvocationSearchQuery)
    .output(ZCapabilityInvocationList)
    .query(({ ctx, input }) => listInvocations(ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/capability-invocations/{cap}", tags, summary: "One Bridge call with content summaries (sizes and hashes)" } })
    .input(z.object({ cap: zId("cap") }))
    .output(ZCapabilityInvocation)
    .query(({ ctx, input }) => getInvocation(ctx.workspace.workspaceId, input.cap)),
});
