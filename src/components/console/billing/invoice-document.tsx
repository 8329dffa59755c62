"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeft, Printer } from "lucide-react";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { cn, focusRing } from "@/components/ui/cn";
import { useTRPC } from "@/lib/trpc/client";
import { formatMinor } from "@/server/domain/billing/currencies";
import type { TInvoiceDocument } from "@/server/domain/billing/invoices.contract";
import { formatDate, formatDateTime } from "../shared/format";
import { workspaceHref } from "../shell/nav-config";
import { PageHeader } from "../shared/page-header";
import { QueryStates } from "../shared/query-states";
import { InvoiceActions, InvoiceStatusChip } from "./invoice-actions";
import { InvoiceCollectActions } from "./invoice-collect-actions";
import { InvoiceLines } from "./invoice-lines";
import { CreditNoteForm, usePlatformAdmin } from "./credit-note-form";

/** "2026-03" -> "1 Mar 2026 – 31 Mar 2026" (UTC month). */
function monthRange(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const fmt = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" });
  return `${fmt.format(new Date(Date.UTC(y, m - 1, 1)))} – ${fmt.format(new Date(Date.UTC(y, m, 0)))} (UTC)`;
}

function Address({ doc }: { doc: TInvoiceDocument }) {
  const p = doc.bill_to;
  if (!p.configured || !p.address) {
    return (
      <p className="text-sm text-slate-700">
        {doc.workspace.name}
        <br />
        <span className="text-slate-600">
          No billing profile set (owners and admins set it with PUT …/billing-profile).
        </span>
      </p>
    );
  }
  const a = p.address;
  return (
    <address className="text-sm not-italic text-slate-800">
      <strong className="font-semibold">{p.legal_name}</strong>
      <br />
      {a.line1}
      <br />
      {a.line2 ? (
        <>
          {a.line2}
          <br />
        </>
      ) : null}
      {a.postal_code} {a.city}
      {a.region ? `, ${a.region}` : ""}
      <br />
      {a.country}
      <br />
      {p.email}
      {p.tax_id ? (
        <>
          <br />
          Tax id {p.tax_id}
        </>
      ) : null}
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
  const platformAdmin = usePlatformAdmin();
  const d = doc.data;
  const i = d?.invoice;
  return (
    <>
      <div className="print:hidden">
        <Link
          href={workspaceHref(ws, "/billing")}
          className={cn("mb-4 inline-flex items-center gap-1 rounded-sm text-sm text-slate-700 underline", focusRing)}
        >
          <ArrowLeft aria-hidden="true" className="size-4" /> Billing
        </Link>
      </div>
      <PageHeader
        title={`Invoice ${i?.number ?? ivc}`}
        description={i ? `${monthRange(i.month)} · ${i.currency}` : undefined}
        actions={
          i ? (
            <div className="flex items-start gap-2">
              <InvoiceActions ws={ws} invoice={i} />
              <InvoiceCollectActions ws={ws} invoice={i} />
              {platformAdmin ? <CreditNoteForm ws={ws} invoice={i} /> : null}
              <Button type="button" variant="secondary" className="print:hidden" onClick={() => window.print()}>
                <Printer aria-hidden="true" />
                Print
              </Button>
            </div>
          ) : null
        }
      />
      <QueryStates query={doc} what="the invoice" inset={false} />
      {d && i ? (
        <article
          aria-label={`Invoice ${i.id}`}
          className="space-y-6 rounded-lg border border-slate-200 bg-white p-6 print:border-0 print:p-0"
        >
          <div className="grid gap-6 sm:grid-cols-3">
            <section aria-labelledby="inv-from">
              <h2 id="inv-from" className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase">
                From
              </h2>
              <p className="text-sm text-slate-800">Capstan platform</p>
            </section>
            <section aria-labelledby="inv-to">
              <h2 id="inv-to" className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase">
                Bill to
              </h2>
              <Address doc={d} />
            </section>
            <section aria-labelledby="inv-facts">
              <h2 id="inv-facts" className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase">
                Invoice
              </h2>
              <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm text-slate-800">
                <dt className="text-slate-600">Number</dt>
                <dd className="font-mono text-xs break-all">{i.number ?? "(draft)"}</dd>
                <dt className="text-slate-600">Id</dt>
                <dd className="font-mono text-xs break-all">{i.id}</dd>
                <dt className="text-slate-600">Workspace</dt>
                <dd>{d.workspace.name}</dd>
                <dt className="text-slate-600">Period</dt>
                <dd>{i.month} (UTC)</dd>
                <dt className="text-slate-600">Issued</dt>
                <dd>{formatDateTime(i.issued_at)}</dd>
                <dt className="text-slate-600">Currency</dt>
                <dd>{i.currency}</dd>
                <dt className="text-slate-600">Status</dt>
                <dd>
                  <InvoiceStatusChip invoice={i} />
                </dd>
                <dt className="text-slate-600">Due</dt>
                <dd>{i.due_at ? formatDateTime(i.due_at) : "-"}</dd>
              </dl>
            </section>
          </div>
          <InvoiceLines invoice={i} />
          {d.credit_notes.length ? (
            <section aria-label="Credit notes" className="text-sm">
              <h2 className="font-semibold">Credit notes</h2>
              <ul className="mt-1 space-y-1">
                {d.credit_notes.map((n) => (
                  <li key={n.id}>
                    {n.number} · {formatDate(n.created_at)} · −{formatMinor(n.amount_minor, n.currency)} · {n.reason}
                    {n.refunded_minor
                      ? ` (${formatMinor(n.refunded_minor, n.currency)} refunded to the ${n.refund_to})`
                      : ""}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          <p className="text-xs text-slate-600">
            Usage is priced per call with the rate card version in force when the call started, summed exactly in
            millionths and rounded half up once to the currency&apos;s minor unit; the total adds the subscription fee.
            Usage paid from credit grants is shown for information: the wallet&apos;s ledger already settled it. No tax
            is computed by this platform.
          </p>
        </article>
      ) : null}
    </>
  );
}
