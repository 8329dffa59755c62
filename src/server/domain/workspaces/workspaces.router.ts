import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { authedProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZMember,
  ZMemberAdd,
  ZMemberList,
  ZMemberPut,
  ZWorkspace,
  ZWorkspaceCreate,
  ZWorkspaceList,
  ZWorkspaceRename,
} from "./workspaces.contract";
import { peopleOf } from "./people.service";
import * as svc from "./workspaces.service";

const tags = ["Workspaces"];

export const workspacesRouter = router({
  list: authedProcedure
    .meta({ openapi: { method: "GET", path: "/v1/workspaces", tags, summary: "List the caller's workspaces" } })
    .input(zListQuery)
    .output(ZWorkspaceList)
    .query(({ ctx, input }) => svc.listWorkspaces(ctx.principal.userId, input)),

  create: authedProcedure
    .meta({
      openapi: { method: "POST", path: "/v1/workspaces", tags, summary: "Create a workspace (you become its owner)" },
      successStatus: 201,
    })
    .input(ZWorkspaceCreate)
    .output(ZWorkspace)
    .mutation(({ ctx, input }) =>
      svc.createWorkspace({ userId: ctx.principal.userId, correlationId: ctx.correlationId }, input.name),
    ),

  get: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}", tags, summary: "Get a workspace" } })
    .output(ZWorkspace)
    .query(({ ctx }) => svc.getWorkspace(ctx.workspace.workspaceId, ctx.workspace.role)),

  rename: workspaceProcedure("admin")
    .meta({
      openapi: { method: "PATCH", path: "/v1/workspaces/{ws}", tags, summary: "Rename a workspace (owner or admin)" },
    })
    .input(ZWorkspaceRename.extend({ ws: zWorkspaceId }))
    .output(ZWorkspace)
    .mutation(({ ctx, input }) =>
      svc.renameWorkspace(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId, role: ctx.workspace.role },
        ctx.workspace.workspaceId,
        input.name,
      ),
    ),

  members: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/members", tags, summary: "List members" } })
    .input(zListQuery)
    .output(ZMemberList)
    .query(({ ctx, input }) => svc.listMembers(ctx.workspace.workspaceId, input)),

  putMember: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/workspaces/{ws}/members/{usr}",
        tags,
        summary: "Add a member or change their role",
      },
    })
    .input(ZMemberPut.extend({ ws: zWorkspaceId, usr: zId("usr") }))
    .output(ZMember)
    .mutation(async ({ ctx, input }) => {
      const caller = { userId: ctx.principal.userId, correlationId: ctx.correlationId };
      return (await svc.upsertMember(caller, ctx.workspace.workspaceId, { userId: input.usr }, input.role)).member;
    }),

  /** Console only (no REST route): names and emails for the `usr_` ids a page shows. */
  people: workspaceProcedure("viewer")
    .input(z.object({ ws: zWorkspaceId, ids: z.array(zId("usr")).max(200) }))
    .query(({ ctx, input }) => peopleOf(ctx.workspace.workspaceId, input.ids)),

  addMember: workspaceProcedure("admin")
    .meta({
      openapi: { method: "POST", path: "/v1/workspaces/{ws}/members", tags, summary: "Add a member by email" },
      successStatus: 201,
    })
    .input(ZMemberAdd.extend({ ws: zWorkspaceId }))
    .output(ZMember)
    .mutation(async ({ ctx, input }) => {
      const caller = { userId: ctx.principal.userId, correlationId: ctx.correlationId };
      return (await svc.upsertMember(caller, ctx.workspace.workspaceId, { email: input.email }, input.role)).member;
    }),
});
