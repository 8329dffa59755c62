import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { CURRENCY_CODES } from "./currencies";
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
  unit_prices: z.object({ input_tokens_per_million: z.number().int(), output_tokens_per_million: z.number().int(), per_call: z.number().int() }),
  amount_micros: z.number().int(),
});
const ZFeeLine = z.object({
  kind: z.literal("subscription"), tier: z.string(), amount_minor: z.number().int(),
  /** The period this fee is for (absent on invoices issued before periods were recorded). */
  period_start: z.string().optional(), period_end: z.string().optional(),
  /** True: an upgrade's prorated charge for the rest of a period (docs/decisions.md "Billing: proration"); absent: a whole period's fee. */
  proration: z.boolean().optional(),
});

export const ZInvoice = z
  .object({
    id: zId("ivc"),
    workspace_id: zWorkspaceId,
    month: z.string().regex(/^\d{4}-\d{2}$/),
    currency: z.enum(CURRENCY_CODES),
    status: z.literal("issued"),
    lines: z.array(z.discriminatedUnion("kind", [ZUsageLine, ZFeeLine])),
    /** Sum of the usage lines (= the ledger's usage debits of these calls). */
    usage_micros: z.number().int(),
    /** Of which paid from credit grants. */
    granted_micros: z.number().int(),
    subscription_minor: z.number().int(),
    /** usage rounded half up once to minor units, plus the subscription fee. */
    total_minor: z.number().int(),
    issued_at: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "Invoice" });
export type TInvoice = z.infer<typeof ZInvoice>;
export const ZInvoiceList = zPage(ZInvoice).meta({ id: "Invoices" });
export const ZInvoiceQuery = zListQuery;

/**
 * The printable invoice of the console (tRPC only; no REST operation: the
 * spec names only the list): the invoice with whom it is addressed to.
 */
export const ZInvoiceDocument = z.object({
  invoice: ZInvoice,
  workspace: z.object({ id: zWorkspaceId, name: z.string() }),
  bill_to: ZBillingProfile,
});
export type TInvoiceDocument = z.infer<typeof ZInvoiceDocument>;
