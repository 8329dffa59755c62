import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { ZCredential, ZCredentialList, ZCredentialListQuery, ZCredentialRequest } from "./credentials.contract";
import * as credentials from "./credentials.service";

const tags = ["Credentials and provider bindings"];
const base = "/v1/workspaces/{ws}/credentials";

/**
 * Credentials are admin-only, reads included (design decisions: "Credentials,
 * bindings, service identities: admin"). On ws_platform they are platform
 * credentials, so only owners and admins of ws_platform manage those.
 */
export const credentialsRouter = router({
  create: workspaceProcedure("admin")
    .meta({
      openapi: { method: "POST", path: base, tags, summary: "Store a credential (the secret is write-only)" },
      successStatus: 201,
    })
    .input(ZCredentialRequest.extend({ ws: zWorkspaceId }))
    .output(ZCredential)
    .mutation(({ ctx, input }) => {
      const { ws: _ws, ...body } = input;
      return credentials.createCredential(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        body,
      );
    }),

  list: workspaceProcedure("admin")
    .meta({ openapi: { method: "GET", path: base, tags, summary: "List credentials (metadata only)" } })
    .input(ZCredentialListQuery)
    .output(ZCredentialList)
    .query(({ ctx, input }) => credentials.listCredentials(ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("admin")
    .meta({ openapi: { method: "GET", path: `${base}/{cred}`, tags, summary: "Get a credential (metadata only)" } })
    .input(z.object({ cred: zId("cred") }))
    .output(ZCredential)
    .query(({ ctx, input }) => credentials.getCredential(ctx.workspace.workspaceId, input.cred)),

  revoke: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{cred}:revoke`,
        tags,
        summary: "Revoke permanently; bindings using it are revoked too",
      },
    })
    .input(z.object({ cred: zId("cred") }))
    .output(ZCredential)
    .mutation(({ ctx, input }) =>
      credentials.revokeCredential(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.cred,
      ),
    ),
});
