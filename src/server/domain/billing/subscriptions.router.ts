import { z } from "zod";
import { zWorkspaceId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { authedProcedure, platformAdminProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZBillingProfile,
  ZBillingProfileRequest,
  ZSubscription,
  ZSubscriptionCancelQuery,
  ZSubscriptionRequest,
  ZTier,
  ZTierList,
  ZTierRequest,
  zTierName,
} from "./subscriptions.contract";
import * as lifecycle from "./subscription-lifecycle.service";
import * as profiles from "./profile.service";
import * as subs from "./subscriptions.service";
import * as tiers from "./tiers.service";

/** Billing profile, subscription tiers, subscriptions (spec 4.4; docs/decisions.md "Billing"). */
const tags = ["Billing"];
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const subscriptionsRouter = router({
  getProfile: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/billing-profile",
        tags,
        summary: "The workspace's billing profile (who invoices are addressed to)",
      },
    })
    .input(z.object({ ws: zWorkspaceId }))
    .output(ZBillingProfile)
    .query(({ ctx }) => profiles.getProfile(ctx.workspace.workspaceId)),

  putProfile: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/workspaces/{ws}/billing-profile",
        tags,
        summary: "Set the workspace's billing profile (owner/admin)",
      },
    })
    .input(ZBillingProfileRequest.extend({ ws: zWorkspaceId }))
    .output(ZBillingProfile)
    .mutation(({ ctx, input }) => profiles.putProfile(caller(ctx), ctx.workspace.workspaceId, input)),

  listTiers: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/platform/subscription-tiers",
        tags,
        summary: "The subscription tiers on offer (any signed-in user: it is the price list)",
      },
    })
    .input(z.object({}))
    .output(ZTierList)
    .query(() => tiers.listTiers()),

  getTier: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/platform/subscription-tiers/{tier}",
        tags,
        summary: "One subscription tier",
      },
    })
    .input(z.object({ tier: zTierName }))
    .output(ZTier)
    .query(({ input }) => tiers.getTier(input.tier)),

  /** The console's tier editor (tRPC only): the same list, but a 403 for anyone who cannot edit it. */
  editableTiers: platformAdminProcedure
    .input(z.object({}))
    .output(ZTierList)
    .query(() => tiers.listTiers()),

  putTier: platformAdminProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/platform/subscription-tiers/{tier}",
        tags,
        summary: "Create or change a subscription tier (ws_platform owner/admin)",
      },
    })
    .input(ZTierRequest.extend({ tier: zTierName }))
    .output(ZTier)
    .mutation(({ ctx, input }) => tiers.putTier(caller(ctx), input.tier, input)),

  getSubscription: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/subscription",
        tags,
        summary: "The workspace's subscription and current period",
      },
    })
    .input(z.object({ ws: zWorkspaceId }))
    .output(ZSubscription)
    .query(({ ctx }) => subs.getSubscription(ctx.workspace.workspaceId)),

  putSubscription: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/workspaces/{ws}/subscription",
        tags,
        summary:
          "Change the workspace's tier: an upgrade is immediate with a prorated charge, a downgrade takes effect at the period's end (owner/admin)",
      },
    })
    .input(ZSubscriptionRequest.extend({ ws: zWorkspaceId }))
    .output(ZSubscription)
    .mutation(({ ctx, input }) =>
      subs.setSubscription(caller(ctx), ctx.workspace.workspaceId, input.tier, "workspace"),
    ),

  cancelSubscription: workspaceProcedure("owner")
    .meta({
      openapi: {
        method: "DELETE",
        path: "/v1/workspaces/{ws}/subscription",
        tags,
        summary:
          "Cancel the subscription (owner): at the current period's end (when=period_end, the default; resumable until then) or at once (when=immediately: the unused time is credited on the month's invoice and the plan drops to free)",
      },
    })
    .input(ZSubscriptionCancelQuery.extend({ ws: zWorkspaceId }))
    .output(ZSubscription)
    .mutation(({ ctx, input }) => lifecycle.cancelSubscription(caller(ctx), ctx.workspace.workspaceId, input.when)),

  resumeSubscription: workspaceProcedure("owner")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/subscription:resume",
        tags,
        summary: "Withdraw a cancellation scheduled for the period's end, before it ends (owner)",
      },
    })
    .input(z.object({ ws: zWorkspaceId }))
    .output(ZSubscription)
    .mutation(({ ctx }) => lifecycle.resumeSubscription(caller(ctx), ctx.workspace.workspaceId)),

  overrideSubscription: platformAdminProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/platform/wallets/{ws}/subscription",
        tags,
        summary: "Set a workspace's tier as the platform (ws_platform owner/admin)",
      },
    })
    .input(ZSubscriptionRequest.extend({ ws: zWorkspaceId }))
    .output(ZSubscription)
    .mutation(({ ctx, input }) => subs.setSubscription(caller(ctx), input.ws, input.tier, "platform")),
});
