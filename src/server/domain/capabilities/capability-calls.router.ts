import { z } from "zod";
import { zId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZCapabilityCall,
  ZCapabilityCallList,
  ZCapabilityCallListQuery,
  ZCapabilityCallSearchQuery,
} from "./capability-calls.contract";
import { getCapabilityCall, listCapabilityCalls } from "./capability-calls.service";

const tags = ["Capability invocations"];

export const capabilityCallsRouter = router({
  list: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/capability-invocations",
        tags,
        summary: "Bridge calls with outcome, reason, provider and usage",
      },
    })
    .input(ZCapabilityCallListQuery)
    .output(ZCapabilityCallList)
    .query(({ ctx, input }) => listCapabilityCalls(ctx.workspace.workspaceId, input)),

  /** Console only (no REST path): the list with the console's extra filters (reason, service identity, time window). */
  search: workspaceProcedure("viewer")
    .input(ZCapabilityCallSearchQuery)
    .output(ZCapabilityCallList)
    .query(({ ctx, input }) => listCapabilityCalls(ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/capability-invocations/{cap}",
        tags,
        summary: "One Bridge call with content summaries (sizes and hashes)",
      },
    })
    .input(z.object({ cap: zId("cap") }))
    .output(ZCapabilityCall)
    .query(({ ctx, input }) => getCapabilityCall(ctx.workspace.workspaceId, input.cap)),
});
