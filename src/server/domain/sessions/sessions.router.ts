import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { authedProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZAccess,
  ZAccessList,
  ZInvocation,
  ZInvocationCreateRequest,
  ZInvocationList,
  ZPendingOperation,
  ZPendingOperationList,
  ZPendingResolution,
  ZSession,
  ZSessionCreateRequest,
  ZSessionList,
} from "./sessions.contract";
import * as accesses from "./access.service";
import * as invocations from "./invocations.service";
import { InvocationTiming } from "./invocation-timing";
import * as pending from "./pending.service";
import * as sessions from "./sessions.service";

const tags = ["Sessions and invocations"];
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const sessionsRouter = router({
  requestAccess: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/surfaces/{srf}/access",
        tags,
        summary: "Qualify (or reuse) the caller's access to a surface",
      },
    })
    .input(z.strictObject({ srf: zId("srf") }))
    .output(ZAccess)
    .mutation(({ ctx, input }) => accesses.requestAccess(caller(ctx), input.srf)),

  listAccesses: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/accesses",
        tags,
        summary: "List accesses to the workspace's surfaces",
      },
    })
    .input(zListQuery.extend({ surface_id: zId("srf").optional() }))
    .output(ZAccessList)
    .query(({ ctx, input }) => accesses.listAccesses(ctx.workspace.workspaceId, input)),

  revokeAccess: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/accesses/{acc}:revoke",
        tags,
        summary: "Revoke an access; its sessions close",
      },
    })
    .input(z.strictObject({ ws: zWorkspaceId, acc: zId("acc") }))
    .output(ZAccess)
    .mutation(({ ctx, input }) => accesses.revokeAccess(caller(ctx), ctx.workspace.workspaceId, input.acc)),

  open: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/sessions",
        tags,
        summary: "Open a session on a surface (qualifies access as needed)",
      },
      successStatus: 201,
    })
    .input(ZSessionCreateRequest)
    .output(ZSession)
    .mutation(({ ctx, input }) => sessions.openSession(caller(ctx), input.surface_id)),

  get: authedProcedure
    .meta({ openapi: { method: "GET", path: "/v1/sessions/{ses}", tags, summary: "Get a session" } })
    .input(z.object({ ses: zId("ses") }))
    .output(ZSession)
    .query(({ ctx, input }) => sessions.getSession(caller(ctx), input.ses)),

  close: authedProcedure
    .meta({ openapi: { method: "POST", path: "/v1/sessions/{ses}:close", tags, summary: "Close a session" } })
    .input(z.strictObject({ ses: zId("ses") }))
    .output(ZSession)
    .mutation(({ ctx, input }) => sessions.closeSession(caller(ctx), input.ses)),

  list: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/sessions", tags, summary: "List sessions" } })
    .input(zListQuery.extend({ surface_id: zId("srf").optional(), state: z.enum(["active", "closed"]).optional() }))
    .output(ZSessionList)
    .query(({ ctx, input }) => sessions.listSessions(ctx.workspace.workspaceId, input)),

  invoke: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/sessions/{ses}/invocations",
        tags,
        summary: "Send an HTTP request through a session: admitted and executed, denied, or left pending",
      },
      successStatus: 201,
    })
    .input(ZInvocationCreateRequest.extend({ ses: zId("ses") }))
    .output(ZInvocation)
    .mutation(async ({ ctx, input }) => {
      const { ses, ...body } = input;
      // Server-Timing and Capstan-Overhead-Ms (everything but the app's own time), as the Bridge answers them.
      const timing = new InvocationTiming(ctx.startedAt);
      const out = await invocations.createInvocation(caller(ctx), ses, body, timing);
      Object.assign(ctx.resHeaders, timing.headers());
      return out;
    }),

  invocation: authedProcedure
    .meta({
      openapi: { method: "GET", path: "/v1/sessions/{ses}/invocations/{inv}", tags, summary: "Get an invocation" },
    })
    .input(z.object({ ses: zId("ses"), inv: zId("inv") }))
    .output(ZInvocation)
    .query(({ ctx, input }) => invocations.getInvocation(caller(ctx), input.ses, input.inv)),

  invocations: authedProcedure
    .meta({
      openapi: { method: "GET", path: "/v1/sessions/{ses}/invocations", tags, summary: "List a session's invocations" },
    })
    .input(zListQuery.extend({ ses: zId("ses") }))
    .output(ZInvocationList)
    .query(({ ctx, input }) => invocations.listInvocations(caller(ctx), input.ses, input)),

  pending: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/pending-operations",
        tags,
        summary: "List pending operations (invocations waiting for consent)",
      },
    })
    .input(zListQuery.extend({ status: z.enum(["pending", "approved", "denied"]).optional() }))
    .output(ZPendingOperationList)
    .query(({ ctx, input }) => pending.listPending(ctx.workspace.workspaceId, input)),

  resolve: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/pending-operations/{pend}:resolve",
        tags,
        summary: "Approve or deny a pending operation (audit pending.resolved)",
      },
    })
    .input(ZPendingResolution.extend({ ws: zWorkspaceId, pend: zId("pend") }))
    .output(z.object({ pending_operation: ZPendingOperation, invocation: ZInvocation }).meta({ id: "PendingResolved" }))
    .mutation(({ ctx, input }) => pending.resolvePending(caller(ctx), ctx.workspace.workspaceId, input.pend, input)),
});
