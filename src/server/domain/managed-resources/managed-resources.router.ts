import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZManagedResource,
  ZManagedResourceAttachRequest,
  ZManagedResourceCreated,
  ZManagedResourceList,
  ZManagedResourceListQuery,
  ZManagedResourceRequest,
  ZMresDeleteQuery,
  ZMresPath,
} from "./managed-resources.contract";
import * as mres from "./managed-resources.service";
import { backupsRouter } from "./backups.router";
import { credentialsRouter } from "./credentials.router";
import { objectsRouter } from "./objects.router";

/** Spec 4.4 managed resources: reads for members, writes for owner/admin. */
const tags = ["Managed resources"];
const base = "/v1/workspaces/{ws}/managed-resources";
const caller = (ctx: {
  principal: { userId: string };
  workspace: { role: Parameters<typeof mres.deleteResource>[0]["role"] };
  correlationId: string;
}) => ({
  userId: ctx.principal.userId,
  role: ctx.workspace.role,
  correlationId: ctx.correlationId,
});

export const managedResourcesRouter = router({
  backups: backupsRouter,
  credentials: credentialsRouter,
  objects: objectsRouter,

  list: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: base,
        tags,
        summary: "List managed resources (deleted ones only with include_deleted=true)",
      },
    })
    .input(ZManagedResourceListQuery)
    .output(ZManagedResourceList)
    .query(({ ctx, input }) => mres.listResources(ctx.workspace.workspaceId, input)),

  create: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: base,
        tags,
        summary:
          "Create a managed PostgreSQL database or object bucket (provisioned by the worker); the response is the only one that shows its password",
      },
      successStatus: 201,
    })
    .input(ZManagedResourceRequest.extend({ ws: zWorkspaceId }))
    .output(ZManagedResourceCreated)
    .mutation(({ ctx, input }) => mres.createResource(caller(ctx), ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/{mres}`,
        tags,
        summary: "Get a managed resource: status, attachment, size and the deployments using it (never its password)",
      },
    })
    .input(z.object({ mres: zId("mres") }))
    .output(ZManagedResource)
    .query(({ ctx, input }) => mres.getResource(ctx.workspace.workspaceId, input.mres)),

  delete: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "DELETE",
        path: `${base}/{mres}`,
        tags,
        summary:
          "Schedule a detached resource's destruction after the grace period (409 while attached); reattach restores it until then",
      },
      successStatus: 202,
    })
    .input(ZMresDeleteQuery)
    .output(ZManagedResource)
    .mutation(({ ctx, input }) =>
      mres.deleteResource(caller(ctx), ctx.workspace.workspaceId, input.mres, {
        skipGrace: input.skip_grace_period === "true",
      }),
    ),

  detach: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{mres}/detach`,
        tags,
        summary: "Detach a resource from its product: the data is kept, new deployments no longer receive it",
      },
    })
    .input(ZMresPath.strict())
    .output(ZManagedResource)
    .mutation(({ ctx, input }) => mres.detachResource(caller(ctx), ctx.workspace.workspaceId, input.mres)),

  reattach: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{mres}/reattach`,
        tags,
        summary: "Attach a detached resource to a product of the workspace (restores one scheduled for deletion)",
      },
    })
    .input(ZManagedResourceAttachRequest.extend({ ws: zWorkspaceId, mres: zId("mres") }))
    .output(ZManagedResource)
    .mutation(({ ctx, input }) => mres.reattachResource(caller(ctx), ctx.workspace.workspaceId, input.mres, input)),
});
