import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { zTimestamp } from "@/server/platform/time";
import { CURRENCY_CODES } from "./money";

/**
 * Billing wire shapes (spec 4.4 names the operations, "fields not shown"; ours
 * per docs/decisions.md "Billing"). Amounts are integers: `*_micros`
 * (millionths of the major unit) or `*_minor` (minor units), always beside a
 * `currency`.
 */
const zCurrency = z.enum(CURRENCY_CODES).describe("ISO 4217 code");
const zMicros = z
  .number()
  .int()
  .min(0)
  .max(1_000_000_000_000)
  .describe("Micros: millionths of the currency's major unit");
const zMinorPositive = z.number().int().min(1).max(100_000_000_000).describe("Minor units (cents), > 0");
const zTime = z.string().describe("date-time, UTC, ending in Z");

export const zProviderName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "provider: 1..64 of a-z 0-9 . _ - starting with a letter or digit");
export const zModelName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, "model: 1..128 of A-Z a-z 0-9 . _ : - starting with a letter or digit");

// ---------------------------------------------------------------- rate cards

export const ZRateCardRequest = z
  .strictObject({
    currency: zCurrency,
    /** When this version starts to price calls; default now; never in the past. */
    effective_from: zTimestamp.optional(),
    prices: z.strictObject({
      input_tokens_per_million: zMicros,
      output_tokens_per_million: zMicros,
      per_call: zMicros,
      /** The platform's metered categories, only on its own cards (provider `capstan`): runtime per CPU-second, storage per GB-month, email per message. Default 0. */
      per_cpu_second: zMicros.optional(),
      per_gb_month: zMicros.optional(),
      per_message: zMicros.optional(),
    }),
  })
  .meta({ id: "RateCardRequest" });

export const ZRateCard = z
  .object({
    id: zId("rcv"),
    provider: z.string(),
    model: z.string(),
    currency: zCurrency,
    prices: z.object({
      input_tokens_per_million: z.number().int(),
      output_tokens_per_million: z.number().int(),
      per_call: z.number().int(),
      per_cpu_second: z.number().int(),
      per_gb_month: z.number().int(),
      per_message: z.number().int(),
    }),
    effective_from: zTime,
    /** When the next version of this provider/model takes over; null while none is scheduled. */
    effective_until: zTime.nullable(),
    created_by: z.string(),
    created_at: zTime,
  })
  .meta({ id: "RateCard" });
export type TRateCard = z.infer<typeof ZRateCard>;
export const ZRateCardList = zPage(ZRateCard).meta({ id: "RateCards" });
export const ZRateCardDetail = z
  .object({ current: ZRateCard.nullable(), versions: z.array(ZRateCard) })
  .meta({ id: "RateCardDetail" });
export const ZRateCardPath = z.object({ provider: zProviderName, model: zModelName });
export const ZRateCardListQuery = zListQuery.extend({
  provider: zProviderName.optional(),
  model: zModelName.optional(),
});

// ---------------------------------------------------------------- wallet

export const ZGrant = z
  .object({
    id: zId("gnt"),
    workspace_id: zWorkspaceId,
    currency: zCurrency,
    amount_micros: z.number().int(),
    remaining_micros: z.number().int(),
    priority: z.number().int(),
    expires_at: zTime,
    expired: z.boolean(),
    reason: z.string().nullable(),
    created_at: zTime,
  })
  .meta({ id: "WalletGrant" });
export type TGrant = z.infer<typeof ZGrant>;

export const ZGrantRequest = z
  .strictObject({
    amount_minor: zMinorPositive,
    currency: zCurrency,
    /** 0..100; higher is spent first. */
    priority: z.number().int().min(0).max(100).default(0),
    expires_at: zTimestamp,
    reason: z.string().min(1).max(512).optional(),
  })
  .meta({ id: "WalletGrantRequest" });

const ZBalance = z.object({
  currency: zCurrency,
  /** paid + granted; every figure is a sum of ledger entries. */
  total_micros: z.number().int(),
  paid_micros: z.number().int(),
  granted_micros: z.number().int(),
  /** total in minor units, truncated toward zero. */
  total_minor: z.number().int(),
  /** Held by prepaid calls in flight (released or charged when each settles). */
  held_micros: z.number().int(),
  /** total - held: what a prepaid call's hold is checked against. */
  available_micros: z.number().int(),
});

export const ZWallet = z
  .object({
    workspace_id: zWorkspaceId,
    balances: z.array(ZBalance),
    /** Unexpired grants with credit left, in the order they are spent. */
    grants: z.array(ZGrant),
    /** True when the Stripe gateway is configured on this platform (CAPSTAN_STRIPE_SECRET_KEY): saving a card, charging an invoice to it, checkout links and automatic top-up need it. */
    card_payments_available: z.boolean(),
  })
  .meta({ id: "Wallet" });
