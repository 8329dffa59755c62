"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { CURRENCY_CODES, type TCurrency } from "@/server/domain/billing/currencies";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";
import { formatDateTime } from "../shared/format";
import { ValueSelect } from "../shared/value-select";
import { parseMicros } from "./money-input";

/** The platform's own cards (provider `capstan`): one metered category each, priced by one field (docs/decisions.md "every metered category priced"). */
export const METERED = {
  runtime: { field: "per_cpu_second", label: "Per CPU-second" },
  storage: { field: "per_gb_month", label: "Per GB-month" },
  email: { field: "per_message", label: "Per message" },
} as const;
export type TMetered = keyof typeof METERED;

/** A new version's form: validated by the REST endpoint's rules on the server; the problem it answers is shown once, under the form. */
export function PublishForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [f, setF] = useState({
    kind: "model" as "model" | TMetered,
    provider: "",
    model: "",
    currency: "USD" as TCurrency,
    input: "",
    output: "",
    perCall: "0",
    metered: "",
    from: "",
  });
  const put = (k: keyof typeof f) => (value: string) => setF((v) => ({ ...v, [k]: value }));
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => put(k)(e.target.value);
  const publish = useMutation(
    trpc.billing.putRateCard.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.billing.listRateCards.pathFilter());
      },
    }),
  );
  const metered = f.kind === "model" ? null : METERED[f.kind];
  const prices = metered
    ? { input: 0, output: 0, perCall: 0, metered: parseMicros(f.metered) }
    : { input: parseMicros(f.input), output: parseMicros(f.output), perCall: parseMicros(f.perCall), metered: 0 };
  const bad = (k: keyof typeof prices) => f[k] !== "" && prices[k] === null;
  const ready = prices.input !== null && prices.output !== null && prices.perCall !== null && prices.metered !== null;
  function submit(e: FormEvent) {
    e.preventDefault();
    if (prices.input === null || prices.output === null || prices.perCall === null || prices.metered === null) return;
    publish.mutate({
      provider: metered ? "capstan" : f.provider.trim(),
      model: f.kind === "model" ? f.model.trim() : f.kind,
      currency: f.currency,
      // datetime-local is the viewer's local time; the API takes an instant.
      ...(f.from ? { effective_from: new Date(f.from).toISOString() } : {}),
      prices: metered
        ? { input_tokens_per_million: 0, output_tokens_per_million: 0, per_call: 0, [metered.field]: prices.metered }
        : {
            input_tokens_per_million: prices.input,
            output_tokens_per_million: prices.output,
            per_call: prices.perCall,
          },
    });
  }
  const priceField = (k: "input" | "output" | "perCall" | "metered", label: string) => (
    <Field
      id={`rc-${k}`}
      label={
        <>
          {label} ({f.currency})
        </>
      }
    >
      <Input
        id={`rc-${k}`}
        inputMode="decimal"
        required
        value={f[k]}
        onChange={set(k)}
        aria-invalid={bad(k)}
        aria-describedby={bad(k) ? `rc-${k}-err` : undefined}
      />
      {bad(k) ? (
        <p id={`rc-${k}-err`} className="text-xs text-rose-800">
          At most 6 decimals, not negative.
        </p>
      ) : null}
    </Field>
  );
  return (
    <SectionCard
      title="Publish a new version"
      description={
        <>
          Every change is a new immutable version; calls are priced with the version in force when they start. Effective
          from: empty means now; a time in the past is refused. The platform&apos;s own cards price runtime
          (CPU-seconds), storage (GB-month) and email (messages).
        </>
      }
      contentClassName="space-y-3"
    >
      <form
        onSubmit={submit}
        className="grid gap-3 sm:grid-cols-2"
        autoComplete="off"
        aria-label="Publish a rate card version"
      >
        <Field id="rc-kind" label="Prices">
          <Select id="rc-kind" value={f.kind} onChange={set("kind")}>
            <option value="model">A provider model (tokens, calls)</option>
            <option value="runtime">Platform runtime (capstan/runtime)</option>
            <option value="storage">Platform storage (capstan/storage)</option>
            <option value="email">Platform email (capstan/email)</option>
          </Select>
        </Field>
        <Field id="rc-currency" label="Currency">
          <ValueSelect
            id="rc-currency"
            value={f.currency}
            options={CURRENCY_CODES}
            onValue={(currency) => setF((v) => ({ ...v, currency }))}
          />
        </Field>
        {metered ? null : (
          <>
            <TextField
              id="rc-provider"
              label="Provider"
              required
              placeholder="openai"
              value={f.provider}
              onValue={put("provider")}
            />
            <TextField
              id="rc-model"
              label="Model"
              required
              placeholder="gpt-4o-mini"
              value={f.model}
              onValue={put("model")}
            />
          </>
        )}
        <TextField
          id="rc-from"
          label="Effective from (your local time)"
          type="datetime-local"
          value={f.from}
          onValue={put("from")}
        />
        {metered ? (
          priceField("metered", metered.label)
        ) : (
          <>
            {priceField("input", "Input tokens, per million")}
            {priceField("output", "Output tokens, per million")}
            {priceField("perCall", "Per call")}
          </>
        )}
        <div className="flex items-end">
          <Button type="submit" disabled={publish.isPending || !ready}>
            {publish.isPending ? "Publishing…" : "Publish version"}
          </Button>
        </div>
      </form>
      {publish.error ? <Alert problem={problemOf(publish.error)} /> : null}
      {publish.data && !publish.error ? (
        <Alert tone="success">
          Published {publish.data.id} for {publish.data.provider} / {publish.data.model}, effective{" "}
          {formatDateTime(publish.data.effective_from)}.
        </Alert>
      ) : null}
    </SectionCard>
  );
}
