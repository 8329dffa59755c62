"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Wallet } from "lucide-react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { CURRENCIES, CURRENCY_CODES, formatMicros, formatMinor, type TCurrency } from "@/server/domain/billing/currencies";
import { BillingUsageChart } from "./billing-usage-chart";
import { formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { hasRole, workspaceHref } from "./nav-config";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

const ORDER_TONE = { pending: "info", succeeded: "success", failed: "danger", expired: "neutral" } as const;
const KIND_LABEL = { top_up: "Top-up", grant: "Grant", usage: "Usage", refund: "Refund", adjustment: "Adjustment", expiry: "Grant expired" } as const;

/** "12.34" typed in a currency's major unit -> integer minor units by string arithmetic (no floats); null when not a valid amount. */
export function parseMajor(text: string, currency: TCurrency): number | null {
  const exp = CURRENCIES[currency];
  const m = /^(\d{1,9})(?:\.(\d+))?$/.exec(text.trim());
  if (!m || (m[2] ?? "").length > exp) return null;
  const minor = Number(m[1]! + (m[2] ?? "").padEnd(exp, "0"));
  return minor > 0 ? minor : null;
}

function TopUpForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [currency, setCurrency] = useState<TCurrency>("USD");
  const checkout = useMutation(trpc.billing.checkout.mutationOptions({
    onSuccess: async () => {
      setAmount("");
      await queryClient.invalidateQueries(trpc.billing.orders.pathFilter());
    },
  }));
  const minor = parseMajor(amount, currency);
  function submit(e: FormEvent) {
    e.preventDefault();
    if (minor !== null) checkout.mutate({ ws, amount_minor: minor, currency, gateway: "manual" });
  }
  return (
    <Card>
      <CardHeader>
        <CardTitle>Top up</CardTitle>
        <CardDescription>Creates a payment order. The wallet is credited once the payment is confirmed.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end" autoComplete="off">
          <div className="space-y-1.5">
            <Label htmlFor="topup-amount">Amount</Label>
            <Input id="topup-amount" inputMode="decimal" required placeholder="50.00" value={amount} onChange={(e) => setAmount(e.target.value)} aria-invalid={amount !== "" && minor === null} />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="topup-currency">Currency</Label>
            <Select id="topup-currency" value={currency} onChange={(e) => setCurrency(e.target.value as TCurrency)}>
              {CURRENCY_CODES.map((c) => <option key={c} value={c}>{c}</option>)}
            </Select>
          </div>
          <Button type="submit" disabled={checkout.isPending || minor === null}>
            <Wallet aria-hidden="true" />
            {checkout.isPending ? "Creating…" : "Create order"}
          </Button>
        </form>
        {checkout.data ? <Alert>Order {checkout.data.id} for {formatMinor(checkout.data.amount_minor, checkout.data.currency)}: {checkout.data.instructions}</Alert> : null}
        {checkout.error ? <Alert problem={problemOf(checkout.error)} /> : null}
      </CardContent>
    </Card>
  );
}

