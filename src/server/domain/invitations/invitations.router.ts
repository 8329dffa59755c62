import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { authedProcedure, publicProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZInvitation,
  ZInvitationAccept,
  ZInvitationAccepted,
  ZInvitationCreate,
  ZInvitationList,
  ZInvitationListQuery,
  ZInvitationSignUp,
} from "./invitations.contract";
import * as svc from "./invitations.service";
import { acceptInvitation, signUpAndAccept } from "./accept.service";

const tags = ["Workspaces"];
const base = "/v1/workspaces/{ws}/invitations";

export const invitationsRouter = router({
  create: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: base,
        tags,
        summary: "Invite someone by email (owner or admin; 409 when already a member or invited)",
      },
      successStatus: 201,
    })
    .input(ZInvitationCreate.extend({ ws: zWorkspaceId }))
    .output(ZInvitation)
    .mutation(({ ctx, input }) =>
      svc.createInvitation(
        { userId: ctx.principal.userId, role: ctx.workspace.role, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input,
      ),
    ),

  list: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "GET",
        path: base,
        tags,
        summary: "List invitations (default: pending ones that have not expired)",
      },
    })
    .input(ZInvitationListQuery)
    .output(ZInvitationList)
    .query(({ ctx, input }) => svc.listInvitations(ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("admin")
    .meta({ openapi: { method: "GET", path: `${base}/{invt}`, tags, summary: "Get an invitation" } })
    .input(z.object({ invt: zId("invt") }))
    .output(ZInvitation)
    .query(({ ctx, input }) => svc.getInvitation(ctx.workspace.workspaceId, input.invt)),

  resend: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{invt}/resend`,
        tags,
        summary:
          "Email the invitation again with a new link and a new expiry (the old link stops working; rate-limited)",
      },
      extraErrorStatuses: [429],
    })
    .input(z.strictObject({ ws: zWorkspaceId, invt: zId("invt") }))
    .output(ZInvitation)
    .mutation(({ ctx, input }) =>
      svc.resendInvitation(
        { userId: ctx.principal.userId, role: ctx.workspace.role, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.invt,
      ),
    ),

  revoke: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "DELETE",
        path: `${base}/{invt}`,
        tags,
        summary: "Revoke a pending invitation (its link stops working)",
      },
    })
    .input(z.object({ invt: zId("invt") }))
    .output(ZInvitation)
    .mutation(({ ctx, input }) =>
      svc.revokeInvitation(
        { userId: ctx.principal.userId, role: ctx.workspace.role, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.invt,
      ),
    ),

  accept: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/invitations/accept",
        tags,
        summary: "Accept an invitation as the signed-in user (the account's email must be the invited address)",
      },
    })
    .input(ZInvitationAccept)
    .output(ZInvitationAccepted)
    .mutation(({ ctx, input }) => acceptInvitation(ctx.principal.userId, input.token, ctx.correlationId)),

  /** Console only: a person without an account accepts by choosing a name and password. */
  signUp: publicProcedure
    .input(ZInvitationSignUp)
    .mutation(({ ctx, input }) => signUpAndAccept(input, ctx.correlationId)),
});
