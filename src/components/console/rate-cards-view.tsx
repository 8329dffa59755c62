"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { CURRENCY_CODES, formatMicros, type TCurrency } from "@/server/domain/billing/currencies";
import { formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { parseMicros } from "./money-input";
import { PageHeader } from "./page-header";
import { usePeople } from "./person";
import { QueryStates } from "./query-states";

const PLATFORM = "ws_platform";

/** A new version's form: validated by the REST endpoint's rules on the server; the problem it answers is shown once, under the form. */
function PublishForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [f, setF] = useState({ provider: "", model: "", currency: "USD" as TCurrency, input: "", output: "", perCall: "0", from: "" });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF((v) => ({ ...v, [k]: e.target.value }));
  const publish = useMutation(trpc.billing.putRateCard.mutationOptions({
    onSuccess: async () => {
      await queryClient.invalidateQueries(trpc.billing.listRateCards.pathFilter());
    },
  }));
  const prices = { input: parseMicros(f.input), output: parseMicros(f.output), perCall: parseMicros(f.perCall) };
  const bad = (k: keyof typeof prices) => f[k] !== "" && prices[k] === null;
  function submit(e: FormEvent) {
    e.preventDefault();
    if (prices.input === null || prices.output === null || prices.perCall === null) return;
    publish.mutate({
      provider: f.provider.trim(), model: f.model.trim(), currency: f.currency,
      // datetime-local is the viewer's local time; the API takes an instant.
      ...(f.from ? { effective_from: new Date(f.from).toISOString() } : {}),
      prices: { input_tokens_per_million: prices.input, output_tokens_per_million: prices.output, per_call: prices.perCall },
    });
  }
  const priceField = (k: "input" | "output" | "perCall", label: string) => (
    <div className="space-y-1.5">
      <Label htmlFor={`rc-${k}`}>{label} ({f.currency})</Label>
      <Input id={`rc-${k}`} inputMode="decimal" required value={f[k]} onChange={set(k)} aria-invalid={bad(k)} aria-describedby={bad(k) ? `rc-${k}-err` : undefined} />
      {bad(k) ? <p id={`rc-${k}-err`} className="text-xs text-rose-800">At most 6 decimals, not negative.</p> : null}
    </div>
  );
  return (
    <Card>
      <CardHeader>
        <CardTitle>Publish a new version</CardTitle>
        <CardDescription>Every change is a new immutable version; calls are priced with the version in force when they start. Effective from: empty means now; a time in the past is refused.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2" autoComplete="off" aria-label="Publish a rate card version">
          <div className="space-y-1.5"><Label htmlFor="rc-provider">Provider</Label><Input id="rc-provider" required placeholder="openai" value={f.provider} onChange={set("provider")} /></div>
          <div className="space-y-1.5"><Label htmlFor="rc-model">Model</Label><Input id="rc-model" required placeholder="gpt-4o-mini" value={f.model} onChange={set("model")} /></div>
          <div className="space-y-1.5">
            <Label htmlFor="rc-currency">Currency</Label>
            <Select id="rc-currency" value={f.currency} onChange={set("currency")}>{CURRENCY_CODES.map((c) => <option key={c} value={c}>{c}</option>)}</Select>
          </div>
          <div className="space-y-1.5"><Label htmlFor="rc-from">Effective from (your local time)</Label><Input id="rc-from" type="datetime-local" value={f.from} onChange={set("from")} /></div>
          {priceField("input", "Input tokens, per million")}
          {priceField("output", "Output tokens, per million")}
          {priceField("perCall", "Per call")}
          <div className="flex items-end">
            <Button type="submit" disabled={publish.isPending || prices.input === null || prices.output === null || prices.perCall === null}>
              {publish.isPending ? "Publishing…" : "Publish version"}
            </Button>
          </div>
        </form>
        {publish.error ? <Alert problem={problemOf(publish.error)} /> : null}
        {publish.data && !publish.error ? (
          <Alert tone="success">Published {publish.data.id} for {publish.data.provider} / {publish.data.model}, effective {formatDateTime(publish.data.effective_from)}.</Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** The platform's rate cards (platform owners and admins): every version with its prices, validity and who published it, and a form for a new one. */
export function RateCardsView() {
  const trpc = useTRPC();
  const cards = useInfiniteQuery(trpc.billing.listRateCards.infiniteQueryOptions({ limit: 100, order: "desc" }, { getNextPageParam: (p) => p.next_cursor ?? undefined }));
  const rows = (cards.data?.pages.flatMap((p) => p.items) ?? []).slice().sort((a, b) =>
    a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model) || b.effective_from.localeCompare(a.effective_from));
  const people = usePeople(PLATFORM, rows.map((r) => r.created_by));
  const now = new Date().toISOString();
  const state = (r: (typeof rows)[number]) =>
    r.effective_from > now ? "scheduled" : r.effective_until && r.effective_until <= now ? "superseded" : "in force";
  return (
    <>
      <PageHeader title="Rate cards" description="Prices per usage unit for each provider model, as immutable versions. Platform owners and admins only." />
      <div className="space-y-6">
        <Card>
          <CardHeader><CardTitle>Versions</CardTitle><CardDescription>Grouped by provider and model, newest first. Prices are per unit, exact to the millionth.</CardDescription></CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={cards} what="rate cards" empty={cards.isSuccess && rows.length === 0} emptyText="No rate cards yet: calls are not priced until their model has one." />
            {rows.length ? (
              <Table>
                <TableCaption>Rate card versions</TableCaption>
                <TableHeader>
                  <TableRow>
                    <TableHead>Provider / model</TableHead><TableHead>State</TableHead><TableHead>Effective</TableHead>
                    <TableHead>Input / M tokens</TableHead><TableHead>Output / M tokens</TableHead><TableHead>Per call</TableHead><TableHead>Published by</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((r) => {
                    const s = state(r);
                    const who = people.get(r.created_by);
                    return (
                      <TableRow key={r.id}>
                        <TableCell><div className="font-medium">{r.provider} / {r.model}</div><code className="font-mono text-xs text-slate-600">{r.id}</code></TableCell>
                        <TableCell><Badge tone={s === "in force" ? "success" : s === "scheduled" ? "info" : "neutral"}>{s}</Badge></TableCell>
                        <TableCell className="text-sm">from {formatDateTime(r.effective_from)}{r.effective_until ? <><br />until {formatDateTime(r.effective_until)}</> : null}</TableCell>
                        <TableCell className="tabular-nums">{formatMicros(r.prices.input_tokens_per_million, r.currency, true)}</TableCell>
                        <TableCell className="tabular-nums">{formatMicros(r.prices.output_tokens_per_million, r.currency, true)}</TableCell>
                        <TableCell className="tabular-nums">{formatMicros(r.prices.per_call, r.currency, true)}</TableCell>
                        <TableCell className="text-sm">{who ? who.email : r.created_by}<br /><span className="text-xs text-slate-600">{formatDateTime(r.created_at)}</span></TableCell>
                      </TableRow>
                    );
                  })}
                </TableBody>
              </Table>
            ) : null}
            <LoadMore query={cards} label="Load more versions" />
          </CardContent>
        </Card>
        {cards.isSuccess ? <PublishForm /> : null}
      </div>
    </>
  );
}
