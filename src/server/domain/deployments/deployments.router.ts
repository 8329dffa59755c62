import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { DEPLOYMENT_STATES } from "./deployments.states";
import {
  ZDeployment,
  ZDeploymentList,
  ZDeploymentLogs,
  ZDeploymentRequest,
  ZPipelineRun,
  ZSurface,
  ZSurfaceList,
} from "./deployments.contract";
import * as deployments from "./deployments.service";
import * as logs from "./logs.service";
import * as surfaces from "./surfaces.service";

const tags = ["Deployments and surfaces"];
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const deploymentsRouter = router({
  create: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/revisions/{rev}/deployments",
        tags,
        summary: "Deploy a confirmed revision to preview, staging or production (runs asynchronously)",
      },
      successStatus: 202,
    })
    .input(ZDeploymentRequest.extend({ ws: zWorkspaceId, rev: zId("rev") }))
    .output(ZDeployment)
    .mutation(({ ctx, input }) =>
      deployments.requestDeployment(caller(ctx), ctx.workspace.workspaceId, input.rev, input),
    ),

  list: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/deployments", tags, summary: "List deployments" } })
    .input(
      zListQuery.extend({
        revision_id: zId("rev").optional(),
        release_id: zId("rel").optional(),
        product_id: zId("prod").optional(),
        status: z.enum(DEPLOYMENT_STATES).optional(),
      }),
    )
    .output(ZDeploymentList)
    .query(({ ctx, input }) => deployments.listDeployments(ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("viewer")
    .meta({
      openapi: { method: "GET", path: "/v1/workspaces/{ws}/deployments/{dep}", tags, summary: "Get a deployment" },
    })
    .input(z.object({ dep: zId("dep") }))
    .output(ZDeployment)
    .query(({ ctx, input }) => deployments.getDeployment(ctx.workspace.workspaceId, input.dep)),

  stop: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/deployments/{dep}:stop",
        tags,
        summary: "Stop a deployment: its process ends, its surface expires (409 when it already ended)",
      },
    })
    .input(z.strictObject({ ws: zWorkspaceId, dep: zId("dep") }))
    .output(ZDeployment)
    .mutation(({ ctx, input }) => deployments.stopDeployment(caller(ctx), ctx.workspace.workspaceId, input.dep)),

  logs: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/deployments/{dep}/logs",
        tags,
        summary:
          "Build steps, the build log and the run log (every line timestamped; `since` to follow, `q` to search; the whole log: .../logs/download)",
      },
    })
    .input(
      z.object({
        dep: zId("dep"),
        tail_bytes: z.coerce.number().int().min(1).max(1_048_576).default(65_536),
        since: z.coerce
          .number()
          .int()
          .min(0)
          .optional()
          .describe("A byte offset (the previous answer's run_log_end): the run log from there on"),
        q: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe("Keep only the lines containing this text (case-insensitive), searched over the whole kept log"),
      }),
    )
    .output(ZDeploymentLogs)
    .query(({ ctx, input }) => logs.deploymentLogs(ctx.workspace.workspaceId, input.dep, input)),

  pipelineRun: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/pipeline-runs/{pipe}",
        tags,
        summary: "Get a pipeline run (the preview pipeline of a deployment)",
      },
    })
    .input(z.object({ pipe: zId("pipe") }))
    .output(ZPipelineRun)
    .query(({ ctx, input }) => deployments.getPipelineRun(ctx.workspace.workspaceId, input.pipe)),

  surfaces: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/surfaces", tags, summary: "List surfaces" } })
    .input(zListQuery.extend({ product_id: zId("prod").optional(), deployment_id: zId("dep").optional() }))
    .output(ZSurfaceList)
    .query(({ ctx, input }) => surfaces.listSurfaces(ctx.workspace.workspaceId, input)),

  surface: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/surfaces/{srf}", tags, summary: "Get a surface" } })
    .input(z.object({ srf: zId("srf") }))
    .output(ZSurface)
    .query(({ ctx, input }) => surfaces.getSurface(ctx.workspace.workspaceId, input.srf)),
});
