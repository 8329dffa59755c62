"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CreditCard, Trash2 } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { Label } from "@/components/ui/label";
import { ValueSelect } from "../shared/value-select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { CURRENCY_CODES, formatMinor, type TCurrency } from "@/server/domain/billing/currencies";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";
import { minorToText, parseMinor } from "./money-input";

/**
 * Saved payment methods and automatic top-up on the Billing page (owner/admin;
 * docs/decisions.md "Billing: collection and dunning"): a card is added on
 * Stripe's page (setup mode) and saved when Stripe confirms it; removing one
 * detaches it at Stripe.
 */
export function PaymentMethodsCard({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const methods = useQuery(trpc.billing.collection.paymentMethods.queryOptions({ ws, limit: 20 }));
  const wallet = useQuery(trpc.billing.wallet.queryOptions({ ws }));
  const cards = wallet.data?.card_payments_available ?? false;
  const setup = useMutation(
    trpc.billing.collection.startSetup.mutationOptions({
      onSuccess: (s) => {
        if (s.url) window.location.assign(s.url);
      },
    }),
  );
  const remove = useMutation(
    trpc.billing.collection.removePaymentMethod.mutationOptions({
      onSuccess: async () => queryClient.invalidateQueries(trpc.billing.collection.paymentMethods.pathFilter()),
    }),
  );
  const rows = methods.data?.items ?? [];
  return (
    <SectionCard
      title="Payment methods"
      description="The default card pays open invoices automatically, retries during dunning and automatic top-ups. Cards stay at Stripe; only their brand, last four digits and expiry are kept here."
      contentClassName="space-y-3"
    >
      {rows.length === 0 && methods.isSuccess ? <p className="text-sm text-slate-700">No saved card.</p> : null}
      <ul className="space-y-2" aria-label="Saved payment methods">
        {rows.map((m) => (
          <li key={m.id} className="flex flex-wrap items-center gap-3 text-sm">
            <CreditCard aria-hidden="true" className="size-4" />
            <span className="font-medium capitalize">{m.brand ?? "card"}</span>
            <span className="font-mono">•••• {m.last4 ?? "????"}</span>
            {m.exp_month && m.exp_year ? (
              <span className="text-slate-700">
                expires {String(m.exp_month).padStart(2, "0")}/{m.exp_year}
              </span>
            ) : null}
            {m.default ? <Badge tone="info">Default</Badge> : null}
            <Button
              type="button"
              variant="secondary"
              size="sm"
              disabled={remove.isPending}
              onClick={() => remove.mutate({ ws, pmt: m.id })}
              aria-label={`Remove card ending ${m.last4 ?? ""}`}
            >
              <Trash2 aria-hidden="true" />
              Remove
            </Button>
          </li>
        ))}
      </ul>
      {cards ? (
        <Button type="button" disabled={setup.isPending} onClick={() => setup.mutate({ ws })}>
          <CreditCard aria-hidden="true" />
          Add a card
        </Button>
      ) : wallet.isSuccess ? (
        <p className="text-sm text-slate-700">
          Card payments are not set up on this platform (no Stripe gateway): pay invoices from the wallet.
        </p>
      ) : null}
      {setup.error ? <Alert problem={problemOf(setup.error)} /> : null}
      {remove.error ? <Alert problem={problemOf(remove.error)} /> : null}
    </SectionCard>
  );
}

export function AutoTopUpCard({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.billing.collection.autoTopUp.queryOptions({ ws }));
  const [draft, setDraft] = useState<{
    enabled: boolean;
    currency: TCurrency;
    threshold: string;
    amount: string;
  } | null>(null);
  const put = useMutation(
    trpc.billing.collection.putAutoTopUp.mutationOptions({
      onSuccess: async () => {
        setDraft(null);
        await queryClient.invalidateQueries(trpc.billing.collection.autoTopUp.pathFilter());
      },
    }),
  );
  const c = current.data;
  const form = draft ?? {
    enabled: c?.enabled ?? false,
    currency: c?.currency ?? "USD",
    threshold: c?.threshold_minor != null && c.currency ? minorToText(c.threshold_minor, c.currency) : "",
    amount: c?.amount_minor != null && c.currency ? minorToText(c.amount_minor, c.currency) : "",
  };
  const threshold = parseMinor(form.threshold, form.currency);
  const parsedAmount = parseMinor(form.amount, form.currency);
  const amount = parsedAmount ? parsedAmount : null;
  function submit(e: FormEvent) {
    e.preventDefault();
    if (threshold !== null && amount !== null)
      put.mutate({
        ws,
        enabled: form.enabled,
        currency: form.currency,
        threshold_minor: threshold,
        amount_minor: amount,
      });
  }
  const set = (patch: Partial<typeof form>) => setDraft({ ...form, ...patch });
  return (
    <SectionCard
      title="Automatic top-up"
      description={
        <>
          When the wallet&apos;s available balance falls below the threshold, the default card is charged the amount
          once.
          {c?.enabled && c.currency && c.threshold_minor !== null && c.amount_minor !== null
            ? ` On: below ${formatMinor(c.threshold_minor, c.currency)}, add ${formatMinor(c.amount_minor, c.currency)}.`
            : " Off."}
          {c?.low_balance_since
            ? ` The balance has been below the threshold since ${c.low_balance_since.slice(0, 10)}.`
            : ""}
        </>
      }
    >
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-4 sm:items-end">
        <Field id="atu-currency" label="Currency">
          <ValueSelect
            id="atu-currency"
            value={form.currency}
            options={CURRENCY_CODES}
            onValue={(currency) => set({ currency })}
          />
        </Field>
        <TextField
          id="atu-threshold"
          label="Threshold"
          inputMode="decimal"
          value={form.threshold}
          onValue={(v) => set({ threshold: v })}
          placeholder="10.00"
        />
        <TextField
          id="atu-amount"
          label="Top-up amount"
          inputMode="decimal"
          value={form.amount}
          onValue={(v) => set({ amount: v })}
          placeholder="50.00"
        />
        <div className="flex items-center gap-2">
          <input
            id="atu-enabled"
            type="checkbox"
            checked={form.enabled}
            onChange={(e) => set({ enabled: e.target.checked })}
            className="size-4"
          />
          <Label htmlFor="atu-enabled">Enabled</Label>
          <Button type="submit" disabled={put.isPending || threshold === null || amount === null}>
            Save
          </Button>
        </div>
      </form>
      {put.error ? <Alert className="mt-3" problem={problemOf(put.error)} /> : null}
    </SectionCard>
  );
}
