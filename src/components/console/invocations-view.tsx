"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { cn, focusRing } from "@/components/ui/cn";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TResultReason } from "@/server/bridge/bridge.contract";
import { formatDateTime, formatUnits } from "./format";
import { LoadMore } from "./load-more";
import { workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";

const OUTCOMES = ["completed", "denied", "failed", "requested"] as const;
const CAPABILITIES = ["ai.generate", "storage.object", "data.kv", "email.send"] as const;
const TONE = { completed: "success", denied: "warning", failed: "danger", requested: "info" } as const;

/** Spec 6.3 result reasons in words, and where in the console to act on them. */
const REASONS: Record<TResultReason, { text: string; fix?: { path: string; label: string } }> = {
  outside_contract: { text: "Outside the product's confirmed capability contract (capability, action or scope).", fix: { path: "/products", label: "Products" } },
  permission_denied: {
    text: "The service identity's Bridge permissions do not include this action.",
    fix: { path: "/service-identities", label: "Service identities" },
  },
  policy_blocked: {
    text: "No ready provider binding covers this call: it is outside every binding's actions or scope.",
    fix: { path: "/bindings", label: "Provider bindings" },
  },
  binding_missing: { text: "No provider binding can serve this capability in this workspace.", fix: { path: "/bindings", label: "Provider bindings" } },
  binding_revoked: { text: "The provider binding, or its credential, is revoked or expired.", fix: { path: "/bindings", label: "Provider bindings" } },
  usage_denied: { text: "The plan does not include it, or the monthly or binding budget is used up.", fix: { path: "/plan", label: "Plan & budgets" } },
  provider_unavailable: { text: "The provider could not be reached or was temporarily failing (network, timeout, 5xx, 429)." },
  provider_rejected: { text: "The provider refused the request (for example bad credentials, an unknown model or bucket)." },
  output_blocked: { text: "The provider's output contained a stored credential secret, so it was withheld." },
};

function ReasonCell({ ws, reason }: { ws: string; reason: string | null }) {
  if (!reason) return <>—</>;
  const known = Object.hasOwn(REASONS, reason) ? REASONS[reason as TResultReason] : undefined;
  return (
    <div className="max-w-80 space-y-0.5">
      <code className="font-mono text-xs">{reason}</code>
      {known ? (
        <p className="text-xs text-slate-600">
          {known.text}
          {known.fix ? (
            <>
              {" "}
              <Link href={workspaceHref(ws, known.fix.path)} className={cn("text-sky-700 underline-offset-4 hover:underline", focusRing)}>
                {known.fix.label}
              </Link>
            </>
          ) : null}
        </p>
      ) : null}
    </div>
  );
}

/** Bridge calls: filter by product, outcome and capability; each row shows reason, provider, fallback and usage. */
export function InvocationsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const [productId, setProductId] = useState("");
  const [outcome, setOutcome] = useState("");
  const [capability, setCapability] = useState("");
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const list = useInfiniteQuery(
    trpc.invocations.list.infiniteQueryOptions(
      {
        ws, limit: 50, order: "desc",
        ...(productId ? { product_id: productId } : {}),
        ...(outcome ? { outcome: outcome as (typeof OUTCOMES)[number] } : {}),
        ...(capability ? { capability: capability as (typeof CAPABILITIES)[number] } : {}),
      },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <div className="space-y-6">
      <PageHeader title="Capability invocations" description="Every Bridge call with its outcome, reason, provider and usage. Content is never stored: only sizes and hashes." />
      <Card>
        <CardContent className="flex flex-wrap items-end gap-4 pt-6">
          <div className="space-y-1.5">
            <Label htmlFor="inv-product">Product</Label>
            <Select id="inv-product" value={productId} onChange={(e) => setProductId(e.target.value)}>
              <option value="">All products</option>
              {products.data?.items.map((p) => (
                <option key={p.id} value={p.id}>{p.repo_url} ({p.id})</option>
              ))}
            </Select>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="inv-outcome">Outcome</Label>
            <Select id="inv-outcome" value={outcome} onChange={(e) => setOutcome(e.target.value)}>
              <option value="">Any outcome</option>
              {OUTCOMES.map((o) => <option key={o} value={o}>{o}</option>)}
            </Select>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="inv-capability">Capability</Label>
            <Select id="inv-capability" value={capability} onChange={(e) => setCapability(e.target.value)}>
              <option value="">Any capability</option>
              {CAPABILITIES.map((c) => <option key={c} value={c}>{c}</option>)}
            </Select>
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
            </TableRow>
          </TableHeader>
          <TableBody>
            {rows.map((r) => (
              <TableRow key={r.id}>
                <TableCell className="whitespace-nowrap">{formatDateTime(r.created_at)}</TableCell>
                <TableCell><code>{r.capability}</code> {r.action}</TableCell>
                <TableCell><Badge tone={TONE[r.outcome]}>{r.outcome}</Badge></TableCell>
                <TableCell><ReasonCell ws={ws} reason={r.reason} /></TableCell>
                <TableCell>
                  {r.provider ?? "—"}
                  {r.fallback_used ? <Badge tone="info" className="ml-2">fallback</Badge> : null}
                </TableCell>
                <TableCell>{formatUnits(r.usage.units)} {r.usage.unit}</TableCell>
                <TableCell>{r.overhead_ms === null ? "—" : `${r.overhead_ms} ms`}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <LoadMore query={list} className="" size="md" />
    </div>
  );
}
