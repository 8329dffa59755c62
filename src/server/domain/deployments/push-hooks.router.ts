import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { ZPushDeliveryList, ZPushHook, ZPushHookCreated } from "./push-hooks.contract";
import * as hooks from "./push-hooks.service";

const tags = ["Products and revisions"];
const base = "/v1/workspaces/{ws}/products/{prod}/push-hook";
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

/** Deploy on push: a product's repository webhook (docs/decisions.md "Deploy on push"). */
export const pushHooksRouter = router({
  get: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: base, tags, summary: "The product's push hook (404 when it has none)" } })
    .input(z.object({ prod: zId("prod") }))
    .output(ZPushHook)
    .query(({ ctx, input }) => hooks.getPushHook(ctx.workspace.workspaceId, input.prod)),

  create: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: base,
        tags,
        summary:
          "Set up deploy on push: a webhook URL and its signing secret (shown once); 409 when the product has one",
      },
      successStatus: 201,
    })
    .input(z.strictObject({ ws: zWorkspaceId, prod: zId("prod") }))
    .output(ZPushHookCreated)
    .mutation(({ ctx, input }) => hooks.createPushHook(caller(ctx), ctx.workspace.workspaceId, input.prod)),

  rotateSecret: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}:rotate-secret`,
        tags,
        summary: "Replace the push hook's signing secret (shown once); the old one stops verifying at once",
      },
    })
    .input(z.strictObject({ ws: zWorkspaceId, prod: zId("prod") }))
    .output(ZPushHookCreated)
    .mutation(({ ctx, input }) => hooks.rotatePushHookSecret(caller(ctx), ctx.workspace.workspaceId, input.prod)),

  delete: workspaceProcedure("admin")
    .meta({
      openapi: { method: "DELETE", path: base, tags, summary: "Remove the push hook: pushes are refused from then on" },
      successStatus: 204,
    })
    .input(z.object({ prod: zId("prod") }))
    .output(z.void())
    .mutation(({ ctx, input }) => hooks.deletePushHook(caller(ctx), ctx.workspace.workspaceId, input.prod)),

  deliveries: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/products/{prod}/push-deliveries",
        tags,
        summary: "The push hook's deliveries, newest first by default, each with what it led to",
      },
    })
    .input(zListQuery.extend({ prod: zId("prod") }))
    .output(ZPushDeliveryList)
    .query(({ ctx, input }) => hooks.listPushDeliveries(ctx.workspace.workspaceId, input.prod, input)),
});
