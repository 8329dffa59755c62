import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZRenameRequest } from "@/server/platform/names";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZProviderBinding,
  ZProviderBindingCreateInput,
  ZProviderBindingList,
  ZProviderBindingListQuery,
} from "./bindings.contract";
import * as bindings from "./bindings.service";
import { ZBindingTestResult } from "./binding-test.contract";
import { testBinding } from "./binding-test.service";

const tags = ["Credentials and provider bindings"];
const base = "/v1/workspaces/{ws}/provider-bindings";

/** Provider bindings: admin-only, like credentials. */
export const bindingsRouter = router({
  create: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: base,
        tags,
        summary: "Bind a credential to a capability (201; status ready, or failed when the credential has expired)",
      },
      successStatus: 201,
    })
    .input(ZProviderBindingCreateInput)
    .output(ZProviderBinding)
    .mutation(({ ctx, input }) => {
      const { ws: _ws, ...body } = input;
      return bindings.createBinding(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        body,
      );
    }),

  list: workspaceProcedure("admin")
    .meta({ openapi: { method: "GET", path: base, tags, summary: "List provider bindings" } })
    .input(ZProviderBindingListQuery)
    .output(ZProviderBindingList)
    .query(({ ctx, input }) => bindings.listBindings(ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("admin")
    .meta({ openapi: { method: "GET", path: `${base}/{bind}`, tags, summary: "Get a provider binding" } })
    .input(z.object({ bind: zId("bind") }))
    .output(ZProviderBinding)
    .query(({ ctx, input }) => bindings.getBinding(ctx.workspace.workspaceId, input.bind)),

  rename: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "PATCH",
        path: `${base}/{bind}`,
        tags,
        summary:
          "Rename a provider binding (names are unique among bindings not revoked, ignoring case: 409 name_taken)",
      },
    })
    .input(ZRenameRequest.extend({ ws: zWorkspaceId, bind: zId("bind") }))
    .output(ZProviderBinding)
    .mutation(({ ctx, input }) =>
      bindings.renameBinding(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.bind,
        input.name,
      ),
    ),

  delete: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "DELETE",
        path: `${base}/{bind}`,
        tags,
        summary: "Revoke a provider binding (kept with status revoked)",
      },
      successStatus: 204,
    })
    .input(z.object({ bind: zId("bind") }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await bindings.revokeBinding(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.bind,
      );
    }),

  test: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{bind}/test`,
        tags,
        summary:
          "Make a one-token call through the binding and show the latency and the provider's answer or error (audited as a test; charged to no budget)",
      },
    })
    .input(z.strictObject({ ws: zWorkspaceId, bind: zId("bind") }))
    .output(ZBindingTestResult)
    .mutation(({ ctx, input }) =>
      testBinding(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.bind,
      ),
    ),
});
