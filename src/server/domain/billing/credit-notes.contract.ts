import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { CURRENCY_CODES } from "./currencies";

/**
 * Credit notes (issue #36 item 5; docs/decisions.md "Credit notes, subscriptions that end, metered pricing"):
 * a correction of an issued invoice, partial or whole, with a reason. It
 * reduces what is left to pay and, beyond that, refunds what was paid.
 */
export const ZCreditNoteRequest = z
  .strictObject({
    /** Minor units of the invoice's currency, > 0, at most what is still creditable (amount due minus earlier credit notes). */
    amount_minor: z.number().int().min(1).max(100_000_000_000),
    /** Why (shown on the invoice, its PDF, the audit record and the event). */
    reason: z.string().trim().min(1).max(512),
  })
  .meta({ id: "CreditNoteRequest" });
export type TCreditNoteRequest = z.infer<typeof ZCreditNoteRequest>;

export const ZCreditNote = z
  .object({
    id: zId("crn"),
    workspace_id: zWorkspaceId,
    invoice_id: zId("ivc"),
    /** The credited invoice's number. */
    invoice_number: z.string(),
    /** Gap-free in the issuer's credit note series (`CAP-CN-000001`), never reused. */
    number: z.string(),
    currency: z.enum(CURRENCY_CODES),
    amount_minor: z.number().int(),
    /** Of the amount: what reduced the invoice's remaining amount. */
    reduced_minor: z.number().int(),
    /** Of the amount: what was refunded of what had been paid. */
    refunded_minor: z.number().int(),
    /** Where the refund went: `card` (a Stripe refund of the card payment that paid the invoice), `wallet` (the paid balance); null when nothing was refunded. */
    refund_to: z.enum(["wallet", "card"]).nullable(),
    reason: z.string(),
    created_by: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "CreditNote" });
export type TCreditNote = z.infer<typeof ZCreditNote>;
export const ZCreditNoteList = zPage(ZCreditNote).meta({ id: "CreditNotes" });
export const ZCreditNotePath = z.object({ ws: zWorkspaceId, ivc: zId("ivc") });
export const ZCreditNoteQuery = zListQuery.extend(ZCreditNotePath.shape);
