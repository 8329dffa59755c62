import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZRenameRequest } from "@/server/platform/names";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZDeadLetter,
  ZDeadLetterList,
  ZDeliveryList,
  ZSubscription,
  ZSubscriptionCreate,
  ZSubscriptionList,
  ZSubscriptionRotateSecret,
  ZSubscriptionWithSecret,
} from "./webhooks.contract";
import * as subs from "./subscriptions.service";
import * as dlq from "./dead-letters.service";
import { ZWebhookTestResult } from "./test-event.contract";
import { sendTestEvent } from "./test-event.service";

const tags = ["Events and webhooks"];
const base = "/v1/workspaces/{ws}/event-subscriptions";

export const webhooksRouter = router({
  create: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: base,
        tags,
        summary: "Register a webhook endpoint (the signing secret is shown once)",
      },
      successStatus: 201,
    })
    .input(ZSubscriptionCreate.extend({ ws: zWorkspaceId }))
    .output(ZSubscriptionWithSecret)
    .mutation(({ ctx, input }) =>
      subs.createSubscription({ userId: ctx.principal.userId }, ctx.workspace.workspaceId, input),
    ),

  list: workspaceProcedure("admin")
    .meta({ openapi: { method: "GET", path: base, tags, summary: "List webhook endpoints" } })
    .input(zListQuery)
    .output(ZSubscriptionList)
    .query(({ ctx, input }) => subs.listSubscriptions(ctx.workspace.workspaceId, input)),

  get: workspaceProcedure("admin")
    .meta({ openapi: { method: "GET", path: `${base}/{wb}`, tags, summary: "Get a webhook endpoint" } })
    .input(z.object({ wb: zId("wb") }))
    .output(ZSubscription)
    .query(({ ctx, input }) => subs.getSubscription(ctx.workspace.workspaceId, input.wb)),

  rename: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "PATCH",
        path: `${base}/{wb}`,
        tags,
        summary: "Rename a webhook endpoint (names are unique in the workspace, ignoring case: 409 name_taken)",
      },
    })
    .input(ZRenameRequest.extend({ ws: zWorkspaceId, wb: zId("wb") }))
    .output(ZSubscription)
    .mutation(({ ctx, input }) =>
      subs.renameSubscription(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.wb,
        input.name,
      ),
    ),

  delete: workspaceProcedure("admin")
    .meta({
      openapi: { method: "DELETE", path: `${base}/{wb}`, tags, summary: "Delete a webhook endpoint" },
      successStatus: 204,
    })
    .input(z.object({ wb: zId("wb") }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await subs.deleteSubscription(ctx.workspace.workspaceId, input.wb);
    }),

  test: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{wb}/test`,
        tags,
        summary:
          "Send a signed webhook.test event to this endpoint now and show the request and the answer (not retried, no other endpoint gets it)",
      },
    })
    .input(z.strictObject({ ws: zWorkspaceId, wb: zId("wb") }))
    .output(ZWebhookTestResult)
    .mutation(({ ctx, input }) =>
      sendTestEvent(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.wb,
      ),
    ),

  rotateSecret: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{wb}:rotate-secret`,
        tags,
        summary:
          "Replace the signing secret (shown once; the old one keeps signing for previous_secret_expires_in, default 24 h) and re-enable the endpoint",
      },
    })
    .input(ZSubscriptionRotateSecret.extend({ ws: zWorkspaceId, wb: zId("wb") }))
    .output(ZSubscriptionWithSecret)
    .mutation(({ ctx, input }) =>
      subs.rotateSubscriptionSecret(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.wb,
        input.previous_secret_expires_in,
      ),
    ),

  revokePreviousSecret: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{wb}:revoke-previous-secret`,
        tags,
        summary: "Stop signing with the previous secret now (ends a rotation's overlap); idempotent",
      },
    })
    .input(z.strictObject({ ws: zWorkspaceId, wb: zId("wb") }))
    .output(ZSubscription)
    .mutation(({ ctx, input }) =>
      subs.revokePreviousSubscriptionSecret(
        { userId: ctx.principal.userId, correlationId: ctx.correlationId },
        ctx.workspace.workspaceId,
        input.wb,
      ),
    ),

  deliveries: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/{wb}/deliveries`,
        tags,
        summary: "Recent deliveries with their attempts",
      },
    })
    .input(zListQuery.extend({ wb: zId("wb") }))
    .output(ZDeliveryList)
    .query(({ ctx, input }) => dlq.listDeliveries(ctx.workspace.workspaceId, input.wb, input)),

  deadLetters: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/outbox/dead-letters",
        tags,
        summary: "Deliveries that exhausted their retries",
      },
    })
    .input(zListQuery)
    .output(ZDeadLetterList)
    .query(({ ctx, input }) => dlq.listDeadLetters(ctx.workspace.workspaceId, input)),

  redeliver: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/outbox/dead-letters/{dlq}:redeliver",
        tags,
        summary: "Queue a dead letter for delivery again",
      },
      successStatus: 202,
    })
    .input(z.object({ dlq: zId("dlq") }))
    .output(ZDeadLetter)
    .mutation(({ ctx, input }) => dlq.redeliverDeadLetter(ctx.workspace.workspaceId, input.dlq)),
});
