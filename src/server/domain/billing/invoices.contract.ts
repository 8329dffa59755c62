import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { CURRENCY_CODES } from "./currencies";
import { ZCreditNote } from "./credit-notes.contract";
import { ZBillingProfile } from "./subscriptions.contract";

/** Invoices (spec 4.4 GET /v1/workspaces/{ws}/invoices; fields ours, docs/decisions.md "Billing"). */
const ZUsageLine = z.object({
  kind: z.literal("usage"),
  capability: z.string(),
  provider: z.string(),
  model: z.string(),
  rate_card_version_id: z.string(),
  /** Calls priced with this card version, and their tokens. */
  calls: z.number().int(),
  tokens: z.number().int(),
  /** The card version's unit prices, in micros. */
  unit_prices: z.object({
    input_tokens_per_million: z.number().int(),
    output_tokens_per_million: z.number().int(),
    per_call: z.number().int(),
  }),
  amount_micros: z.number().int(),
});
const ZFeeLine = z.object({
  kind: z.literal("subscription"),
  tier: z.string(),
  amount_minor: z.number().int(),
  /** The period this fee is for (absent on invoices issued before periods were recorded). */
  period_start: z.string().optional(),
  period_end: z.string().optional(),
  /** True: an upgrade's prorated charge for the rest of a period (docs/decisions.md "Proration"); absent: a whole period's fee. */
  proration: z.boolean().optional(),
  /** True: a free trial (amount 0), from its start to its end (docs/decisions.md "Credit notes, subscriptions that end, metered pricing"). */
  trial: z.boolean().optional(),
  /** True: a cancellation at once; the amount (negative) credits the unused rest of the period. */
  cancellation: z.boolean().optional(),
});

/** Runtime, storage or email priced by the platform's cards (docs/decisions.md "Credit notes, subscriptions that end, metered pricing"). */
const ZMeteredLine = z.object({
  kind: z.literal("metered"),
  category: z.enum(["runtime", "storage", "email"]),
  rate_card_version_id: z.string(),
  /** What was measured, an integer in `unit`: cpu_ms (runtime), byte_days (storage: bytes held × days), messages (email). */
  quantity: z.number().int(),
  unit: z.string(),
  /** The card's price in micros per `price_unit`: cpu_second, gb_month, message. */
  unit_price_micros: z.number().int(),
  price_unit: z.string(),
  /** Executions, days or messages measured. */
  items: z.number().int(),
  /** Runtime: executions the runner could not measure, counted at their wall time. */
  estimated_items: z.number().int().optional(),
  /** Storage: a GB-month is 10^9 bytes held for every day of the month. */
  days_in_month: z.number().int().optional(),
  amount_micros: z.number().int(),
});

export const INVOICE_STATUSES = ["draft", "open", "paid", "void", "uncollectible"] as const;

export const ZInvoice = z
  .object({
    id: zId("ivc"),
    workspace_id: zWorkspaceId,
    /** Gap-free per issuer (`CAP-000042`), assigned when the invoice leaves draft; null while draft. */
    number: z.string().nullable(),
    month: z.string().regex(/^\d{4}-\d{2}$/),
    currency: z.enum(CURRENCY_CODES),
    /** draft -> open -> paid | void | uncollectible (docs/decisions.md "Invoices as receivables"). */
    status: z.enum(INVOICE_STATUSES),
    lines: z.array(z.discriminatedUnion("kind", [ZUsageLine, ZFeeLine, ZMeteredLine])),
    /** Sum of the usage lines (= the ledger's usage debits of these calls). */
    usage_micros: z.number().int(),
    /** Of which paid from credit grants. */
    granted_micros: z.number().int(),
    subscription_minor: z.number().int(),
    /** usage rounded half up once to minor units, plus the subscription fee. */
    total_minor: z.number().int(),
    /** The wallet's debt (usage its paid balance could not cover) moved onto this invoice at close. */
    debt_minor: z.number().int(),
    /** What this invoice collects: the subscription fee plus the debt; the rest of the total the wallet already paid. */
    amount_due_minor: z.number().int(),
    amount_paid_minor: z.number().int(),
    /** Reduced by credit notes. */
    credited_minor: z.number().int(),
    /** amount_due - amount_paid - credited. */
    amount_remaining_minor: z.number().int(),
    /** Issue time plus the billing profile's payment terms. */
    due_at: z.string().nullable(),
    finalized_at: z.string().nullable(),
    paid_at: z.string().nullable(),
    voided_at: z.string().nullable(),
    uncollectible_at: z.string().nullable(),
    issued_at: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "Invoice" });
export type TInvoice = z.infer<typeof ZInvoice>;
export const ZInvoiceList = zPage(ZInvoice).meta({ id: "Invoices" });
export const ZInvoiceQuery = zListQuery;
export const ZInvoicePath = z.object({ ws: zWorkspaceId, ivc: zId("ivc") });

/**
 * The printable invoice of the console (tRPC only; no REST operation: the
 * spec names only the list): the invoice with whom it is addressed to.
 */
export const ZInvoiceDocument = z.object({
  invoice: ZInvoice,
  workspace: z.object({ id: zWorkspaceId, name: z.string() }),
  bill_to: ZBillingProfile,
  /** The invoice's credit notes, oldest first. */
  credit_notes: z.array(ZCreditNote),
});
export type TInvoiceDocument = z.infer<typeof ZInvoiceDocument>;

/** How an invoice is paid now (issue #36 item 3): from the wallet's paid balance. */
export const ZInvoicePayRequest = z.strictObject({ method: z.enum(["wallet"]) }).meta({ id: "InvoicePayRequest" });
/** Why the platform voids an invoice or writes it off (audited, in the event). */
export const ZInvoiceReasonRequest = z
  .strictObject({ reason: z.string().trim().min(1).max(512) })
  .meta({ id: "InvoiceReasonRequest" });

// ---------------------------------------------------------------- words for a metered line (console and PDF)
/**
 * What a metered invoice line measured, in the unit its price is in, by
 * integer arithmetic (exact, fixed decimals, truncated; no floats).
 */
type TMetered = {
  category: "runtime" | "storage" | "email";
  quantity: number;
  unit_price_micros: number;
  items: number;
  estimated_items?: number;
  days_in_month?: number;
};

function decimal(numerator: bigint, denominator: bigint, places: number): string {
  const scale = BigInt(10) ** BigInt(places);
  const scaled = (numerator * scale) / denominator;
  const whole = scaled / scale;
  const frac = (scaled % scale).toString().padStart(places, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}

export function describeMetered(l: TMetered): { what: string; quantity: string; unitPrice: string } {
  const price = `${decimal(BigInt(l.unit_price_micros), BigInt(1_000_000), 6)}`;
  if (l.category === "runtime") {
    const est = l.estimated_items ? `, ${l.estimated_items} by wall time` : "";
    return {
      what: `Runtime (${l.items} executions${est})`,
      quantity: `${decimal(BigInt(l.quantity), BigInt(1000), 3)} CPU-seconds`,
      unitPrice: `${price} / CPU-second`,
    };
  }
  if (l.category === "storage") {
    const days = BigInt(l.days_in_month ?? 30);
    return {
      what: `Storage (${l.items} days measured)`,
      quantity: `${decimal(BigInt(l.quantity), BigInt(1_000_000_000) * days, 6)} GB-months`,
      unitPrice: `${price} / GB-month`,
    };
  }
  return { what: "Email", quantity: `${l.quantity} messages`, unitPrice: `${price} / message` };
}
