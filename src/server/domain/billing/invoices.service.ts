import type { Invoice, Prisma } from "@/generated/prisma/client";
import { env } from "@/server/platform/env";
import { scopedDb } from "@/server/platform/db/scoped";
import { notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import type { TInvoice, TInvoiceDocument } from "./invoices.contract";
import { CURRENCIES, divRoundHalfUp, toWire, type TCurrency, remainingMinor } from "./money";
import { getProfile } from "./profile.service";
import { meteredLines, type TMeteredLine } from "./pricing-metered.service";
import { inWallet, spend } from "./wallet.service";
import { finalizeIn } from "./invoice-lifecycle.service";
import { creditNotesOf } from "./credit-notes.service";

/**
 * Month-close invoices (docs/decisions.md "Billing"): one per workspace,
 * month and currency, for the calls that STARTED in that month (the month
 * their card version was chosen by), issued by the worker once the month is
 * over, immutable. Usage lines group calls by capability, provider, model and
 * card version; the usage total equals the ledger's usage debits of those
 * calls to the micro, rounded half up once to minor units.
 */

function monthBounds(month: string): { start: Date; end: Date } {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return { start: new Date(Date.UTC(y, m - 1, 1)), end: new Date(Date.UTC(y, m, 1)) };
}

export function toInvoice(i: Invoice): TInvoice {
  return {
    id: i.id,
    workspace_id: i.workspaceId,
    number: i.number,
    month: i.month,
    currency: i.currency as TCurrency,
    status: i.status as TInvoice["status"],
    lines: i.lines as TInvoice["lines"],
    usage_micros: toWire(i.usageMicros),
    granted_micros: toWire(i.grantedMicros),
    subscription_minor: toWire(i.subscriptionMinor),
    total_minor: toWire(i.totalMinor),
    debt_minor: toWire(i.debtMinor),
    amount_due_minor: toWire(i.amountDueMinor),
    amount_paid_minor: toWire(i.amountPaidMinor),
    credited_minor: toWire(i.creditedMinor),
    amount_remaining_minor: toWire(remainingMinor(i)),
    due_at: isoOrNull(i.dueAt),
    finalized_at: isoOrNull(i.finalizedAt),
    paid_at: isoOrNull(i.paidAt),
    voided_at: isoOrNull(i.voidedAt),
    uncollectible_at: isoOrNull(i.uncollectibleAt),
    issued_at: iso(i.issuedAt),
    created_at: iso(i.createdAt),
  };
}

export async function listInvoices(workspaceId: string, q: TListQuery): Promise<TPage<TInvoice>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).invoice.findMany(args);
  return toPage(rows, q, toInvoice);
}

/** One invoice of the workspace (a scoped read: another workspace's id is simply not there, 404). */
export async function getInvoice(workspaceId: string, id: string): Promise<TInvoice> {
  const row = await scopedDb(workspaceId).invoice.findFirst({ where: { id } });
  if (!row) throw notFound(`Invoice ${id}`);
  return toInvoice(row);
}

/** The printable invoice: the invoice, the workspace and its billing profile as it is now (the profile is not snapshotted). */
export async function getInvoiceDocument(workspaceId: string, id: string): Promise<TInvoiceDocument> {
  const invoice = await getInvoice(workspaceId, id);
  const [workspace, billTo] = await Promise.all([
    scopedDb(workspaceId).workspace.findFirst({ select: { id: true, name: true } }),
    getProfile(workspaceId),
  ]);
  if (!workspace) throw notFound(`Workspace ${workspaceId}`);
  return {
    invoice,
    workspace,
    bill_to: billTo,
    credit_notes: await creditNotesOf(workspaceId, id, invoice.number ?? invoice.id),
  };
}

type TLineRow = {
  capability: string;
  provider: string;
  model: string | null;
  rate_card_version_id: string;
  calls: number;
  tokens: number;
  amount: bigint;
  input: bigint;
  output: bigint;
  per_call: bigint;
};

