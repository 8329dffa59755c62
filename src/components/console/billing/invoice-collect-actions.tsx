"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CreditCard, ExternalLink } from "lucide-react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TInvoice } from "@/server/domain/billing/invoices.contract";

/**
 * Collecting an open invoice through Stripe (owner/admin; docs/decisions.md
 * "Billing: collection and dunning"): charge the saved default card, or pay
 * on Stripe's checkout page. A 3-D Secure request shows the bank's page to
 * complete; a decline shows the bank's reason. Not shown when the platform has
 * no Stripe gateway (the wallet read's `card_payments_available`).
 */
export function InvoiceCollectActions({ ws, invoice }: { ws: string; invoice: TInvoice }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const collections = useQuery(trpc.billing.collection.collections.queryOptions({ ws, ivc: invoice.id }));
  // Saved cards and checkout links need the Stripe gateway: hidden where the platform has none.
  const wallet = useQuery(trpc.billing.wallet.queryOptions({ ws }));
  const refresh = async () => {
    await queryClient.invalidateQueries(trpc.billing.invoiceDocument.pathFilter());
    await queryClient.invalidateQueries(trpc.billing.invoices.pathFilter());
    await queryClient.invalidateQueries(trpc.billing.collection.pathFilter());
  };
  const charge = useMutation(trpc.billing.collection.charge.mutationOptions({ onSuccess: refresh }));
  const checkout = useMutation(
    trpc.billing.collection.checkout.mutationOptions({
      onSuccess: (c) => {
        if (c.url) window.location.assign(c.url);
      },
    }),
  );
  const payable =
    (invoice.status === "open" || invoice.status === "uncollectible") && invoice.amount_remaining_minor > 0;
  if (!payable || !wallet.data?.card_payments_available) return null;
  const pending = collections.data?.data.find((c) => c.status === "requires_action" && c.url);
  const last = charge.data;
  return (
    <div className="flex flex-col items-end gap-2 print:hidden">
      <div className="flex gap-2">
        <Button
          type="button"
          variant="secondary"
          disabled={charge.isPending}
          onClick={() => charge.mutate({ ws, ivc: invoice.id })}
        >
          <CreditCard aria-hidden="true" />
          Pay with saved card
        </Button>
        <Button
          type="button"
          variant="secondary"
          disabled={checkout.isPending}
          onClick={() => checkout.mutate({ ws, ivc: invoice.id })}
        >
          <ExternalLink aria-hidden="true" />
          Pay on Stripe
        </Button>
      </div>
      {pending ? (
        <Alert tone="warning" title="Your bank asks you to confirm this payment">
          <a className="font-medium underline" href={pending.url!}>
            Complete 3-D Secure
          </a>
          ; the invoice is paid once the bank confirms it.
        </Alert>
      ) : null}
      {last?.status === "failed" ? (
        <Alert tone="danger" title="The card was declined">
          {last.failure_message ?? last.failure_code}
        </Alert>
      ) : null}
      {charge.error ? <Alert problem={problemOf(charge.error)} /> : null}
      {checkout.error ? <Alert problem={problemOf(checkout.error)} /> : null}
    </div>
  );
}