export type TWallet = z.infer<typeof ZWallet>;

export const ENTRY_KINDS = [
  "top_up",
  "grant",
  "usage",
  "refund",
  "adjustment",
  "expiry",
  "invoice_transfer",
  "invoice_payment",
  "credit_note",
] as const;
export const ZWalletEntry = z
  .object({
    id: zId("led"),
    workspace_id: zWorkspaceId,
    kind: z.enum(ENTRY_KINDS),
    currency: zCurrency,
    /** Signed: credits positive, debits negative. */
    amount_micros: z.number().int(),
    /** The grant this entry credits or spends; null for paid balance. */
    grant_id: z.string().nullable(),
    source: z.object({ kind: z.string(), id: z.string(), line: z.number().int() }),
    created_at: zTime,
  })
  .meta({ id: "WalletTransaction" });
export type TWalletEntry = z.infer<typeof ZWalletEntry>;
export const ZWalletEntryList = zPage(ZWalletEntry).meta({ id: "WalletTransactions" });
export const ZWalletEntryQuery = zListQuery.extend({ kind: z.enum(ENTRY_KINDS).optional() });

// ---------------------------------------------------------------- payments

export const GATEWAYS = ["manual", "stripe"] as const;

export const ZCheckoutRequest = z
  .strictObject({
    amount_minor: zMinorPositive,
    currency: zCurrency,
    /** Default: stripe where it is configured (CAPSTAN_STRIPE_SECRET_KEY), else manual. */
    gateway: z.enum(GATEWAYS).optional(),
  })
  .meta({ id: "CheckoutRequest" });

export const ZOrder = z
  .object({
    id: zId("pay"),
    workspace_id: zWorkspaceId,
    gateway: z.enum(GATEWAYS),
    /** expired: the gateway's checkout page expired unpaid. */
    status: z.enum(["pending", "succeeded", "failed", "expired"]),
    currency: zCurrency,
    amount_minor: z.number().int(),
    refunded_minor: z.number().int(),
    /** Where to pay: a gateway page, or null when payment happens out of band (manual gateway). */
    payment_url: z.string().nullable(),
    /** The gateway's object for this order (stripe: the Checkout Session id); null for manual. */
    gateway_reference: z.string().nullable(),
    /** What the payer does next, in words. */
    instructions: z.string(),
    failure_message: z.string().nullable(),
    paid_at: zTime.nullable(),
    created_at: zTime,
    updated_at: zTime,
  })
  .meta({ id: "PaymentOrder" });
export type TOrder = z.infer<typeof ZOrder>;
export const ZOrderList = zPage(ZOrder).meta({ id: "PaymentOrders" });

export const ZRefundRequest = z
  .strictObject({ payment_id: zId("pay"), amount_minor: zMinorPositive, reason: z.string().min(1).max(512).optional() })
  .meta({ id: "RefundRequest" });
export const ZRefund = z
  .object({
    id: zId("rfd"),
    workspace_id: zWorkspaceId,
    payment_id: zId("pay"),
    currency: zCurrency,
    amount_minor: z.number().int(),
    reason: z.string().nullable(),
    /** The gateway's refund (stripe: re_...); null for manual (the money goes back out of band). */
    gateway_reference: z.string().nullable(),
    created_at: zTime,
  })
  .meta({ id: "Refund" });
export type TRefund = z.infer<typeof ZRefund>;

/** The body of a manual-gateway callback (signed; see payments.service.ts). */
export const ZManualCallback = z.strictObject({
  id: z.string().min(1).max(128),
  type: z.enum(["payment.succeeded", "payment.failed"]),
  order_id: zId("pay"),
  amount_minor: zMinorPositive,
  currency: zCurrency,
  message: z.string().max(512).optional(),
});
export type TManualCallback = z.infer<typeof ZManualCallback>;

export const ZAdjustmentRequest = z
  .strictObject({
    /** Signed, non-zero: a credit (> 0) or a debit (< 0) of paid balance, in minor units. */
    amount_minor: z
      .number()
      .int()
      .min(-100_000_000_000)
      .max(100_000_000_000)
      .refine((v) => v !== 0, "must not be zero"),
    currency: zCurrency,
    /** Why, in words (kept on the audit record). */
    reason: z.string().min(1).max(512),
  })
  .meta({ id: "AdjustmentRequest" });
export const ZAdjustment = z
  .object({
    id: zId("adj"),
    workspace_id: zWorkspaceId,
    currency: zCurrency,
    amount_minor: z.number().int(),
    reason: z.string(),
    created_at: zTime,
  })
  .meta({ id: "Adjustment" });
export type TAdjustment = z.infer<typeof ZAdjustment>;
