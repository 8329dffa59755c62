import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zPage } from "@/server/platform/pagination";
import { CURRENCY_CODES } from "../currencies";
import { ZInvoicePath } from "../invoices.contract";
import { zTierName } from "../subscriptions.contract";

/**
 * Collection (issue #36 items 3-4; docs/decisions.md "Billing: collection and
 * dunning"): saved payment methods, automatic top-up, collecting an invoice by
 * card or checkout link, the workspace's dunning standing, the platform's
 * dunning policy per tier. Money: integer minor units beside their currency.
 */

export const ZPaymentMethod = z
  .object({
    id: zId("pmt"),
    workspace_id: zWorkspaceId,
    gateway: z.enum(["stripe"]),
    /** The gateway's id of the method (Stripe `pm_…`): the card itself stays at the gateway. */
    gateway_reference: z.string(),
    brand: z.string().nullable(),
    last4: z.string().nullable(),
    exp_month: z.number().int().nullable(),
    exp_year: z.number().int().nullable(),
    /** The method automatic collection (invoices, dunning, auto top-up) charges. */
    default: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: "PaymentMethod" });
export type TPaymentMethod = z.infer<typeof ZPaymentMethod>;
export const ZPaymentMethodList = zPage(ZPaymentMethod).meta({ id: "PaymentMethods" });
export const ZPaymentMethodPath = z.object({ ws: zWorkspaceId, pmt: zId("pmt") });

export const ZPaymentMethodSetupRequest = z
  .strictObject({
    /** The currency the card will be charged in (optional; Stripe may use it to offer local methods). */
    currency: z.enum(CURRENCY_CODES).optional(),
  })
  .meta({ id: "PaymentMethodSetupRequest" });
export const ZPaymentMethodSetup = z
  .object({
    id: zId("pms"),
    workspace_id: zWorkspaceId,
    status: z.enum(["open", "complete", "expired"]),
    /** Where the owner saves the card (Stripe Checkout in setup mode); null once complete. */
    url: z.string().nullable(),
    /** The method saved, once the gateway confirmed the setup. */
    payment_method_id: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "PaymentMethodSetup" });
export type TPaymentMethodSetup = z.infer<typeof ZPaymentMethodSetup>;

export const ZAutoTopUp = z
  .object({
    workspace_id: zWorkspaceId,
    enabled: z.boolean(),
    currency: z.enum(CURRENCY_CODES).nullable(),
    /** When the wallet's available balance in `currency` falls below this, wallet.low_balance is emitted and (enabled) one top-up is charged. */
    threshold_minor: z.number().int().nullable(),
    amount_minor: z.number().int().nullable(),
    /** Since when the balance has been below the threshold (null: it is not). */
    low_balance_since: z.string().nullable(),
  })
  .meta({ id: "AutoTopUp" });
export type TAutoTopUp = z.infer<typeof ZAutoTopUp>;
export const ZAutoTopUpRequest = z
  .strictObject({
    enabled: z.boolean(),
    currency: z.enum(CURRENCY_CODES),
    threshold_minor: z.number().int().min(0).max(1_000_000_000_00),
    amount_minor: z.number().int().min(1).max(1_000_000_000_00),
  })
  .meta({ id: "AutoTopUpRequest" });

export const COLLECTION_STATUSES = ["processing", "open", "requires_action", "succeeded", "failed", "expired"] as const;
export const ZCollection = z
  .object({
    id: zId("col"),
    workspace_id: zWorkspaceId,
    invoice_id: zId("ivc"),
    /** card: a saved method charged off-session; checkout: a hosted payment page for this invoice. */
    method: z.enum(["card", "checkout"]),
    trigger: z.enum(["owner", "automatic", "dunning"]),
    attempt: z.number().int(),
    status: z.enum(COLLECTION_STATUSES),
    amount_minor: z.number().int(),
    currency: z.enum(CURRENCY_CODES),
    payment_method_id: z.string().nullable(),
    /** Stripe's PaymentIntent (card) or Checkout Session (checkout). */
    gateway_reference: z.string().nullable(),
    /** The owner's link: the checkout page, or where to complete 3-D Secure. */
    url: z.string().nullable(),
    failure_code: z.string().nullable(),
    failure_message: z.string().nullable(),
    /** invoice: paid the invoice; wallet: it arrived after the invoice was paid another way and was credited to the wallet. */
    applied_to: z.enum(["invoice", "wallet"]).nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "InvoiceCollection" });
export type TCollection = z.infer<typeof ZCollection>;
export const ZCollectionList = z.object({ data: z.array(ZCollection) }).meta({ id: "InvoiceCollections" });

export const ZCardPayRequest = z
  .strictObject({
    /** The saved method to charge; default: the workspace's default method. */
    payment_method_id: zId("pmt").optional(),
  })
  .meta({ id: "InvoiceCardPayRequest" });
export { ZInvoicePath };

export const DUNNING_POLICIES = ["keep_serving", "restrict", "suspend"] as const;
export const STANDINGS = ["good", "past_due", "restricted", "suspended"] as const;
export const ZStanding = z
  .object({
    workspace_id: zWorkspaceId,
    /** good; past_due: an invoice is in dunning (or dunning ended under keep_serving); restricted: no new deployments, priced Bridge calls refused; suspended: nothing is served. */
    standing: z.enum(STANDINGS),
    /** The standing in words, for people. */
    description: z.string(),
    invoice_id: z.string().nullable(),
    since: z.string().nullable(),
    dunning: z.array(
      z.object({
        invoice_id: zId("ivc"),
        number: z.string().nullable(),
        status: z.enum(["active", "exhausted", "resolved"]),
        step: z.number().int(),
        retries: z.number().int(),
        next_attempt_at: z.string().nullable(),
        started_at: z.string(),
        policy: z.enum(DUNNING_POLICIES).nullable(),
        amount_remaining_minor: z.number().int(),
        currency: z.enum(CURRENCY_CODES),
      }),
    ),
  })
  .meta({ id: "BillingStanding" });
export type TStanding = z.infer<typeof ZStanding>;

export const ZDunningPolicy = z
  .object({
    tier: z.string(),
    policy: z.enum(DUNNING_POLICIES),
    /** The written retry schedule: days after the first failed collection (CAPSTAN_DUNNING_RETRY_DAYS). */
    retry_days: z.array(z.number().int()),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "DunningPolicy" });
export type TDunningPolicy = z.infer<typeof ZDunningPolicy>;
export const ZDunningPolicyRequest = z
  .strictObject({ policy: z.enum(DUNNING_POLICIES) })
  .meta({ id: "DunningPolicyRequest" });
export const ZTierPath = z.object({ tier: zTierName });
