import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZRenameRequest } from "@/server/platform/names";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { workspaceIdProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import { ZDescriptorConfirmationRequest } from "./descriptor-detection";
import {
  ZCapabilityContractResponse,
  ZProduct,
  ZProductIntakeRequest,
  ZProductList,
  ZRefreezeRequest,
  ZRevision,
  ZRevisionList,
  ZSourceFreeze,
  ZSourceFreezeAccepted,
} from "./source.contract";
import * as products from "./products.service";
import * as revisions from "./revisions.service";

const tags = ["Products and revisions"];
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const sourceRouter = router({
  createProduct: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/products",
        tags,
        summary: "Create a product from a repository reference (the source is frozen asynchronously)",
      },
      successStatus: 202,
    })
    .input(ZProductIntakeRequest.extend({ ws: zWorkspaceId }))
    .output(ZSourceFreezeAccepted)
    .mutation(({ ctx, input }) => products.createProduct(caller(ctx), ctx.workspace.workspaceId, input)),

  listProducts: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/products", tags, summary: "List products" } })
    .input(zListQuery)
    .output(ZProductList)
    .query(({ ctx, input }) => products.listProducts(ctx.workspace.workspaceId, input)),

  getProduct: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/products/{prod}", tags, summary: "Get a product" } })
    .input(z.object({ prod: zId("prod") }))
    .output(ZProduct)
    .query(({ ctx, input }) => products.getProduct(ctx.workspace.workspaceId, input.prod)),

  renameProduct: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "PATCH",
        path: "/v1/workspaces/{ws}/products/{prod}",
        tags,
        summary: "Rename a product (names are unique in the workspace, ignoring case: 409 name_taken)",
      },
    })
    .input(ZRenameRequest.extend({ ws: zWorkspaceId, prod: zId("prod") }))
    .output(ZProduct)
    .mutation(({ ctx, input }) =>
      products.renameProduct(caller(ctx), ctx.workspace.workspaceId, input.prod, input.name),
    ),

  refreeze: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/products/{prod}/source-freezes",
        tags,
        summary: "Freeze the product's repository again at a ref (a new revision)",
      },
      successStatus: 202,
    })
    .input(ZRefreezeRequest.extend({ ws: zWorkspaceId, prod: zId("prod") }))
    .output(ZSourceFreezeAccepted)
    .mutation(({ ctx, input }) =>
      products.refreezeProduct(caller(ctx), ctx.workspace.workspaceId, input.prod, input.ref),
    ),

  getSourceFreeze: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/source-freezes/{frz}",
        tags,
        summary: "Progress and outcome of a source freeze",
      },
    })
    .input(z.object({ frz: zId("frz") }))
    .output(ZSourceFreeze)
    .query(({ ctx, input }) => products.getSourceFreeze(ctx.workspace.workspaceId, input.frz)),

  confirmDescriptor: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/descriptor:confirm",
        tags,
        summary: "Confirm (and edit) the detected runtime descriptor; makes the contract ready",
      },
    })
    .input(ZDescriptorConfirmationRequest.extend({ ws: zWorkspaceId, prod: zId("prod"), rev: zId("rev") }))
    .output(ZRevision)
    .mutation(({ ctx, input }) =>
      revisions.confirmDescriptor(
        { ...caller(ctx), role: ctx.workspace.role },
        ctx.workspace.workspaceId,
        input.prod,
        input.rev,
        input,
      ),
    ),

  listRevisions: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/revisions", tags, summary: "List revisions" } })
    .input(zListQuery.extend({ product_id: zId("prod").optional() }))
    .output(ZRevisionList)
    .query(({ ctx, input }) => revisions.listRevisions(ctx.workspace.workspaceId, input)),

  getRevision: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/revisions/{rev}", tags, summary: "Get a revision" } })
    .input(z.object({ rev: zId("rev") }))
    .output(ZRevision)
    .query(({ ctx, input }) => revisions.getRevision(ctx.workspace.workspaceId, input.rev)),

  capabilityContract: workspaceIdProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{workspace_id}/revisions/{revision_id}/capability-contract",
        tags,
        summary: "The revision's capability contract",
      },
    })
    .input(z.object({ revision_id: zId("rev") }))
    .output(ZCapabilityContractResponse)
    .query(({ ctx, input }) => revisions.getCapabilityContract(ctx.workspace.workspaceId, input.revision_id)),
});
