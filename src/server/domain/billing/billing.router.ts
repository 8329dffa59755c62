import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { platformAdminProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZAdjustment,
  ZAdjustmentRequest,
  ZCheckoutRequest,
  ZGrant,
  ZGrantRequest,
  ZOrder,
  ZOrderList,
  ZRateCard,
  ZRateCardDetail,
  ZRateCardList,
  ZRateCardListQuery,
  ZRateCardPath,
  ZRateCardRequest,
  ZRefund,
  ZRefundRequest,
  ZWallet,
  ZWalletEntryList,
  ZWalletEntryQuery,
} from "./billing.contract";
import { ZInvoiceDocument, ZInvoiceList, ZInvoiceQuery } from "./invoices.contract";
import * as invoices from "./invoices.service";
import { collectionRouter } from "./collection/collection.router";
import { monthCloseRouter } from "./month-close.router";
import { invoicesRouter } from "./invoices.router";
import * as payments from "./payments.service";
import * as cards from "./rate-cards.service";
import { subscriptionsRouter } from "./subscriptions.router";
import * as wallet from "./wallet.service";

/** Billing (spec 4.4; docs/decisions.md "Billing"): rate cards, the wallet, grants, top-up orders, refunds. */
const tags = ["Billing"];
const ws = "/v1/workspaces/{ws}/wallet";
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const billingRouter = router({
  putRateCard: platformAdminProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/platform/rate-cards/{provider}/{model}",
        tags,
        summary:
          "Publish a new immutable rate card version for a provider model, effective from a time (ws_platform owner/admin)",
      },
    })
    .input(ZRateCardRequest.extend(ZRateCardPath.shape))
    .output(ZRateCard)
    .mutation(({ ctx, input }) => cards.putRateCard(caller(ctx), input.provider, input.model, input)),

  listRateCards: platformAdminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/platform/rate-cards",
        tags,
        summary: "List rate card versions (ws_platform owner/admin)",
      },
    })
    .input(ZRateCardListQuery)
    .output(ZRateCardList)
    .query(({ input }) => cards.listRateCards(input)),

  getRateCard: platformAdminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/platform/rate-cards/{provider}/{model}",
        tags,
        summary: "The rate card version in force for a provider model, with its history (ws_platform owner/admin)",
      },
    })
    .input(ZRateCardPath)
    .output(ZRateCardDetail)
    .query(({ input }) => cards.getRateCard(input.provider, input.model)),

  wallet: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: ws,
        tags,
        summary: "The wallet: balance by currency (paid and granted) and the unexpired grants in spending order",
      },
    })
    .input(z.object({ ws: zWorkspaceId }))
    .output(ZWallet)
    .query(({ ctx }) => wallet.getWallet(ctx.workspace.workspaceId)),

  transactions: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: `${ws}/transactions`, tags, summary: "The wallet's append-only ledger" } })
    .input(ZWalletEntryQuery)
    .output(ZWalletEntryList)
    .query(({ ctx, input }) => wallet.listTransactions(ctx.workspace.workspaceId, input)),

  checkout: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${ws}/checkout`,
        tags,
        summary: "Start a top-up: creates a payment order through a gateway and says where or how to pay",
      },
      successStatus: 201,
    })
    .input(ZCheckoutRequest.extend({ ws: zWorkspaceId }))
    .output(ZOrder)
    .mutation(({ ctx, input }) => payments.checkout(caller(ctx), ctx.workspace.workspaceId, input)),

  orders: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: `${ws}/orders`, tags, summary: "List top-up orders" } })
    .input(zListQuery)
    .output(ZOrderList)
    .query(({ ctx, input }) => payments.listOrders(ctx.workspace.workspaceId, input)),

  order: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: `${ws}/orders/{pay}`, tags, summary: "Get a top-up order" } })
    .input(z.object({ pay: zId("pay") }))
    .output(ZOrder)
    .query(({ ctx, input }) => payments.getOrder(ctx.workspace.workspaceId, input.pay)),

  grant: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/wallets/{ws}/grants",
        tags,
        summary: "Grant credit to a workspace's wallet, with a priority and an expiry (ws_platform owner/admin)",
      },
      successStatus: 201,
    })
    .input(ZGrantRequest.extend({ ws: zWorkspaceId }))
    .output(ZGrant)
    .mutation(({ ctx, input }) => wallet.createGrant(caller(ctx), input.ws, input)),

  refund: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/wallets/{ws}/refunds",
        tags,
        summary: "Refund (part of) a succeeded payment, never more than was paid (ws_platform owner/admin)",
      },
      successStatus: 201,
    })
    .input(ZRefundRequest.extend({ ws: zWorkspaceId }))
    .output(ZRefund)
    .mutation(({ ctx, input }) => payments.refund(caller(ctx), input.ws, input)),

  adjust: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/wallets/{ws}/adjustments",
        tags,
        summary: "Correct a workspace's paid balance by a signed amount, with a reason (ws_platform owner/admin)",
      },
      successStatus: 201,
    })
    .input(ZAdjustmentRequest.extend({ ws: zWorkspaceId }))
    .output(ZAdjustment)
    .mutation(({ ctx, input }) => wallet.adjust(caller(ctx), input.ws, input)),

  invoices: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/invoices",
        tags,
        summary: "Monthly invoices, issued at month close, immutable",
      },
    })
    .input(ZInvoiceQuery)
    .output(ZInvoiceList)
    .query(({ ctx, input }) => invoices.listInvoices(ctx.workspace.workspaceId, input)),

  /** The console's printable invoice (tRPC only, owner/admin: it carries the billing address). */
  invoiceDocument: workspaceProcedure("admin")
    .input(z.object({ ws: zWorkspaceId, ivc: zId("ivc") }))
    .output(ZInvoiceDocument)
    .query(({ ctx, input }) => invoices.getInvoiceDocument(ctx.workspace.workspaceId, input.ivc)),

  subscriptions: subscriptionsRouter,
  closes: monthCloseRouter,
  invoice: invoicesRouter,
  collection: collectionRouter,
});
