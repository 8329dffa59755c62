"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { CURRENCY_CODES, formatMinor, type TCurrency } from "@/server/domain/billing/currencies";
import type { TTier } from "@/server/domain/billing/subscriptions.contract";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";
import { PLAN_OPTIONS } from "../shared/format";
import { ValueSelect } from "../shared/value-select";
import { minorToText, parseMinor } from "./money-input";

type TForm = {
  tier: string;
  name: string;
  plan: TTier["plan"];
  currency: TCurrency;
  price: string;
  credit: string;
  mode: TTier["billing_mode"];
  trial: string;
};
const EMPTY: TForm = {
  tier: "",
  name: "",
  plan: "team",
  currency: "USD",
  price: "",
  credit: "0",
  mode: "postpaid",
  trial: "0",
};

function formOf(t: TTier): TForm {
  return {
    tier: t.tier,
    name: t.name,
    plan: t.plan,
    currency: t.currency,
    price: minorToText(t.monthly_price_minor, t.currency),
    credit: minorToText(t.included_credit_minor, t.currency),
    mode: t.billing_mode,
    trial: String(t.trial_days),
  };
}

/** Create or edit a tier. A tier edit never reprices a running period: a workspace pays the price its period started at. */
export function TierForm({ tiers }: { tiers: TTier[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<string>("");
  const [f, setF] = useState<TForm>(EMPTY);
  const put = (k: keyof TForm) => (value: string) => setF((v) => ({ ...v, [k]: value }));
  const set = (k: keyof TForm) => (e: { target: { value: string } }) => put(k)(e.target.value);
  const save = useMutation(
    trpc.billing.subscriptions.putTier.mutationOptions({
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries(trpc.billing.subscriptions.pathFilter());
        // The saved tier exists now: the form edits it (Save tier), it no longer offers to create it.
        setEditing(saved.tier);
        setF(formOf(saved));
      },
    }),
  );
  const existing = tiers.find((t) => t.tier === editing);
  const price = parseMinor(f.price, f.currency);
  const credit = parseMinor(f.credit, f.currency);
  const trial = /^\d{1,3}$/.test(f.trial.trim()) && Number(f.trial) <= 365 ? Number(f.trial) : null;
  function pick(tier: string) {
    setEditing(tier);
    save.reset();
    const t = tiers.find((x) => x.tier === tier);
    setF(t ? formOf(t) : EMPTY);
  }
  function submit(e: FormEvent) {
    e.preventDefault();
    if (price === null || credit === null || trial === null) return;
    save.mutate({
      tier: f.tier.trim(),
      name: f.name.trim(),
      plan: f.plan,
      currency: f.currency,
      monthly_price_minor: price,
      included_credit_minor: credit,
      billing_mode: f.mode,
      trial_days: trial,
      // Not edited here: kept as they are.
      default_budgets: existing?.default_budgets ?? {},
    });
  }
  return (
    <SectionCard
      title={existing ? `Edit tier ${existing.tier}` : "Create or edit a tier"}
      description={
        <>
          Running periods keep the price they started at; the new price applies from each workspace&apos;s next period.
        </>
      }
      contentClassName="space-y-3"
    >
      <Field id="tier-pick" label="Tier to edit" className="max-w-sm">
        <Select id="tier-pick" value={editing} onChange={(e) => pick(e.target.value)}>
          <option value="">New tier</option>
          {tiers.map((t) => (
            <option key={t.tier} value={t.tier}>
              {t.name} ({t.tier})
            </option>
          ))}
        </Select>
      </Field>
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2" autoComplete="off" aria-label="Tier">
        <TextField
          id="tier-id"
          label="Tier id"
          required
          readOnly={!!existing}
          placeholder="team"
          value={f.tier}
          onValue={put("tier")}
        />
        <TextField id="tier-name" label="Name" required value={f.name} onValue={put("name")} />
        <Field id="tier-plan" label="Plan it grants">
          <ValueSelect
            id="tier-plan"
            value={f.plan}
            options={PLAN_OPTIONS}
            onValue={(plan) => setF((v) => ({ ...v, plan }))}
          />
        </Field>
        <Field id="tier-currency" label="Currency">
          <ValueSelect
            id="tier-currency"
            value={f.currency}
            options={CURRENCY_CODES}
            onValue={(currency) => setF((v) => ({ ...v, currency }))}
          />
        </Field>
        <TextField
          id="tier-price"
          label={<>Monthly price ({f.currency})</>}
          inputMode="decimal"
          required
          value={f.price}
          onValue={put("price")}
          aria-invalid={f.price !== "" && price === null}
        />
        <TextField
          id="tier-credit"
          label={<>Included credit per period ({f.currency})</>}
          inputMode="decimal"
          required
          value={f.credit}
          onValue={put("credit")}
          aria-invalid={f.credit !== "" && credit === null}
        />
        <Field id="tier-mode" label="Billing mode">
          <Select id="tier-mode" value={f.mode} onChange={set("mode")}>
            <option value="postpaid">postpaid (usage owed after the fact)</option>
            <option value="prepaid">prepaid (calls refused when the wallet cannot cover them)</option>
          </Select>
        </Field>
        <TextField
          id="tier-trial"
          label="Free trial days (a workspace's first subscription; 0: none)"
          inputMode="numeric"
          required
          value={f.trial}
          onValue={put("trial")}
          aria-invalid={trial === null}
        />
        <div className="flex items-end">
          <Button type="submit" disabled={save.isPending || price === null || credit === null || trial === null}>
            {save.isPending ? "Saving…" : existing ? "Save tier" : "Create tier"}
          </Button>
        </div>
      </form>
      {(f.price !== "" && price === null) || (f.credit !== "" && credit === null) ? (
        <p className="text-xs text-rose-800">
          Amounts: a number with at most the currency&apos;s decimals, not negative.
        </p>
      ) : null}
      {save.error ? <Alert problem={problemOf(save.error)} /> : null}
      {save.data && !save.error ? (
        <Alert tone="success">
          Saved tier {save.data.tier}: {formatMinor(save.data.monthly_price_minor, save.data.currency)} a month.
        </Alert>
      ) : null}
    </SectionCard>
  );
}
