"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Download, Wallet } from "lucide-react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn, focusRing } from "@/components/ui/cn";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatMinor } from "@/server/domain/billing/currencies";
import type { TInvoice } from "@/server/domain/billing/invoices.contract";

/** An invoice's status in words, with a tone (docs/decisions.md "Billing: invoices as receivables"). */
const STATUS: Record<
  TInvoice["status"],
  { label: string; tone: "neutral" | "info" | "success" | "warning" | "danger" }
> = {
  draft: { label: "Draft", tone: "neutral" },
  open: { label: "Open", tone: "info" },
  paid: { label: "Paid", tone: "success" },
  void: { label: "Void", tone: "neutral" },
  uncollectible: { label: "Uncollectible", tone: "danger" },
};

export function InvoiceStatusChip({
  invoice,
}: {
  invoice: Pick<TInvoice, "status" | "due_at" | "amount_remaining_minor">;
}) {
  const s = STATUS[invoice.status];
  const overdue =
    invoice.status === "open" &&
    invoice.due_at !== null &&
    invoice.amount_remaining_minor > 0 &&
    new Date(invoice.due_at) < new Date();
  return <Badge tone={overdue ? "warning" : s.tone}>{overdue ? "Overdue" : s.label}</Badge>;
}

export function pdfHref(ws: string, ivc: string): string {
  return `/v1/workspaces/${ws}/invoices/${ivc}/pdf`;
}

/** Pay now (from the wallet's paid balance) and Download PDF, for owners and admins. */
export function InvoiceActions({ ws, invoice }: { ws: string; invoice: TInvoice }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pay = useMutation(
    trpc.billing.invoice.pay.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.billing.invoiceDocument.pathFilter());
        await queryClient.invalidateQueries(trpc.billing.invoices.pathFilter());
        await queryClient.invalidateQueries(trpc.billing.wallet.pathFilter());
      },
    }),
  );
  const payable =
    (invoice.status === "open" || invoice.status === "uncollectible") && invoice.amount_remaining_minor > 0;
  return (
    <div className="flex flex-col items-end gap-2 print:hidden">
      <div className="flex gap-2">
        <a
          href={pdfHref(ws, invoice.id)}
          download
          className={cn(
            "inline-flex h-9 items-center gap-1 rounded-md border border-slate-300 bg-white px-3 text-sm font-medium text-slate-800 hover:bg-slate-50",
            focusRing,
          )}
        >
          <Download aria-hidden="true" className="size-4" />
          Download PDF
        </a>
        {payable ? (
          <Button
            type="button"
            disabled={pay.isPending}
            onClick={() => pay.mutate({ ws, ivc: invoice.id, method: "wallet" })}
          >
            <Wallet aria-hidden="true" />
            Pay now {formatMinor(invoice.amount_remaining_minor, invoice.currency)}
          </Button>
        ) : null}
      </div>
      {payable ? (
        <p className="text-xs text-slate-600">Pays from the wallet&apos;s paid balance (not from credit grants).</p>
      ) : null}
      {pay.error ? <Alert problem={problemOf(pay.error)} /> : null}
      {pay.isSuccess ? (
        <Alert tone="success" title="Paid">
          The invoice is paid from the wallet.
        </Alert>
      ) : null}
    </div>
  );
}
