import { router } from "@/server/trpc/init";
import { platformAdminProcedure, workspaceProcedure } from "@/server/trpc/procedures";
import { ZInvoice, ZInvoicePath, ZInvoicePayRequest, ZInvoiceReasonRequest } from "./invoices.contract";
import {
  ZCreditNote,
  ZCreditNoteList,
  ZCreditNotePath,
  ZCreditNoteQuery,
  ZCreditNoteRequest,
} from "./credit-notes.contract";
import * as creditNotes from "./credit-notes.service";
import * as actions from "./invoice-actions.service";
import * as invoices from "./invoices.service";

/** One invoice: read, pay, void, write off (issue #36 items 2-3; docs/decisions.md "Invoices as receivables"). */
const tags = ["Billing"];
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const invoicesRouter = router({
  get: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/invoices/{ivc}",
        tags,
        summary: "One invoice: status, number, amounts due, paid and remaining, due date, lines",
      },
    })
    .input(ZInvoicePath)
    .output(ZInvoice)
    .query(({ ctx, input }) => invoices.getInvoice(ctx.workspace.workspaceId, input.ivc)),

  pay: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/invoices/{ivc}:pay",
        tags,
        summary: "Pay what is left of an open invoice now, from the wallet's paid balance (owner/admin)",
      },
    })
    .input(ZInvoicePayRequest.extend(ZInvoicePath.shape))
    .output(ZInvoice)
    .mutation(({ ctx, input }) => actions.payFromWallet(caller(ctx), ctx.workspace.workspaceId, input.ivc)),

  void: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/wallets/{ws}/invoices/{ivc}:void",
        tags,
        summary: "Void an unpaid invoice: it was never owed (ws_platform owner/admin)",
      },
    })
    .input(ZInvoiceReasonRequest.extend(ZInvoicePath.shape))
    .output(ZInvoice)
    .mutation(({ ctx, input }) => actions.voidInvoice(caller(ctx), input.ws, input.ivc, input.reason)),

  markUncollectible: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/wallets/{ws}/invoices/{ivc}:mark-uncollectible",
        tags,
        summary: "Write an open invoice off as uncollectible; it can still be paid (ws_platform owner/admin)",
      },
    })
    .input(ZInvoiceReasonRequest.extend(ZInvoicePath.shape))
    .output(ZInvoice)
    .mutation(({ ctx, input }) => actions.markUncollectible(caller(ctx), input.ws, input.ivc, input.reason)),

  issueCreditNote: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/wallets/{ws}/invoices/{ivc}/credit-notes",
        tags,
        summary:
          "Issue a credit note against an open, paid or uncollectible invoice: it reduces what is left to pay, then refunds what was paid: to the card that paid it (a Stripe refund), else to the wallet (ws_platform owner/admin)",
      },
      successStatus: 201,
    })
    .input(ZCreditNoteRequest.extend(ZCreditNotePath.shape))
    .output(ZCreditNote)
    .mutation(({ ctx, input }) => creditNotes.issueCreditNote(caller(ctx), input.ws, input.ivc, input)),

  creditNotes: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/invoices/{ivc}/credit-notes",
        tags,
        summary: "The credit notes of an invoice",
      },
    })
    .input(ZCreditNoteQuery)
    .output(ZCreditNoteList)
    .query(({ ctx, input }) => creditNotes.listCreditNotes(ctx.workspace.workspaceId, input.ivc, input)),
});
