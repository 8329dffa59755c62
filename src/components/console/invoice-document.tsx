"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeft, Printer } from "lucide-react";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { cn, focusRing } from "@/components/ui/cn";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { useTRPC } from "@/lib/trpc/client";
import { formatMicros, formatMinor } from "@/server/domain/billing/currencies";
import type { TInvoiceDocument } from "@/server/domain/billing/invoices.contract";
import { formatDate, formatDateTime, formatUnits } from "./format";
import { workspaceHref } from "./nav-config";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

type TInvoice = TInvoiceDocument["invoice"];
type TLine = TInvoice["lines"][number];

/** "2026-03" -> "1 Mar 2026 – 31 Mar 2026" (UTC month). */
function monthRange(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const fmt = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" });
  return `${fmt.format(new Date(Date.UTC(y, m - 1, 1)))} – ${fmt.format(new Date(Date.UTC(y, m, 0)))} (UTC)`;
}

function describe(l: TLine): { what: string; detail: string; quantity: string; unit: string; amount: string } {
  if (l.kind === "subscription") {
    const period = l.period_start && l.period_end ? `${formatDate(l.period_start)} – ${formatDate(l.period_end)}` : "";
    return {
      what: l.proration ? `Upgrade to ${l.tier}, prorated` : `Subscription ${l.tier}`,
      detail: l.proration ? `Price difference for the rest of the period ${period}` : period,
      quantity: "1", unit: "", amount: "",
    };
  }
  const p = l.unit_prices;
  const unit = [
    p.input_tokens_per_million ? `${formatMicros(p.input_tokens_per_million, "", true).trim()} / M input tokens` : null,
    p.output_tokens_per_million ? `${formatMicros(p.output_tokens_per_million, "", true).trim()} / M output tokens` : null,
    p.per_call ? `${formatMicros(p.per_call, "", true).trim()} / call` : null,
  ].filter(Boolean).join(", ");
  return {
    what: `${l.capability} · ${l.provider}${l.model ? ` / ${l.model}` : ""}`,
    detail: `Rate card ${l.rate_card_version_id}`,
    quantity: `${formatUnits(l.calls)} calls, ${formatUnits(l.tokens)} tokens`,
    unit: unit || "free", amount: "",
  };
}

function Address({ doc }: { doc: TInvoiceDocument }) {
  const p = doc.bill_to;
  if (!p.configured || !p.address) {
    return <p className="text-sm text-slate-700">{doc.workspace.name}<br /><span className="text-slate-600">No billing profile set (owners and admins set it with PUT …/billing-profile).</span></p>;
  }
  const a = p.address;
  return (
    <address className="text-sm not-italic text-slate-800">
      <strong className="font-semibold">{p.legal_name}</strong><br />
      {a.line1}<br />
      {a.line2 ? <>{a.line2}<br /></> : null}
      {a.postal_code} {a.city}{a.region ? `, ${a.region}` : ""}<br />
      {a.country}<br />
      {p.email}
      {p.tax_id ? <><br />Tax id {p.tax_id}</> : null}
    </address>
  );
}

/**
 * An issued invoice as a printable document (owner/admin): who it is for,
 * the period, each line with its quantity and unit prices, grants applied,
 * totals. The console's frame is hidden when printed.
 */
