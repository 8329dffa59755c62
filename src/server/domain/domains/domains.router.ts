import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { ZDomain, ZDomainList, ZDomainListQuery, ZDomainRequest, ZDomPath } from "./domains.contract";
import * as domains from "./domains.service";

/** Spec 4.2 custom domains: reads for members, writes for owner/admin. */
const tags = ["Domains"];
const base = "/v1/workspaces/{ws}/domains";
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const domainsRouter = router({
  list: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: base, tags, summary: "List custom domains" } })
    .input(ZDomainListQuery)
    .output(ZDomainList)
    .query(({ ctx, input }) => domains.listDomains(ctx.workspace.workspaceId, input)),

  create: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: base,
        tags,
        summary: "Add a custom domain to a product's staging or production environment (its first DNS check is queued)",
      },
      successStatus: 201,
    })
    .input(ZDomainRequest.extend({ ws: zWorkspaceId }))
    .output(ZDomain)
    .mutation(({ ctx, input }) => domains.createDomain(caller(ctx), ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/{dom}`,
        tags,
        summary: "Get a custom domain with the DNS records to create and the last check's result",
      },
    })
    .input(z.object({ dom: zId("dom") }))
    .output(ZDomain)
    .query(({ ctx, input }) => domains.getDomain(ctx.workspace.workspaceId, input.dom)),

  delete: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "DELETE",
        path: `${base}/{dom}`,
        tags,
        summary: "Delete a custom domain (it stops routing at once)",
      },
      successStatus: 204,
    })
    .input(ZDomPath)
    .output(z.void())
    .mutation(({ ctx, input }) => domains.deleteDomain(caller(ctx), ctx.workspace.workspaceId, input.dom)),

  verify: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{dom}/verify`,
        tags,
        summary: "Queue a DNS check of the domain (429 with Retry-After when asked too often)",
      },
      successStatus: 202,
      extraErrorStatuses: [429],
    })
    .input(z.strictObject({ ws: zWorkspaceId, dom: zId("dom") }))
    .output(ZDomain)
    .mutation(({ ctx, input }) => domains.requestVerification(caller(ctx), ctx.workspace.workspaceId, input.dom)),
});
