import type { Invoice, InvoiceCollection, Prisma } from "@/generated/prisma/client";
import { type TActor } from "@/server/platform/audit";
import { AppError } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import { iso } from "@/server/platform/time";
import { toWire, type TCurrency } from "../money";
import { stripeConfigured } from "../stripe-gateway";
import type { TCollection } from "./collection.contract";

/** What every collection use case shares: the wire view, the payable and gateway checks, the in-flight refusal. */

export type TTx = Prisma.TransactionClient;
export type TTrigger = "owner" | "automatic" | "dunning";
export type TWho = { actor: TActor; correlationId: string };

export function toCollection(c: InvoiceCollection): TCollection {
  return {
    id: c.id,
    workspace_id: c.workspaceId,
    invoice_id: c.invoiceId,
    method: c.method as TCollection["method"],
    trigger: c.trigger as TTrigger,
    attempt: c.attempt,
    status: c.status as TCollection["status"],
    amount_minor: toWire(c.amountMinor),
    currency: c.currency as TCurrency,
    payment_method_id: c.paymentMethodId,
    gateway_reference: c.gatewayReference,
    url: c.actionUrl,
    failure_code: c.failureCode,
    failure_message: c.failureMessage,
    applied_to: c.appliedTo as TCollection["applied_to"],
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
  };
}

export function payable(row: Invoice): void {
  if (row.status !== "open" && row.status !== "uncollectible") {
    throw new AppError(
      "conflict",
      `Invoice ${row.number ?? row.id} is ${row.status}: only an open or uncollectible invoice can be collected`,
      { reason: "invoice_not_payable", extensions: { invoice_status: row.status } },
    );
  }
}

export function requireStripe(): void {
  if (!stripeConfigured())
    throw new AppError(
      "conflict",
      "Collecting by card needs the stripe gateway, which is not configured here (CAPSTAN_STRIPE_SECRET_KEY)",
      { reason: "gateway_unavailable" },
    );
}

export const isUnique = (err: unknown) => (err as { code?: string }).code === "P2002";
export const inFlight = (id: string) =>
  new AppError("conflict", `A collection of invoice ${id} is already in progress; wait for its outcome`, {
    reason: "collection_in_progress",
  });

export function logOutcome(c: TCollection): void {
  logger.info("billing.collection", {
    workspace_id: c.workspace_id,
    invoice_id: c.invoice_id,
    collection_id: c.id,
    status: c.status,
    failure_code: c.failure_code,
  });
}