/** Billing: balance by currency (paid and granted), grants, top-up (owner/admin), orders, invoices and the ledger. */
export function BillingView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const canWrite = hasRole(workspace.data?.role, "admin");
  const wallet = useQuery(trpc.billing.wallet.queryOptions({ ws }));
  const orders = useInfiniteQuery(trpc.billing.orders.infiniteQueryOptions({ ws, limit: 20, order: "desc" }, { getNextPageParam: (p) => p.next_cursor ?? undefined }));
  const ledger = useInfiniteQuery(trpc.billing.transactions.infiniteQueryOptions({ ws, limit: 50, order: "desc" }, { getNextPageParam: (p) => p.next_cursor ?? undefined }));
  const invoices = useQuery(trpc.billing.invoices.queryOptions({ ws, limit: 12, order: "desc" }));
  const invoiceRows = invoices.data?.items ?? [];
  const orderRows = orders.data?.pages.flatMap((p) => p.items) ?? [];
  const entries = ledger.data?.pages.flatMap((p) => p.items) ?? [];
  const balances = wallet.data?.balances ?? [];
  return (
    <>
      <PageHeader title="Billing" description="The workspace's wallet: every balance is the sum of its ledger below." />
      <div className="space-y-6">
        <Card>
          <CardHeader><CardTitle>Balance</CardTitle></CardHeader>
          <CardContent className="space-y-3">
            <QueryStates query={wallet} what="the wallet" empty={balances.length === 0} emptyText="No money in this wallet yet." inset={false} />
            {balances.map((b) => (
              <div key={b.currency} className="flex flex-wrap items-baseline gap-x-6 gap-y-1">
                <span className="text-2xl font-semibold tabular-nums">{formatMicros(b.total_micros, b.currency)}</span>
                <span className="text-sm text-slate-700">paid {formatMicros(b.paid_micros, b.currency)} · granted {formatMicros(b.granted_micros, b.currency)}</span>
              </div>
            ))}
            {(wallet.data?.grants ?? []).length ? (
              <ul className="space-y-1 text-sm text-slate-700" aria-label="Credit grants, in spending order">
                {wallet.data!.grants.map((g) => (
                  <li key={g.id}>Grant {formatMicros(g.remaining_micros, g.currency)} left of {formatMicros(g.amount_micros, g.currency)}, priority {g.priority}, expires {formatDateTime(g.expires_at)}</li>
                ))}
              </ul>
            ) : null}
          </CardContent>
        </Card>
        {canWrite ? <TopUpForm ws={ws} /> : null}
        <BillingUsageChart ws={ws} />
        <Card>
          <CardHeader><CardTitle>Orders</CardTitle></CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={orders} what="orders" empty={orderRows.length === 0} emptyText="No top-up orders yet." />
            {orderRows.length ? (
              <Table>
                <TableCaption>Top-up orders</TableCaption>
                <TableHeader><TableRow><TableHead>Order</TableHead><TableHead>Amount</TableHead><TableHead>Status</TableHead><TableHead>Created</TableHead></TableRow></TableHeader>
                <TableBody>
                  {orderRows.map((o) => (
                    <TableRow key={o.id}>
                      <TableCell className="font-mono text-xs">{o.id}</TableCell>
                      <TableCell className="tabular-nums">{formatMinor(o.amount_minor, o.currency)}{o.refunded_minor ? ` (refunded ${formatMinor(o.refunded_minor, o.currency)})` : ""}</TableCell>
                      <TableCell><Badge tone={ORDER_TONE[o.status]}>{o.status}</Badge>{o.failure_message ? <div className="pt-1 text-xs text-rose-800">{o.failure_message}</div> : null}</TableCell>
                      <TableCell>{formatDateTime(o.created_at)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            ) : null}
            <LoadMore query={orders} label="Load more orders" />
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Invoices</CardTitle>
            <CardDescription>Issued at month close for the calls that started in that month; final once issued.</CardDescription>
          </CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={invoices} what="invoices" empty={invoiceRows.length === 0} emptyText="No invoices yet." />
            {invoiceRows.length ? (
              <Table>
                <TableCaption>Monthly invoices</TableCaption>
                <TableHeader><TableRow><TableHead>Month</TableHead><TableHead>Total</TableHead><TableHead>Usage (of which grants)</TableHead><TableHead>Issued</TableHead></TableRow></TableHeader>
                <TableBody>
                  {invoiceRows.map((i) => (
                    <TableRow key={i.id}>
                      <TableCell>
                        {canWrite ? (
                          <Link href={workspaceHref(ws, `/billing/invoices/${i.id}`)} className="rounded-sm underline" aria-label={`Invoice ${i.month} ${i.currency}`}>{i.month}</Link>
                        ) : i.month}
                      </TableCell>
                      <TableCell className="tabular-nums font-medium">{formatMinor(i.total_minor, i.currency)}</TableCell>
                      <TableCell className="tabular-nums">{formatMicros(i.usage_micros, i.currency, true)} ({formatMicros(i.granted_micros, i.currency, true)})</TableCell>
                      <TableCell>{formatDateTime(i.issued_at)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            ) : null}
          </CardContent>
        </Card>
        <Card>
          <CardHeader><CardTitle>Transactions</CardTitle></CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={ledger} what="transactions" empty={entries.length === 0} emptyText="No transactions yet." />
            {entries.length ? (
              <Table>
                <TableCaption>The wallet&apos;s ledger (append-only)</TableCaption>
                <TableHeader><TableRow><TableHead>When</TableHead><TableHead>Kind</TableHead><TableHead>Amount</TableHead><TableHead>Source</TableHead></TableRow></TableHeader>
                <TableBody>
                  {entries.map((e) => (
                    <TableRow key={e.id}>
                      <TableCell>{formatDateTime(e.created_at)}</TableCell>
                      <TableCell>{KIND_LABEL[e.kind]}{e.grant_id ? " (grant)" : ""}</TableCell>
                      <TableCell className="tabular-nums">{formatMicros(e.amount_micros, e.currency, e.kind === "usage")}</TableCell>
                      <TableCell className="font-mono text-xs">{e.source.id}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            ) : null}
            <LoadMore query={ledger} label="Load more transactions" />
          </CardContent>
        </Card>
      </div>
    </>
  );
}