/** `tx`: the workspace's scoped wallet transaction (inWallet); its raw SQL names the workspace itself. */
async function issueIn(
  tx: Prisma.TransactionClient,
  workspaceId: string,
  month: string,
  currency: TCurrency,
  now: Date,
  metered: TMeteredLine[],
): Promise<Invoice | null> {
  const existing = await tx.invoice.findUnique({
    where: { workspaceId_month_currency: { workspaceId, month, currency } },
  });
  if (existing) return null;
  const id = newId("ivc");
  const { start, end } = monthBounds(month);
  const lines = await tx.$queryRaw<TLineRow[]>`
    SELECT ci.capability, ci.provider, v.model, ci.rate_card_version_id, count(*)::int AS calls, coalesce(sum(ci.usage_units), 0)::int AS tokens,
           sum(ci.charge_micros)::bigint AS amount, v.input_tokens_per_million AS input, v.output_tokens_per_million AS output, v.per_call
      FROM capability_invocations ci JOIN rate_card_versions v ON v.id = ci.rate_card_version_id
     WHERE ci.workspace_id = ${workspaceId} AND ci.charge_currency = ${currency} AND ci.charge_micros IS NOT NULL
       AND ci.requested_at >= ${start} AND ci.requested_at < ${end}
     GROUP BY ci.capability, ci.provider, v.model, ci.rate_card_version_id, v.input_tokens_per_million, v.output_tokens_per_million, v.per_call
     ORDER BY ci.capability, ci.provider, v.model, ci.rate_card_version_id`;
  const granted = await tx.$queryRaw<{ g: bigint | null }[]>`
    SELECT -sum(e.amount_micros)::bigint AS g FROM wallet_entries e JOIN capability_invocations ci ON ci.id = e.source_id
     WHERE e.source_kind = 'capability_invocation' AND e.grant_id IS NOT NULL AND e.currency = ${currency}
       AND ci.workspace_id = ${workspaceId} AND ci.requested_at >= ${start} AND ci.requested_at < ${end}`;
  // Each subscription period that started this month bills its snapshotted price (renewals and changes alike).
  const periods = await tx.subscriptionPeriod.findMany({
    where: { currency, periodStart: { gte: start, lt: end }, OR: [{ priceMinor: { not: 0 } }, { kind: "trial" }] },
    orderBy: { periodStart: "asc" },
  });
  const fee = periods.reduce((sum, p) => sum + p.priceMinor, BigInt(0));
  // Runtime, storage and email, priced now (docs/decisions.md "Credit notes, subscriptions that end, metered pricing"): debited from the
  // wallet like usage (grants first, then paid balance), once per invoice (the ledger's unique source), so what the paid
  // balance cannot cover moves onto this invoice as debt at finalization.
  const meteredMicros = metered.reduce((sum, l) => sum + BigInt(l.amount_micros), BigInt(0));
  let meteredGranted = BigInt(0);
  if (meteredMicros > BigInt(0)) {
    await spend(tx, workspaceId, currency, meteredMicros, "usage", { kind: "metered_usage", id }, now);
    const g = await tx.$queryRaw<{ g: bigint | null }[]>`
      SELECT -sum(amount_micros)::bigint AS g FROM wallet_entries WHERE source_kind = 'metered_usage' AND source_id = ${id} AND grant_id IS NOT NULL`;
    meteredGranted = BigInt(g[0]?.g ?? 0);
  }
  const usage = lines.reduce((sum, l) => sum + BigInt(l.amount), BigInt(0)) + meteredMicros;
  if (usage === BigInt(0) && fee === BigInt(0)) return null;
  const microsPerMinor = BigInt(10) ** BigInt(6 - CURRENCIES[currency]);
  const total = divRoundHalfUp(usage, microsPerMinor) + fee;
  const json = [
    ...periods.map((p) => ({
      kind: "subscription" as const,
      tier: p.tier,
      amount_minor: toWire(p.priceMinor),
      period_start: iso(p.periodStart),
      period_end: iso(p.periodEnd),
      ...(p.kind === "proration" ? { proration: true } : {}),
      ...(p.kind === "trial" ? { trial: true } : {}),
      ...(p.kind === "cancellation" ? { cancellation: true } : {}),
    })),
    ...lines.map((l) => ({
      kind: "usage" as const,
      capability: l.capability,
      provider: l.provider,
      model: l.model ?? "",
      rate_card_version_id: l.rate_card_version_id,
      calls: l.calls,
      tokens: l.tokens,
      amount_micros: toWire(BigInt(l.amount)),
      unit_prices: {
        input_tokens_per_million: toWire(BigInt(l.input)),
        output_tokens_per_million: toWire(BigInt(l.output)),
        per_call: toWire(BigInt(l.per_call)),
      },
    })),
    ...metered.map(({ currency: _c, ...l }) => l),
  ];
  const draft = await tx.invoice.create({
    data: {
      id,
      workspaceId,
      month,
      currency,
      lines: json,
      usageMicros: usage,
      grantedMicros: BigInt(granted[0]?.g ?? 0) + meteredGranted,
      subscriptionMinor: fee,
      totalMinor: total,
      issuedAt: now,
      createdAt: now,
      status: "draft",
      issuer: env().CAPSTAN_INVOICE_ISSUER,
    },
  });
  // Auto-advance (Stripe's default): the draft is finalized in the same transaction, so a closed month never leaves a draft behind.
  const row = await finalizeIn(tx, draft, now);
  return row;
}

/**
 * Issues the invoices of `month` for one workspace (one per currency with
 * priced calls or a subscription fee). Due usage is posted to the ledger
 * first, under the wallet lock. Idempotent: an issued invoice is never redone.
 */
export async function issueInvoices(workspaceId: string, month: string, now = new Date()): Promise<TInvoice[]> {
  return inWallet(workspaceId, async (tx) => {
    const { start, end } = monthBounds(month);
    const currencies = await tx.$queryRaw<{ c: string }[]>`
      SELECT DISTINCT charge_currency AS c FROM capability_invocations
       WHERE workspace_id = ${workspaceId} AND charge_micros IS NOT NULL AND requested_at >= ${start} AND requested_at < ${end}
      UNION SELECT currency FROM subscription_periods WHERE workspace_id = ${workspaceId} AND period_start >= ${start} AND period_start < ${end}`;
    const metered = await meteredLines(tx, workspaceId, start, end);
    const codes = new Set([...currencies.map((r) => r.c), ...metered.map((l) => l.currency)]);
    const out: TInvoice[] = [];
    for (const c of [...codes].sort()) {
      const row = await issueIn(
        tx,
        workspaceId,
        month,
        c as TCurrency,
        now,
        metered.filter((l) => l.currency === c),
      );
      if (row) out.push(toInvoice(row));
    }
    return out;
  });
}
