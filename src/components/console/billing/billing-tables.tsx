"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { useTRPC } from "@/lib/trpc/client";
import type { TOrder, TWalletEntry } from "@/server/domain/billing/billing.contract";
import { formatMicros, formatMinor } from "@/server/domain/billing/currencies";
import type { TInvoice } from "@/server/domain/billing/invoices.contract";
import { formatDateTime } from "../shared/format";
import type { TColumn } from "../shared/resource-table";
import { TableCard } from "../shared/table-card";
import { workspaceHref } from "../shell/nav-config";
import { InvoiceStatusChip } from "./invoice-actions";

const ORDER_TONE = { pending: "info", succeeded: "success", failed: "danger", expired: "neutral" } as const;
const KIND_LABEL = {
  top_up: "Top-up",
  grant: "Grant",
  usage: "Usage",
  refund: "Refund",
  adjustment: "Adjustment",
  expiry: "Grant expired",
  invoice_transfer: "Debt moved to invoice",
  invoice_payment: "Invoice paid from wallet",
  credit_note: "Credit note",
} as const;

const money = "tabular-nums";

const ORDER_COLUMNS: TColumn<TOrder>[] = [
  { key: "id", label: "Order", className: "font-mono text-xs", cell: (o) => o.id },
  {
    key: "amount",
    label: "Amount",
    className: money,
    cell: (o) =>
      `${formatMinor(o.amount_minor, o.currency)}${o.refunded_minor ? ` (refunded ${formatMinor(o.refunded_minor, o.currency)})` : ""}`,
  },
  {
    key: "status",
    label: "Status",
    cell: (o) => (
      <div>
        <Badge tone={ORDER_TONE[o.status]}>{o.status}</Badge>
        {o.failure_message ? <div className="pt-1 text-xs text-rose-800">{o.failure_message}</div> : null}
      </div>
    ),
  },
  { key: "created", label: "Created", priority: 2, cell: (o) => formatDateTime(o.created_at) },
];

/** The wallet's top-up orders, newest first. */
export function OrdersTable({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const orders = useInfiniteQuery(
    trpc.billing.orders.infiniteQueryOptions(
      { ws, limit: 20, order: "desc" },
      { getNextPageParam: (p) => p.next_cursor ?? undefined },
    ),
  );
  return (
    <TableCard
      title="Orders"
      query={orders}
      what="orders"
      emptyText="No top-up orders yet."
      loadMoreLabel="Load more orders"
      caption="Top-up orders"
      columns={ORDER_COLUMNS}
    />
  );
}

/** The monthly invoices; the invoice number opens the invoice for those who may pay it. */
export function InvoicesTable({ ws, canWrite }: { ws: string; canWrite: boolean }) {
  const trpc = useTRPC();
  const invoices = useQuery(trpc.billing.invoices.queryOptions({ ws, limit: 12, order: "desc" }));
  const columns: TColumn<TInvoice>[] = [
    {
      key: "invoice",
      label: "Invoice",
      cell: (i) =>
        canWrite ? (
          <Link
            href={workspaceHref(ws, `/billing/invoices/${i.id}`)}
            className="rounded-sm font-mono text-xs underline"
            aria-label={`Invoice ${i.number ?? i.month} ${i.currency}`}
          >
            {i.number ?? i.id}
          </Link>
        ) : (
          <span className="font-mono text-xs">{i.number ?? i.id}</span>
        ),
    },
    { key: "month", label: "Month", cell: (i) => i.month },
    { key: "status", label: "Status", cell: (i) => <InvoiceStatusChip invoice={i} /> },
    {
      key: "total",
      label: "Total",
      priority: 2,
      className: money,
      cell: (i) => formatMinor(i.total_minor, i.currency),
    },
    {
      key: "due_amount",
      label: "Amount due",
      className: `${money} font-medium`,
      cell: (i) => formatMinor(i.amount_due_minor, i.currency),
    },
    {
      key: "remaining",
      label: "Remaining",
      className: money,
      cell: (i) => formatMinor(i.amount_remaining_minor, i.currency),
    },
    { key: "due", label: "Due", priority: 3, cell: (i) => (i.due_at ? formatDateTime(i.due_at) : "-") },
  ];
  return (
    <TableCard
      title="Invoices"
      description={
        <>
          Issued at month close; what the wallet did not already pay is due by the billing profile&apos;s payment terms.
          Open an invoice to pay it or download its PDF.
        </>
      }
      query={invoices}
      what="invoices"
      emptyText="No invoices yet."
      caption="Monthly invoices"
      columns={columns}
    />
  );
}

const ENTRY_COLUMNS: TColumn<TWalletEntry>[] = [
  { key: "when", label: "When", cell: (e) => formatDateTime(e.created_at) },
  { key: "kind", label: "Kind", cell: (e) => `${KIND_LABEL[e.kind]}${e.grant_id ? " (grant)" : ""}` },
  {
    key: "amount",
    label: "Amount",
    className: money,
    cell: (e) => formatMicros(e.amount_micros, e.currency, e.kind === "usage"),
  },
  { key: "source", label: "Source", priority: 2, className: "font-mono text-xs", cell: (e) => e.source.id },
];

/** The wallet's ledger (append-only), newest first. */
export function TransactionsTable({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const ledger = useInfiniteQuery(
    trpc.billing.transactions.infiniteQueryOptions(
      { ws, limit: 50, order: "desc" },
      { getNextPageParam: (p) => p.next_cursor ?? undefined },
    ),
  );
  return (
    <TableCard
      title="Transactions"
      query={ledger}
      what="transactions"
      emptyText="No transactions yet."
      loadMoreLabel="Load more transactions"
      caption="The wallet's ledger (append-only)"
      columns={ENTRY_COLUMNS}
    />
  );
}
