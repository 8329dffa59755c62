import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZManagedResource } from "./managed-resources.contract";
import {
  ZCredentialPath,
  ZCredentialsRotated,
  ZReadOnlyCredentialCreated,
  ZRotateCredentialsRequest,
} from "./credentials.contract";
import * as creds from "./credentials.service";

/** Credentials of postgres resources (docs/decisions.md "Credentials: rotation with an overlap, read-only roles"): admins rotate and manage the read-only credential. */
const tags = ["Managed resources"];
const base = "/v1/workspaces/{ws}/managed-resources/{mres}";
const caller = (ctx: {
  principal: { userId: string };
  workspace: { role: Parameters<typeof creds.rotateCredentials>[0]["role"] };
  correlationId: string;
}) => ({
  userId: ctx.principal.userId,
  role: ctx.workspace.role,
  correlationId: ctx.correlationId,
});

export const credentialsRouter = router({
  rotate: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}:rotate-credentials`,
        tags,
        summary:
          "Rotate an attached database's password: a new login role (password shown once); the old one works until previous_secret_expires_in has passed (default 24 h, at most 7 days), then it is dropped",
      },
    })
    .input(ZRotateCredentialsRequest.extend({ ws: zWorkspaceId, mres: zId("mres") }))
    .output(ZCredentialsRotated)
    .mutation(({ ctx, input }) => creds.rotateCredentials(caller(ctx), ctx.workspace.workspaceId, input.mres, input)),

  revokePrevious: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}:revoke-previous-credentials`,
        tags,
        summary:
          "End a rotation's overlap now: the previous login role is refused, its sessions ended and it is dropped (idempotent)",
      },
    })
    .input(ZCredentialPath)
    .output(ZManagedResource)
    .mutation(({ ctx, input }) => creds.revokePreviousCredentials(caller(ctx), ctx.workspace.workspaceId, input.mres)),

  createReadOnly: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/read-only-credential`,
        tags,
        summary:
          "Create the database's read-only credential (SELECT on every table, including later ones); its password is shown once",
      },
      successStatus: 201,
    })
    .input(ZCredentialPath)
    .output(ZReadOnlyCredentialCreated)
    .mutation(({ ctx, input }) => creds.createReadOnlyCredential(caller(ctx), ctx.workspace.workspaceId, input.mres)),

  revokeReadOnly: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "DELETE",
        path: `${base}/read-only-credential`,
        tags,
        summary: "Revoke the read-only credential: refused at once, its sessions ended and its role dropped",
      },
    })
    .input(ZCredentialPath)
    .output(ZManagedResource)
    .mutation(({ ctx, input }) => creds.revokeReadOnlyCredential(caller(ctx), ctx.workspace.workspaceId, input.mres)),
});
