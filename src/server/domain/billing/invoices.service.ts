import type { Invoice, Prisma } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, utcMonth } from "@/server/platform/time";
import type { TInvoice, TInvoiceDocument } from "./invoices.contract";
import { CURRENCIES, divRoundHalfUp, toWire, type TCurrency } from "./money";
import { getProfile } from "./subscriptions.service";
import { inWallet } from "./wallet.service";

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

export function previousMonth(now = new Date()): string {
  return utcMonth(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
}

function toInvoice(i: Invoice): TInvoice {
  return {
    id: i.id, workspace_id: i.workspaceId, month: i.month, currency: i.currency as TCurrency, status: "issued",
    lines: i.lines as TInvoice["lines"], usage_micros: toWire(i.usageMicros), granted_micros: toWire(i.grantedMicros),
    subscription_minor: toWire(i.subscriptionMinor), total_minor: toWire(i.totalMinor), issued_at: iso(i.issuedAt), created_at: iso(i.createdAt),
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
  const [workspace, billTo] = await Promise.all([scopedDb(workspaceId).workspace.findFirst({ select: { id: true, name: true } }), getProfile(workspaceId)]);
  if (!workspace) throw notFound(`Workspace ${workspaceId}`);
  return { invoice, workspace, bill_to: billTo };
}

type TLineRow = {
  capability: string; provider: string; model: string | null; rate_card_version_id: string; calls: number; tokens: number; amount: bigint;
  input: bigint; output: bigint; per_call: bigint;
};

/** `tx`: the workspace's scoped wallet transaction (inWallet); its raw SQL names the workspace itself. */
async function issueIn(tx: Prisma.TransactionClient, workspaceId: string, month: string, currency: TCurrency, now: Date): Promise<Invoice | null> {
  const existing = await tx.invoice.findUnique({ where: { workspaceId_month_currency: { workspaceId, month, currency } } });
  if (existing) return null;
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
    where: { currency, periodStart: { gte: start, lt: end }, priceMinor: { gt: 0 } }, orderBy: { periodStart: "asc" },
  });
  const fee = periods.reduce((sum, p) => sum + p.priceMinor, BigInt(0));
  const usage = lines.reduce((sum, l) => sum + BigInt(l.amount), BigInt(0));
  if (usage === BigInt(0) && fee === BigInt(0)) return null;
  const microsPerMinor = BigInt(10) ** BigInt(6 - CURRENCIES[currency]);
  const total = divRoundHalfUp(usage, microsPerMinor) + fee;
  const json = [
    ...periods.map((p) => ({ kind: "subscription" as const, tier: p.tier, amount_minor: toWire(p.priceMinor), period_start: iso(p.periodStart), period_end: iso(p.periodEnd),
      ...(p.kind === "proration" ? { proration: true } : {}) })),
    ...lines.map((l) => ({
      kind: "usage" as const, capability: l.capability, provider: l.provider, model: l.model ?? "", rate_card_version_id: l.rate_card_version_id,
      calls: l.calls, tokens: l.tokens, amount_micros: toWire(BigInt(l.amount)),
      unit_prices: { input_tokens_per_million: toWire(BigInt(l.input)), output_tokens_per_million: toWire(BigInt(l.output)), per_call: toWire(BigInt(l.per_call)) },
    })),
  ];
  const row = await tx.invoice.create({
    data: {
      id: newId("ivc"), workspaceId, month, currency, lines: json, usageMicros: usage, grantedMicros: BigInt(granted[0]?.g ?? 0),
      subscriptionMinor: fee, totalMinor: total, issuedAt: now, createdAt: now,
    },
  });
  await writeAudit(tx, {
    workspaceId, actor: { kind: "system", id: null }, action: "billing.invoice_issued", target: { kind: "invoice", id: row.id },
    correlationId: newId("evt"), details: { month, currency, total_minor: toWire(total), usage_micros: toWire(usage) },
  });
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
    const out: TInvoice[] = [];
    for (const { c } of currencies) {
      const row = await issueIn(tx, workspaceId, month, c as TCurrency, now);
      if (row) out.push(toInvoice(row));
    }
    return out;
  });
}

/**
 * Worker tick: the previous month's invoices of every workspace that has something to bill and no invoice yet.
 * Platform-scoped by design (month close): the scan spans all workspaces on db(); each is then issued scoped.
 */
export async function issueDueInvoices(now = new Date()): Promise<number> {
  const month = previousMonth(now);
  const { start, end } = monthBounds(month);
  // platform-scoped: month close scans every workspace; each is then issued scoped.
  const due = await db().$queryRaw<{ workspace_id: string }[]>`
    SELECT DISTINCT ci.workspace_id FROM capability_invocations ci
     WHERE ci.charge_micros IS NOT NULL AND ci.requested_at >= ${start} AND ci.requested_at < ${end}
       AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.workspace_id = ci.workspace_id AND i.month = ${month})
    UNION SELECT s.workspace_id FROM subscription_periods s
     WHERE s.period_start >= ${start} AND s.period_start < ${end}
       AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.workspace_id = s.workspace_id AND i.month = ${month})
    LIMIT 500`;
  let issued = 0;
  for (const { workspace_id } of due) {
    try {
      issued += (await issueInvoices(workspace_id, month, now)).length;
    } catch (err) {
      logger.error("billing.invoice_failed", { workspace_id, month, error: String(err) });
    }
  }
  return issued;
}
