"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { cn, focusRing } from "@/components/ui/cn";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TResultReason } from "@/server/bridge/bridge.contract";
import type { TCapabilityInvocation } from "@/server/domain/capabilities/invocations.contract";
import { formatDateTime, formatUnits } from "./format";
import { RESULT_REASONS, reasonOf } from "./invocation-reasons";
import { LoadMore } from "./load-more";
import { hasRole, workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { ExportCsvButton, TimeRangeFilter, useTimeWindow, useUrlFilters } from "./url-filters";

const OUTCOMES = ["completed", "denied", "failed", "requested"] as const;
const CAPABILITIES = ["ai.generate", "storage.object", "data.kv", "email.send"] as const;
export const OUTCOME_TONE = { completed: "success", denied: "warning", failed: "danger", requested: "info" } as const;

function ReasonCell({ ws, reason }: { ws: string; reason: string | null }) {
  if (!reason) return <>—</>;
  const known = reasonOf(reason);
  return (
    <div className="max-w-80 space-y-0.5">
      <code className="font-mono text-xs">{reason}</code>
      {known ? (
        <p className="text-xs text-slate-600">
          {known.text}
          {known.fix ? (
            <>
              {" "}
              <Link href={workspaceHref(ws, known.fix.path)} className={cn("text-sky-800 underline underline-offset-4 hover:text-sky-950", focusRing)}>
                {known.fix.label}
              </Link>
            </>
          ) : null}
        </p>
      ) : null}
    </div>
  );
}

const FILTER_KEYS = ["product_id", "outcome", "capability", "reason", "service_identity_id", "range", "since", "until"] as const;

const CSV_HEADER = [
  "id", "created_at", "capability", "action", "outcome", "reason", "provider", "fallback_used", "usage_units", "usage_unit",
  "charge_micros", "charge_currency", "product_id", "product_name", "service_identity_id", "service_identity_name", "deployment_id",
  "correlation_id", "latency_ms", "overhead_ms",
] as const;

/** Names of the workspace's products and (for admins, who may list them) service identities. */
export function useCallerNames(ws: string) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const isAdmin = hasRole(workspace.data?.role, "admin");
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const identities = useQuery({ ...trpc.serviceIdentities.list.queryOptions({ ws, limit: 200, order: "desc" }), enabled: isAdmin });
  return {
    products: products.data?.items ?? [],
    identities: identities.data?.items ?? [],
    productName: new Map((products.data?.items ?? []).map((p) => [p.id, p.name])),
    identityName: new Map((identities.data?.items ?? []).map((i) => [i.id, i.name])),
  };
}

/**
 * Bridge calls: filter by time range, product, caller, outcome, reason and
 * capability (all kept in the URL), each row opening its drill-down, and a
 * CSV export of exactly the rows shown.
 */
