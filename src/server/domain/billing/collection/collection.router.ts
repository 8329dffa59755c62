import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { platformAdminProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZAutoTopUp,
  ZAutoTopUpRequest,
  ZCardPayRequest,
  ZCollection,
  ZCollectionList,
  ZDunningPolicy,
  ZDunningPolicyRequest,
  ZInvoicePath,
  ZPaymentMethodList,
  ZPaymentMethodPath,
  ZPaymentMethodSetup,
  ZPaymentMethodSetupRequest,
  ZStanding,
  ZTierPath,
} from "./collection.contract";
import * as topUp from "./auto-top-up.service";
import * as checkout from "./checkout.service";
import * as collect from "./collect.service";
import * as methods from "./payment-methods.service";
import * as standing from "./standing.service";

/** Collection: saved cards, auto top-up, invoice charge and checkout link, dunning standing and policy (issue #36 items 3-4; docs/decisions.md "Collection and dunning"). */
const tags = ["Billing"];
const base = "/v1/workspaces/{ws}";
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});
const who = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  actor: { kind: "user" as const, id: ctx.principal.userId },
  correlationId: ctx.correlationId,
});

export const collectionRouter = router({
  paymentMethods: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/payment-methods`,
        tags,
        summary: "Saved payment methods (by reference: brand, last 4, expiry; the card stays at Stripe), owner/admin",
      },
    })
    .input(zListQuery.extend({ ws: zWorkspaceId }))
    .output(ZPaymentMethodList)
    .query(({ ctx, input }) => methods.listMethods(ctx.workspace.workspaceId, input)),

  startSetup: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/payment-methods/setups`,
        tags,
        summary:
          "Save a card: a Stripe Checkout Session in setup mode; the card is saved when Stripe's signed callback confirms it",
      },
      successStatus: 201,
    })
    .input(ZPaymentMethodSetupRequest.extend({ ws: zWorkspaceId }))
    .output(ZPaymentMethodSetup)
    .mutation(({ ctx, input }) => methods.startSetup(caller(ctx), ctx.workspace.workspaceId, input)),

  getSetup: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/payment-methods/setups/{pms}`,
        tags,
        summary: "A card setup: open (with its url), complete (with the saved method) or expired",
      },
    })
    .input(z.object({ ws: zWorkspaceId, pms: zId("pms") }))
    .output(ZPaymentMethodSetup)
    .query(({ ctx, input }) => methods.getSetup(ctx.workspace.workspaceId, input.pms)),

  removePaymentMethod: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "DELETE",
        path: `${base}/payment-methods/{pmt}`,
        tags,
        summary: "Remove a saved payment method (detached at Stripe; the next one becomes the default)",
      },
      successStatus: 204,
    })
    .input(ZPaymentMethodPath)
    .output(z.void())
    .mutation(({ ctx, input }) => methods.removeMethod(caller(ctx), ctx.workspace.workspaceId, input.pmt)),

  autoTopUp: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/auto-top-up`,
        tags,
        summary: "Automatic top-up: threshold, amount and whether the balance is low",
      },
    })
    .input(z.object({ ws: zWorkspaceId }))
    .output(ZAutoTopUp)
    .query(({ ctx }) => topUp.getAutoTopUp(ctx.workspace.workspaceId)),

  putAutoTopUp: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "PUT",
        path: `${base}/auto-top-up`,
        tags,
        summary:
          "Set automatic top-up: below the threshold, one charge of the amount to the default card (owner/admin)",
      },
    })
    .input(ZAutoTopUpRequest.extend({ ws: zWorkspaceId }))
    .output(ZAutoTopUp)
    .mutation(({ ctx, input }) => topUp.putAutoTopUp(caller(ctx), ctx.workspace.workspaceId, input)),

  charge: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/invoices/{ivc}:charge`,
        tags,
        summary:
          "Charge a saved card for what is left of an open invoice: succeeded, failed (declined) or requires_action (3-D Secure, with the link)",
      },
    })
    .input(ZCardPayRequest.extend(ZInvoicePath.shape))
    .output(ZCollection)
    .mutation(({ ctx, input }) =>
      collect.chargeInvoice(who(ctx), ctx.workspace.workspaceId, input.ivc, {
        paymentMethodId: input.payment_method_id,
        trigger: "owner",
      }),
    ),

  checkout: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/invoices/{ivc}:checkout`,
        tags,
        summary:
          "A hosted checkout link for what is left of an open invoice (Stripe Checkout), paid via its signed callback",
      },
    })
    .input(ZInvoicePath)
    .output(ZCollection)
    .mutation(({ ctx, input }) => checkout.checkoutInvoice(who(ctx), ctx.workspace.workspaceId, input.ivc)),

  collections: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/invoices/{ivc}/collections`,
        tags,
        summary: "Attempts to collect an invoice through the gateway, newest first",
      },
    })
    .input(ZInvoicePath)
    .output(ZCollectionList)
    .query(({ ctx, input }) => checkout.listCollections(ctx.workspace.workspaceId, input.ivc)),

  standing: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/billing-standing`,
        tags,
        summary:
          "The workspace's dunning standing in words: good, past due, restricted or suspended, with the invoices in dunning",
      },
    })
    .input(z.object({ ws: zWorkspaceId }))
    .output(ZStanding)
    .query(({ ctx }) => standing.getStanding(ctx.workspace.workspaceId)),

  dunningPolicy: platformAdminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/platform/subscription-tiers/{tier}/dunning-policy",
        tags,
        summary:
          "What happens when a tier's workspace exhausts dunning, and the retry schedule (ws_platform owner/admin)",
      },
    })
    .input(ZTierPath)
    .output(ZDunningPolicy)
    .query(({ input }) => standing.getPolicy(input.tier)),

  putDunningPolicy: platformAdminProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/platform/subscription-tiers/{tier}/dunning-policy",
        tags,
        summary: "Set a tier's dunning policy: keep_serving, restrict or suspend (ws_platform owner/admin)",
      },
    })
    .input(ZDunningPolicyRequest.extend(ZTierPath.shape))
    .output(ZDunningPolicy)
    .mutation(({ ctx, input }) => standing.putPolicy(caller(ctx), input.tier, input.policy)),
});
