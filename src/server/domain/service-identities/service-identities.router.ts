import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZRenameRequest } from "@/server/platform/names";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { platformAdminProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZPlatformServiceIdentityRequest,
  ZRotateSecretRequest,
  ZServiceIdentity,
  ZServiceIdentityCreated,
  ZServiceIdentityList,
  ZSvcPath,
  ZWorkspaceServiceIdentityRequest,
} from "./service-identities.contract";
import * as svc from "./service-identities.service";

/**
 * Service identities: workspace routes (owner/admin of {ws}) and platform
 * routes (owner/admin of ws_platform). Creates answer 201 and honour
 * Idempotency-Key at the REST boundary; `client_secret` is a marked
 * one-time secret (platform/one-time-secret.ts), so a replay returns the
 * identity without it.
 */
const tags = ["Service identities"];
const wsBase = "/v1/workspaces/{ws}/service-identities";
const pBase = "/v1/platform/service-identities";
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const serviceIdentitiesRouter = router({
  list: workspaceProcedure("admin")
    .meta({ openapi: { method: "GET", path: wsBase, tags, summary: "List the workspace's service identities" } })
    .input(zListQuery)
    .output(ZServiceIdentityList)
    .query(({ ctx, input }) => svc.listServiceIdentities(svc.workspaceScope(ctx.workspace.workspaceId), input)),

  create: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: wsBase,
        tags,
        summary: "Create a service identity (the client secret is shown once)",
      },
      successStatus: 201,
    })
    .input(ZWorkspaceServiceIdentityRequest.extend({ ws: zWorkspaceId }))
    .output(ZServiceIdentityCreated)
    .mutation(({ ctx, input }) =>
      svc.createServiceIdentity(caller(ctx), svc.workspaceScope(ctx.workspace.workspaceId), input),
    ),

  get: workspaceProcedure("admin")
    .meta({
      openapi: { method: "GET", path: `${wsBase}/{svc}`, tags, summary: "Get a service identity (metadata only)" },
    })
    .input(z.object({ svc: zId("svc") }))
    .output(ZServiceIdentity)
    .query(({ ctx, input }) => svc.getServiceIdentity(svc.workspaceScope(ctx.workspace.workspaceId), input.svc)),

  rename: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "PATCH",
        path: `${wsBase}/{svc}`,
        tags,
        summary:
          "Rename a service identity (names are unique among identities not revoked, ignoring case: 409 name_taken)",
      },
    })
    .input(ZRenameRequest.extend({ ws: zWorkspaceId, svc: zId("svc") }))
    .output(ZServiceIdentity)
    .mutation(({ ctx, input }) =>
      svc.renameServiceIdentity(caller(ctx), svc.workspaceScope(ctx.workspace.workspaceId), input.svc, input.name),
    ),

  revoke: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "DELETE",
        path: `${wsBase}/{svc}`,
        tags,
        summary: "Revoke a service identity permanently (idempotent)",
      },
    })
    .input(z.object({ svc: zId("svc") }))
    .output(ZServiceIdentity)
    .mutation(({ ctx, input }) =>
      svc.revokeServiceIdentity(caller(ctx), svc.workspaceScope(ctx.workspace.workspaceId), input.svc),
    ),

  rotateSecret: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${wsBase}/{svc}:rotate-secret`,
        tags,
        summary:
          "Replace the client secret (shown once); the old one works until previous_secret_expires_in has passed (default: stops at once)",
      },
    })
    .input(ZRotateSecretRequest.extend({ ws: zWorkspaceId, svc: zId("svc") }))
    .output(ZServiceIdentityCreated)
    .mutation(({ ctx, input }) =>
      svc.rotateServiceIdentitySecret(caller(ctx), svc.workspaceScope(ctx.workspace.workspaceId), input.svc, {
        previousSecretExpiresIn: input.previous_secret_expires_in,
      }),
    ),

  revokePreviousSecret: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${wsBase}/{svc}:revoke-previous-secret`,
        tags,
        summary: "Stop the previous client secret now (and bridge tokens obtained with it); idempotent",
      },
    })
    .input(ZSvcPath.extend({ ws: zWorkspaceId }))
    .output(ZServiceIdentity)
    .mutation(({ ctx, input }) =>
      svc.revokePreviousServiceIdentitySecret(caller(ctx), svc.workspaceScope(ctx.workspace.workspaceId), input.svc),
    ),

  platformList: platformAdminProcedure
    .meta({ openapi: { method: "GET", path: pBase, tags, summary: "List platform service identities" } })
    .input(zListQuery)
    .output(ZServiceIdentityList)
    .query(({ input }) => svc.listServiceIdentities(svc.platformScope, input)),

  platformCreate: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: pBase,
        tags,
        summary: "Create a platform service identity (the client secret is shown once)",
      },
      successStatus: 201,
    })
    .input(ZPlatformServiceIdentityRequest)
    .output(ZServiceIdentityCreated)
    .mutation(({ ctx, input }) => svc.createServiceIdentity(caller(ctx), svc.platformScope, input)),

  platformGet: platformAdminProcedure
    .meta({ openapi: { method: "GET", path: `${pBase}/{svc}`, tags, summary: "Get a platform service identity" } })
    .input(z.object({ svc: zId("svc") }))
    .output(ZServiceIdentity)
    .query(({ input }) => svc.getServiceIdentity(svc.platformScope, input.svc)),

  platformRename: platformAdminProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: `${pBase}/{svc}`,
        tags,
        summary: "Rename a platform service identity (409 name_taken when another live one has the name)",
      },
    })
    .input(ZRenameRequest.extend({ svc: zId("svc") }))
    .output(ZServiceIdentity)
    .mutation(({ ctx, input }) => svc.renameServiceIdentity(caller(ctx), svc.platformScope, input.svc, input.name)),

  platformRevoke: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${pBase}/{svc}:revoke`,
        tags,
        summary: "Revoke a platform service identity permanently (idempotent)",
      },
    })
    .input(ZSvcPath)
    .output(ZServiceIdentity)
    .mutation(({ ctx, input }) => svc.revokeServiceIdentity(caller(ctx), svc.platformScope, input.svc)),

  platformRotateSecret: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${pBase}/{svc}:rotate-secret`,
        tags,
        summary: "Replace a platform identity's client secret (shown once), optionally keeping the old one for a while",
      },
    })
    .input(ZRotateSecretRequest.extend({ svc: zId("svc") }))
    .output(ZServiceIdentityCreated)
    .mutation(({ ctx, input }) =>
      svc.rotateServiceIdentitySecret(caller(ctx), svc.platformScope, input.svc, {
        previousSecretExpiresIn: input.previous_secret_expires_in,
      }),
    ),

  platformRevokePreviousSecret: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${pBase}/{svc}:revoke-previous-secret`,
        tags,
        summary: "Stop a platform identity's previous client secret now; idempotent",
      },
    })
    .input(ZSvcPath)
    .output(ZServiceIdentity)
    .mutation(({ ctx, input }) => svc.revokePreviousServiceIdentitySecret(caller(ctx), svc.platformScope, input.svc)),
});
