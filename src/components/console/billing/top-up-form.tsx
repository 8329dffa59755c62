"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Wallet } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { CURRENCY_CODES, formatMinor, type TCurrency } from "@/server/domain/billing/currencies";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";
import { ValueSelect } from "../shared/value-select";
import { parseMinor } from "./money-input";

/** Top up (owner/admin): a payment order for an amount; the wallet is credited once the payment is confirmed. */
export function TopUpForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [currency, setCurrency] = useState<TCurrency>("USD");
  const checkout = useMutation(
    trpc.billing.checkout.mutationOptions({
      onSuccess: async () => {
        setAmount("");
        await queryClient.invalidateQueries(trpc.billing.orders.pathFilter());
      },
    }),
  );
  const parsed = parseMinor(amount, currency);
  // An order of nothing is not an order.
  const minor = parsed !== null && parsed > 0 ? parsed : null;
  function submit(e: FormEvent) {
    e.preventDefault();
    if (minor !== null) checkout.mutate({ ws, amount_minor: minor, currency, gateway: "manual" });
  }
  return (
    <SectionCard
      title="Top up"
      description="Creates a payment order. The wallet is credited once the payment is confirmed."
      contentClassName="space-y-3"
    >
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end" autoComplete="off">
        <TextField
          id="topup-amount"
          label="Amount"
          inputMode="decimal"
          required
          placeholder="50.00"
          value={amount}
          onValue={setAmount}
          aria-invalid={amount !== "" && minor === null}
        />
        <Field id="topup-currency" label="Currency">
          <ValueSelect id="topup-currency" value={currency} options={CURRENCY_CODES} onValue={setCurrency} />
        </Field>
        <Button type="submit" disabled={checkout.isPending || minor === null}>
          <Wallet aria-hidden="true" />
          {checkout.isPending ? "Creating…" : "Create order"}
        </Button>
      </form>
      {checkout.data ? (
        <Alert>
          Order {checkout.data.id} for {formatMinor(checkout.data.amount_minor, checkout.data.currency)}:{" "}
          {checkout.data.instructions}
        </Alert>
      ) : null}
      {checkout.error ? <Alert problem={problemOf(checkout.error)} /> : null}
    </SectionCard>
  );
}