export function InvoiceDocument({ ws, ivc }: { ws: string; ivc: string }) {
  const trpc = useTRPC();
  const doc = useQuery(trpc.billing.invoiceDocument.queryOptions({ ws, ivc }));
  const d = doc.data;
  const i = d?.invoice;
  return (
    <>
      <div className="print:hidden">
        <Link href={workspaceHref(ws, "/billing")} className={cn("mb-4 inline-flex items-center gap-1 rounded-sm text-sm text-slate-700 underline", focusRing)}>
          <ArrowLeft aria-hidden="true" className="size-4" /> Billing
        </Link>
      </div>
      <PageHeader
        title={`Invoice ${ivc}`}
        description={i ? `${monthRange(i.month)} · ${i.currency}` : undefined}
        actions={i ? <Button type="button" variant="secondary" className="print:hidden" onClick={() => window.print()}><Printer aria-hidden="true" />Print</Button> : null}
      />
      <QueryStates query={doc} what="the invoice" inset={false} />
      {d && i ? (
        <article aria-label={`Invoice ${i.id}`} className="space-y-6 rounded-lg border border-slate-200 bg-white p-6 print:border-0 print:p-0">
          <div className="grid gap-6 sm:grid-cols-3">
            <section aria-labelledby="inv-from">
              <h2 id="inv-from" className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase">From</h2>
              <p className="text-sm text-slate-800">Capstan platform</p>
            </section>
            <section aria-labelledby="inv-to">
              <h2 id="inv-to" className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase">Bill to</h2>
              <Address doc={d} />
            </section>
            <section aria-labelledby="inv-facts">
              <h2 id="inv-facts" className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase">Invoice</h2>
              <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm text-slate-800">
                <dt className="text-slate-600">Number</dt><dd className="font-mono text-xs break-all">{i.id}</dd>
                <dt className="text-slate-600">Workspace</dt><dd>{d.workspace.name}</dd>
                <dt className="text-slate-600">Period</dt><dd>{i.month} (UTC)</dd>
                <dt className="text-slate-600">Issued</dt><dd>{formatDateTime(i.issued_at)}</dd>
                <dt className="text-slate-600">Currency</dt><dd>{i.currency}</dd>
                <dt className="text-slate-600">Status</dt><dd>{i.status}, final</dd>
              </dl>
            </section>
          </div>
          <Table>
            <TableCaption>Invoice lines</TableCaption>
            <TableHeader><TableRow><TableHead>Item</TableHead><TableHead>Quantity</TableHead><TableHead>Unit price ({i.currency})</TableHead><TableHead className="text-right">Amount</TableHead></TableRow></TableHeader>
            <TableBody>
              {i.lines.map((l, n) => {
                const x = describe(l);
                return (
                  <TableRow key={n}>
                    <TableCell><div className="font-medium">{x.what}</div>{x.detail ? <div className="text-xs text-slate-600">{x.detail}</div> : null}</TableCell>
                    <TableCell className="tabular-nums">{x.quantity}</TableCell>
                    <TableCell className="text-xs">{l.kind === "subscription" ? formatMinor(l.amount_minor, i.currency) : x.unit}</TableCell>
                    <TableCell className="text-right tabular-nums">{l.kind === "subscription" ? formatMinor(l.amount_minor, i.currency) : formatMicros(l.amount_micros, i.currency, true)}</TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
          <dl aria-label="Totals" className="ml-auto grid max-w-md grid-cols-[1fr_auto] gap-x-6 gap-y-1 text-sm">
            <dt className="text-slate-700">Usage (exact)</dt><dd className="text-right tabular-nums">{formatMicros(i.usage_micros, i.currency, true)}</dd>
            <dt className="text-slate-700">of which paid from credit grants</dt><dd className="text-right tabular-nums">{formatMicros(i.granted_micros, i.currency, true)}</dd>
            <dt className="text-slate-700">Subscription</dt><dd className="text-right tabular-nums">{formatMinor(i.subscription_minor, i.currency)}</dd>
            <dt className="text-slate-700">Tax</dt><dd className="text-right">not charged</dd>
            <dt className="border-t border-slate-300 pt-1 font-semibold">Total</dt><dd className="border-t border-slate-300 pt-1 text-right font-semibold tabular-nums">{formatMinor(i.total_minor, i.currency)}</dd>
          </dl>
          <p className="text-xs text-slate-600">
            Usage is priced per call with the rate card version in force when the call started, summed exactly in millionths and rounded half up once to the
            currency&apos;s minor unit; the total adds the subscription fee. Usage paid from credit grants is shown for information: the wallet&apos;s ledger
            already settled it. No tax is computed by this platform.
          </p>
        </article>
      ) : null}
    </>
  );
}
