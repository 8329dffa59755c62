import { stateMachine } from "@/server/platform/state-machine";

/**
 * An invoice's life (issue #36 item 2; docs/decisions.md "Billing: invoices as
 * receivables"), after Stripe's: a draft is finalized (numbered, due date set)
 * into `open`; an open invoice is paid, voided (never owed) or marked
 * uncollectible (owed, written off: it can still be paid or voided). Only
 * invoice-lifecycle.service.ts writes `status`, through this table.
 */
export const INVOICE_STATES = ["draft", "open", "paid", "void", "uncollectible"] as const;
export type TInvoiceStatus = (typeof INVOICE_STATES)[number];
export type TInvoiceEvent = "create" | "finalize" | "pay" | "void" | "mark_uncollectible";

export const INVOICE = stateMachine<TInvoiceStatus, TInvoiceEvent>("invoice", INVOICE_STATES, [
  { from: null, event: "create", to: "draft" },
  { from: "draft", event: "finalize", to: "open" },
  { from: "open", event: "pay", to: "paid" },
  { from: "open", event: "void", to: "void" },
  { from: "open", event: "mark_uncollectible", to: "uncollectible" },
  { from: "uncollectible", event: "pay", to: "paid" },
  { from: "uncollectible", event: "void", to: "void" },
]);
