"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
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
import { CURRENCY_CODES, formatMinor, type TCurrency } from "@/server/domain/billing/currencies";
import type { TTier } from "@/server/domain/billing/subscriptions.contract";
import { CATEGORY_LABEL, formatDateTime, PLAN_OPTIONS } from "./format";
import { minorToText, parseMinor } from "./money-input";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

type TForm = { tier: string; name: string; plan: TTier["plan"]; currency: TCurrency; price: string; credit: string; mode: TTier["billing_mode"] };
const EMPTY: TForm = { tier: "", name: "", plan: "team", currency: "USD", price: "", credit: "0", mode: "postpaid" };

function formOf(t: TTier): TForm {
  return {
    tier: t.tier, name: t.name, plan: t.plan, currency: t.currency, price: minorToText(t.monthly_price_minor, t.currency),
    credit: minorToText(t.included_credit_minor, t.currency), mode: t.billing_mode,
  };
}

function budgetsText(t: TTier): string {
  const entries = Object.entries(t.default_budgets) as [keyof typeof CATEGORY_LABEL, number | null][];
  return entries.length ? entries.map(([k, v]) => `${CATEGORY_LABEL[k]}: ${v === null ? "unlimited" : v}`).join(", ") : "—";
}

/** Create or edit a tier. A tier edit never reprices a running period: a workspace pays the price its period started at. */
function TierForm({ tiers }: { tiers: TTier[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<string>("");
  const [f, setF] = useState<TForm>(EMPTY);
  const set = (k: keyof TForm) => (e: { target: { value: string } }) => setF((v) => ({ ...v, [k]: e.target.value }));
  const save = useMutation(trpc.billing.subscriptions.putTier.mutationOptions({
    onSuccess: async () => {
      await queryClient.invalidateQueries(trpc.billing.subscriptions.pathFilter());
    },
  }));
  const existing = tiers.find((t) => t.tier === editing);
  const price = parseMinor(f.price, f.currency);
  const credit = parseMinor(f.credit, f.currency);
  function pick(tier: string) {
    setEditing(tier);
    save.reset();
    const t = tiers.find((x) => x.tier === tier);
    setF(t ? formOf(t) : EMPTY);
  }
  function submit(e: FormEvent) {
    e.preventDefault();
    if (price === null || credit === null) return;
    save.mutate({
      tier: f.tier.trim(), name: f.name.trim(), plan: f.plan, currency: f.currency, monthly_price_minor: price, included_credit_minor: credit, billing_mode: f.mode,
      // Not edited here: kept as they are.
      default_budgets: existing?.default_budgets ?? {},
    });
  }
  return (
    <Card>
      <CardHeader>
        <CardTitle>{existing ? `Edit tier ${existing.tier}` : "Create or edit a tier"}</CardTitle>
        <CardDescription>Running periods keep the price they started at; the new price applies from each workspace&apos;s next period.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <div className="max-w-sm space-y-1.5">
          <Label htmlFor="tier-pick">Tier to edit</Label>
          <Select id="tier-pick" value={editing} onChange={(e) => pick(e.target.value)}>
            <option value="">New tier</option>
            {tiers.map((t) => <option key={t.tier} value={t.tier}>{t.name} ({t.tier})</option>)}
          </Select>
        </div>
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2" autoComplete="off" aria-label="Tier">
          <div className="space-y-1.5">
            <Label htmlFor="tier-id">Tier id</Label>
            <Input id="tier-id" required readOnly={!!existing} placeholder="team" value={f.tier} onChange={set("tier")} />
          </div>
          <div className="space-y-1.5"><Label htmlFor="tier-name">Name</Label><Input id="tier-name" required value={f.name} onChange={set("name")} /></div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-plan">Plan it grants</Label>
            <Select id="tier-plan" value={f.plan} onChange={set("plan")}>{PLAN_OPTIONS.map((p) => <option key={p} value={p}>{p}</option>)}</Select>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-currency">Currency</Label>
            <Select id="tier-currency" value={f.currency} onChange={set("currency")}>{CURRENCY_CODES.map((c) => <option key={c} value={c}>{c}</option>)}</Select>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-price">Monthly price ({f.currency})</Label>
            <Input id="tier-price" inputMode="decimal" required value={f.price} onChange={set("price")} aria-invalid={f.price !== "" && price === null} />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-credit">Included credit per period ({f.currency})</Label>
            <Input id="tier-credit" inputMode="decimal" required value={f.credit} onChange={set("credit")} aria-invalid={f.credit !== "" && credit === null} />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="tier-mode">Billing mode</Label>
            <Select id="tier-mode" value={f.mode} onChange={set("mode")}>
              <option value="postpaid">postpaid (usage owed after the fact)</option>
              <option value="prepaid">prepaid (calls refused when the wallet cannot cover them)</option>
            </Select>
          </div>
          <div className="flex items-end">
            <Button type="submit" disabled={save.isPending || price === null || credit === null}>{save.isPending ? "Saving…" : existing ? "Save tier" : "Create tier"}</Button>
          </div>
        </form>
        {(f.price !== "" && price === null) || (f.credit !== "" && credit === null) ? (
          <p className="text-xs text-rose-800">Amounts: a number with at most the currency&apos;s decimals, not negative.</p>
        ) : null}
        {save.error ? <Alert problem={problemOf(save.error)} /> : null}
        {save.data && !save.error ? <Alert tone="success">Saved tier {save.data.tier}: {formatMinor(save.data.monthly_price_minor, save.data.currency)} a month.</Alert> : null}
      </CardContent>
    </Card>
  );
}

/** Subscription tiers (platform owners and admins): the price list and a form to create or edit a tier. */
export function TiersView() {
  const trpc = useTRPC();
  const tiers = useQuery(trpc.billing.subscriptions.editableTiers.queryOptions({}));
  const rows = tiers.data?.items ?? [];
  return (
    <>
      <PageHeader title="Subscription tiers" description="The tiers workspaces subscribe to: price, included credit, the plan they grant. Platform owners and admins only." />
      <div className="space-y-6">
        <Card>
          <CardHeader><CardTitle>Tiers</CardTitle></CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={tiers} what="subscription tiers" empty={tiers.isSuccess && rows.length === 0} emptyText="No tiers yet." />
            {rows.length ? (
              <Table>
                <TableCaption>Subscription tiers, cheapest first</TableCaption>
                <TableHeader>
                  <TableRow>
                    <TableHead>Tier</TableHead><TableHead>Plan</TableHead><TableHead>Monthly price</TableHead><TableHead>Included credit</TableHead>
                    <TableHead>Mode</TableHead><TableHead>Default budgets</TableHead><TableHead>Changed</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((t) => (
                    <TableRow key={t.tier}>
                      <TableCell><div className="font-medium">{t.name}</div><code className="font-mono text-xs text-slate-600">{t.tier}</code></TableCell>
                      <TableCell>{t.plan}</TableCell>
                      <TableCell className="tabular-nums">{formatMinor(t.monthly_price_minor, t.currency)}</TableCell>
                      <TableCell className="tabular-nums">{formatMinor(t.included_credit_minor, t.currency)}</TableCell>
                      <TableCell><Badge tone={t.billing_mode === "prepaid" ? "warning" : "neutral"}>{t.billing_mode}</Badge></TableCell>
                      <TableCell className="text-xs">{budgetsText(t)}</TableCell>
                      <TableCell>{formatDateTime(t.updated_at)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            ) : null}
          </CardContent>
        </Card>
        {tiers.isSuccess ? <TierForm tiers={rows} /> : null}
      </div>
    </>
  );
}
