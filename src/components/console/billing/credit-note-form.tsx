"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { FileMinus } from "lucide-react";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import { formatMinor } from "@/server/domain/billing/currencies";
import type { TInvoice } from "@/server/domain/billing/invoices.contract";
import { ConfirmAction } from "../shared/confirm-action";
import { TextField } from "../shared/text-field";
import { hasRole, PLATFORM_WORKSPACE } from "../shell/nav-config";
import { parseMinor } from "./money-input";

/** True when the signed-in user is an owner or admin of the platform workspace (the server re-checks). */
export function usePlatformAdmin(): boolean {
  const trpc = useTRPC();
  const workspaces = useQuery(trpc.workspaces.list.queryOptions({ limit: 200, order: "asc" }));
  return hasRole(workspaces.data?.items.find((w) => w.id === PLATFORM_WORKSPACE)?.role, "admin");
}

/**
 * Issue a credit note against this invoice (platform owners and admins;
 * docs/decisions.md "Billing: credit notes…"): the amount is typed in the
 * invoice currency's major unit and sent as exact integer minor units; it
 * reduces what is left to pay, then refunds what was paid the way it came (card or wallet). A
 * credit past what is creditable is refused by the server (409), shown in the
 * dialog.
 */
export function CreditNoteForm({ ws, invoice }: { ws: string; invoice: TInvoice }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const minor = parseMinor(amount, invoice.currency);
  const valid = minor !== null && minor > 0 && reason.trim() !== "";
  if (invoice.status !== "open" && invoice.status !== "paid" && invoice.status !== "uncollectible") return null;
  return (
    <ConfirmAction
      mutation={trpc.billing.invoice.issueCreditNote.mutationOptions({
        onSuccess: async () => {
          await queryClient.invalidateQueries(trpc.billing.invoiceDocument.pathFilter());
          await queryClient.invalidateQueries(trpc.billing.invoices.pathFilter());
          await queryClient.invalidateQueries(trpc.billing.invoice.pathFilter());
          await queryClient.invalidateQueries(trpc.billing.wallet.pathFilter());
        },
      })}
      variables={() => ({ ws, ivc: invoice.id, amount_minor: minor ?? 0, reason: reason.trim() })}
      onOpen={() => {
        setAmount("");
        setReason("");
      }}
      label="Issue credit note"
      icon={<FileMinus aria-hidden="true" />}
      variant="secondary"
      title={`Credit note against ${invoice.number ?? invoice.id}`}
      description={`Reduces what is left to pay (${formatMinor(invoice.amount_remaining_minor, invoice.currency)}), then refunds what was paid: to the card that paid the invoice, or else to the workspace's wallet. Credit notes are numbered and cannot be withdrawn.`}
      confirmLabel={valid ? `Issue credit note of ${formatMinor(minor, invoice.currency)}` : "Issue credit note"}
      pendingLabel="Issuing…"
      confirmVariant="danger"
      confirmDisabled={!valid}
    >
      <div className="space-y-3">
        <TextField
          id="crn-amount"
          label={`Amount (${invoice.currency})`}
          inputMode="decimal"
          required
          placeholder="10.00"
          value={amount}
          onValue={setAmount}
          aria-invalid={amount !== "" && (minor === null || minor === 0)}
        />
        {amount !== "" && (minor === null || minor === 0) ? (
          <p className="text-xs text-rose-800">A positive amount with at most the currency&apos;s decimals.</p>
        ) : null}
        <TextField
          id="crn-reason"
          label="Reason"
          required
          maxLength={512}
          placeholder="Service credit for the outage of 3 March"
          value={reason}
          onValue={setReason}
        />
      </div>
    </ConfirmAction>
  );
}