export function InvocationsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const { values: f, set, clear } = useUrlFilters(FILTER_KEYS);
  const timeWindow = useTimeWindow(f);
  const names = useCallerNames(ws);
  const list = useInfiniteQuery(
    trpc.invocations.search.infiniteQueryOptions(
      {
        ws, limit: 50, order: "desc",
        ...(f.product_id ? { product_id: f.product_id } : {}),
        ...(f.outcome ? { outcome: f.outcome as (typeof OUTCOMES)[number] } : {}),
        ...(f.capability ? { capability: f.capability as (typeof CAPABILITIES)[number] } : {}),
        ...(f.reason ? { reason: f.reason as TResultReason } : {}),
        ...(f.service_identity_id ? { service_identity_id: f.service_identity_id } : {}),
        ...timeWindow,
      },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = FILTER_KEYS.some((k) => f[k]);
  // An identity id from a shared link that this viewer cannot list still shows as an option.
  const identityOptions = names.identities.map((i) => ({ id: i.id, label: i.name }));
  if (f.service_identity_id && !names.identityName.has(f.service_identity_id)) identityOptions.push({ id: f.service_identity_id, label: f.service_identity_id });

  const csvRows = rows.map((r: TCapabilityInvocation) => [
    r.id, r.created_at, r.capability, r.action, r.outcome, r.reason, r.provider, r.fallback_used, r.usage.units, r.usage.unit,
    r.charge?.amount_micros, r.charge?.currency, r.product_id, names.productName.get(r.product_id), r.service_identity_id,
    r.service_identity_id ? names.identityName.get(r.service_identity_id) : null, r.deployment_id, r.correlation_id, r.latency_ms, r.overhead_ms,
  ]);

  return (
    <div className="space-y-6">
      <PageHeader title="Capability invocations" description="Every Bridge call with its outcome, reason, provider and usage. Content is never stored: only sizes and hashes." />
      <Card>
        <CardContent className="space-y-4 pt-6">
          <div className="flex flex-wrap items-end gap-4">
            <TimeRangeFilter idPrefix="inv" values={f} onChange={set} />
            <div className="space-y-1.5">
              <Label htmlFor="inv-product">Product</Label>
              <Select id="inv-product" value={f.product_id} onChange={(e) => set({ product_id: e.target.value })}>
                <option value="">All products</option>
                {names.products.map((p) => (
                  <option key={p.id} value={p.id}>{p.name}</option>
                ))}
              </Select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="inv-caller">Service identity</Label>
              <Select id="inv-caller" value={f.service_identity_id} onChange={(e) => set({ service_identity_id: e.target.value })}>
                <option value="">Any caller</option>
                {identityOptions.map((i) => (
                  <option key={i.id} value={i.id}>{i.label}</option>
                ))}
              </Select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="inv-outcome">Outcome</Label>
              <Select id="inv-outcome" value={f.outcome} onChange={(e) => set({ outcome: e.target.value })}>
                <option value="">Any outcome</option>
                {OUTCOMES.map((o) => <option key={o} value={o}>{o}</option>)}
              </Select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="inv-reason">Reason</Label>
              <Select id="inv-reason" value={f.reason} onChange={(e) => set({ reason: e.target.value })}>
                <option value="">Any reason</option>
                {RESULT_REASONS.map((r) => <option key={r} value={r}>{r}</option>)}
              </Select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="inv-capability">Capability</Label>
              <Select id="inv-capability" value={f.capability} onChange={(e) => set({ capability: e.target.value })}>
                <option value="">Any capability</option>
                {CAPABILITIES.map((c) => <option key={c} value={c}>{c}</option>)}
              </Select>
            </div>
          </div>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <ExportCsvButton ws={ws} what="invocations" header={CSV_HEADER} rows={csvRows} more={Boolean(list.hasNextPage)} />
            {filtered ? (
              <Button variant="link" size="sm" onClick={clear}>
                Clear filters
              </Button>
            ) : null}
          </div>
        </CardContent>
      </Card>
      {list.error ? <Alert problem={problemOf(list.error)} /> : null}
      {list.isLoading ? (
        <Loading what="invocations" />
      ) : (
        <Table>
          <TableCaption>{rows.length ? `${rows.length} invocation(s)` : "No capability invocations match."}</TableCaption>
          <TableHeader>
            <TableRow>
              <TableHead>Time</TableHead>
              <TableHead>Capability</TableHead>
              <TableHead>Outcome</TableHead>
              <TableHead>Reason</TableHead>
              <TableHead>Provider</TableHead>
              <TableHead>Usage</TableHead>
              <TableHead>Overhead</TableHead>
              <TableHead>Caller</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {rows.map((r) => (
              <TableRow key={r.id}>
                <TableCell className="whitespace-nowrap">
                  <Link
                    href={workspaceHref(ws, `/invocations/${r.id}`)}
                    className={cn("text-sky-800 underline underline-offset-4 hover:text-sky-950", focusRing)}
                  >
                    <time dateTime={r.created_at} title={r.created_at}>{formatDateTime(r.created_at)}</time>
                    <span className="sr-only">, open invocation {r.id}</span>
                  </Link>
                </TableCell>
                <TableCell><code>{r.capability}</code> {r.action}</TableCell>
                <TableCell><Badge tone={OUTCOME_TONE[r.outcome]}>{r.outcome}</Badge></TableCell>
                <TableCell><ReasonCell ws={ws} reason={r.reason} /></TableCell>
                <TableCell>
                  {r.provider ?? "—"}
                  {r.fallback_used ? <Badge tone="info" className="ml-2">fallback</Badge> : null}
                </TableCell>
                <TableCell>{formatUnits(r.usage.units)} {r.usage.unit}</TableCell>
                <TableCell>{r.overhead_ms === null ? "—" : `${r.overhead_ms} ms`}</TableCell>
                <TableCell className="text-xs">
                  <span className="block">{names.productName.get(r.product_id) ?? <code className="font-mono">{r.product_id}</code>}</span>
                  <span className="block text-slate-600">
                    {r.service_identity_id
                      ? names.identityName.get(r.service_identity_id) ?? <code className="font-mono">{r.service_identity_id}</code>
                      : r.deployment_id
                        ? <>deployment <code className="font-mono">{r.deployment_id}</code></>
                        : "—"}
                  </span>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <LoadMore query={list} className="" size="md" />
    </div>
  );
}
