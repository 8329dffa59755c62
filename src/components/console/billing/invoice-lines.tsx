"use client";

import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatMicros, formatMinor } from "@/server/domain/billing/currencies";
import { describeMetered, type TInvoiceDocument } from "@/server/domain/billing/invoices.contract";
import { formatDate, formatUnits } from "../shared/format";

type TInvoice = TInvoiceDocument["invoice"];
type TLine = TInvoice["lines"][number];

function describe(l: TLine): { what: string; detail: string; quantity: string; unit: string; amount: string } {
  if (l.kind === "subscription") {
    const period = l.period_start && l.period_end ? `${formatDate(l.period_start)} – ${formatDate(l.period_end)}` : "";
    return {
      what: l.proration
        ? `Upgrade to ${l.tier}, prorated`
        : l.trial
          ? `Free trial of ${l.tier}`
          : l.cancellation
            ? `Cancelled ${l.tier} at once`
            : `Subscription ${l.tier}`,
      detail: l.proration
        ? `Price difference for the rest of the period ${period}`
        : l.cancellation
          ? `Unused time credited ${period}`
          : period,
      quantity: "1",
      unit: "",
      amount: "",
    };
  }
  if (l.kind === "metered") {
    const d = describeMetered(l);
    return {
      what: d.what,
      detail: `Rate card ${l.rate_card_version_id}`,
      quantity: d.quantity,
      unit: d.unitPrice,
      amount: "",
    };
  }
  const p = l.unit_prices;
  const unit = [
    p.input_tokens_per_million ? `${formatMicros(p.input_tokens_per_million, "", true).trim()} / M input tokens` : null,
    p.output_tokens_per_million
      ? `${formatMicros(p.output_tokens_per_million, "", true).trim()} / M output tokens`
      : null,
    p.per_call ? `${formatMicros(p.per_call, "", true).trim()} / call` : null,
  ]
    .filter(Boolean)
    .join(", ");
  return {
    what: `${l.capability} · ${l.provider}${l.model ? ` / ${l.model}` : ""}`,
    detail: `Rate card ${l.rate_card_version_id}`,
    quantity: `${formatUnits(l.calls)} calls, ${formatUnits(l.tokens)} tokens`,
    unit: unit || "free",
    amount: "",
  };
}

/** The invoice's lines (item, quantity, unit price, amount) and its totals, as printed. */
export function InvoiceLines({ invoice: i }: { invoice: TInvoice }) {
  return (
    <>
      <Table>
        <TableCaption>Invoice lines</TableCaption>
        <TableHeader>
          <TableRow>
            <TableHead>Item</TableHead>
            <TableHead>Quantity</TableHead>
            <TableHead>Unit price ({i.currency})</TableHead>
            <TableHead className="text-right">Amount</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {i.lines.map((l, n) => {
            const x = describe(l);
            return (
              <TableRow key={n}>
                <TableCell>
                  <div className="font-medium">{x.what}</div>
                  {x.detail ? <div className="text-xs text-slate-600">{x.detail}</div> : null}
                </TableCell>
                <TableCell className="tabular-nums">{x.quantity}</TableCell>
                <TableCell className="text-xs">
                  {l.kind === "subscription" ? formatMinor(l.amount_minor, i.currency) : x.unit}
                </TableCell>
                <TableCell className="text-right tabular-nums">
                  {l.kind === "subscription"
                    ? formatMinor(l.amount_minor, i.currency)
                    : formatMicros(l.amount_micros, i.currency, true)}
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      <dl aria-label="Totals" className="ml-auto grid max-w-md grid-cols-[1fr_auto] gap-x-6 gap-y-1 text-sm">
        <dt className="text-slate-700">Usage (exact)</dt>
        <dd className="text-right tabular-nums">{formatMicros(i.usage_micros, i.currency, true)}</dd>
        <dt className="text-slate-700">of which paid from credit grants</dt>
        <dd className="text-right tabular-nums">{formatMicros(i.granted_micros, i.currency, true)}</dd>
        <dt className="text-slate-700">Subscription</dt>
        <dd className="text-right tabular-nums">{formatMinor(i.subscription_minor, i.currency)}</dd>
        <dt className="text-slate-700">Tax</dt>
        <dd className="text-right">not charged</dd>
        <dt className="border-t border-slate-300 pt-1 font-semibold">Total</dt>
        <dd className="border-t border-slate-300 pt-1 text-right font-semibold tabular-nums">
          {formatMinor(i.total_minor, i.currency)}
        </dd>
        <dt className="text-slate-700">Already paid by the wallet at close</dt>
        <dd className="text-right tabular-nums">{formatMinor(i.total_minor - i.amount_due_minor, i.currency)}</dd>
        <dt className="font-semibold">Amount due</dt>
        <dd className="text-right font-semibold tabular-nums">{formatMinor(i.amount_due_minor, i.currency)}</dd>
        <dt className="text-slate-700">Paid</dt>
        <dd className="text-right tabular-nums">{formatMinor(i.amount_paid_minor, i.currency)}</dd>
        <dt className="text-slate-700">Credited</dt>
        <dd className="text-right tabular-nums">{formatMinor(i.credited_minor, i.currency)}</dd>
        <dt className="border-t border-slate-300 pt-1 font-semibold">Amount remaining</dt>
        <dd className="border-t border-slate-300 pt-1 text-right font-semibold tabular-nums">
          {formatMinor(i.amount_remaining_minor, i.currency)}
        </dd>
      </dl>
    </>
  );
}
