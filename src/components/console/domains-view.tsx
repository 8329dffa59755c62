"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { Globe, RefreshCw } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmDialog } from "./confirm-dialog";
import { formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { hasRole } from "./nav-config";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

type TDomain = inferRouterOutputs<AppRouter>["domains"]["list"]["items"][number];

const STATUS = {
  pending_verification: { label: "Pending verification", tone: "info" },
  verified: { label: "Verified", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
} as const;

function AddDomainForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 100, order: "desc" }));
  const [product, setProduct] = useState("");
  const [environment, setEnvironment] = useState<"staging" | "production">("production");
  const [hostname, setHostname] = useState("");
  const create = useMutation(
    trpc.domains.create.mutationOptions({
      onSuccess: async () => {
        setHostname("");
        await queryClient.invalidateQueries(trpc.domains.pathFilter());
      },
    }),
  );
  const items = products.data?.items ?? [];
  const chosen = product || items[0]?.id || "";

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ ws, product_id: chosen, environment_type: environment, hostname: hostname.trim() });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Add a domain</CardTitle>
        <CardDescription>
          Serve a product&apos;s staging or production environment on your own hostname. You will get two DNS records to create: a TXT record that
          proves you own the name, and the record that routes its traffic to Capstan.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {items.length === 0 && !products.isPending ? <Alert>Add a product first: a domain routes to a product&apos;s environment.</Alert> : null}
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-[2fr_2fr_1fr_auto] sm:items-end" autoComplete="off">
          <div className="space-y-1.5">
            <Label htmlFor="dom-hostname">Hostname</Label>
            <Input id="dom-hostname" required maxLength={300} placeholder="app.example.com" value={hostname} onChange={(e) => setHostname(e.target.value)} spellCheck={false} />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="dom-product">Product</Label>
            <Select id="dom-product" value={chosen} onChange={(e) => setProduct(e.target.value)}>
              {items.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.repo_url ? `${p.repo_url.replace(/^[a-z]+:\/\//, "")} (${p.id})` : p.id}
                </option>
              ))}
            </Select>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="dom-env">Environment</Label>
            <Select id="dom-env" value={environment} onChange={(e) => setEnvironment(e.target.value as "staging" | "production")}>
              <option value="production">production</option>
              <option value="staging">staging</option>
            </Select>
          </div>
          <Button type="submit" disabled={create.isPending || !hostname.trim() || !chosen}>
            <Globe aria-hidden="true" />
            {create.isPending ? "Adding…" : "Add domain"}
          </Button>
        </form>
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
      </CardContent>
    </Card>
  );
}

function DnsRecords({ d }: { d: TDomain }) {
  const records = [d.verification_record, ...d.routing_records];
  return (
    <div className="space-y-2">
      <p className="text-sm text-slate-700">
        Create these records at your DNS provider{d.apex ? " (an apex name: use A/AAAA records, or ALIAS / CNAME flattening where your provider offers it)" : ""}:
      </p>
      <div className="overflow-x-auto">
        <table className="w-full text-left text-xs">
          <thead className="text-slate-600">
            <tr>
              <th className="py-1 pr-3 font-medium">Type</th>
              <th className="py-1 pr-3 font-medium">Name</th>
              <th className="py-1 pr-3 font-medium">Value</th>
            </tr>
          </thead>
          <tbody>
            {records.map((r) => (
              <tr key={`${r.type} ${r.name} ${r.value}`} className="align-top">
                <td className="py-1 pr-3 font-mono">{r.type}</td>
                <td className="py-1 pr-3">
                  <div className="flex items-center gap-1">
                    <code className="font-mono break-all">{r.name}</code>
                    <CopyButton value={r.name} label={`Copy ${r.type} name`} size="sm" variant="ghost" />
                  </div>
                </td>
                <td className="py-1 pr-3">
                  <div className="flex items-center gap-1">
                    <code className="font-mono break-all">{r.value}</code>
                    <CopyButton value={r.value} label={`Copy ${r.type} value`} size="sm" variant="ghost" />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function DomainRow({ ws, d, canWrite, onDelete }: { ws: string; d: TDomain; canWrite: boolean; onDelete: (d: TDomain) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const verify = useMutation(
    trpc.domains.verify.mutationOptions({ onSettled: async () => queryClient.invalidateQueries(trpc.domains.pathFilter()) }),
  );
  const status = STATUS[d.status];
  return (
    <TableRow className="align-top">
      <TableCell className="min-w-64">
        <div className="font-medium break-all">{d.hostname}</div>
        <div className="text-xs text-slate-600">
          {d.environment_type} of <code className="font-mono">{d.product_id}</code>
        </div>
        <div className="pt-3">
          <DnsRecords d={d} />
        </div>
      </TableCell>
      <TableCell className="min-w-56">
        <Badge tone={status.tone}>{status.label}</Badge>
        {d.check_pending ? <div className="pt-1 text-xs text-slate-600">A check is queued…</div> : null}
        {d.failure ? <p className="pt-2 text-sm text-rose-800">{d.failure.message}</p> : null}
        {d.status === "verified" && !d.failure ? <p className="pt-2 text-sm text-slate-700">Traffic to this hostname reaches the {d.environment_type} deployment.</p> : null}
        <div className="pt-2 text-xs text-slate-600">Last checked: {formatDateTime(d.last_checked_at)}</div>
        {d.verified_at ? <div className="text-xs text-slate-600">Verified: {formatDateTime(d.verified_at)}</div> : null}
        {verify.error ? <Alert className="mt-2" problem={problemOf(verify.error)} /> : null}
      </TableCell>
      <TableCell className="text-right whitespace-nowrap">
        {canWrite ? (
          <div className="flex flex-col items-end gap-2">
            <Button size="sm" variant="secondary" disabled={verify.isPending} onClick={() => verify.mutate({ ws, dom: d.id })}>
              <RefreshCw aria-hidden="true" />
              {verify.isPending ? "Queuing…" : "Verify"}
              <span className="sr-only"> {d.hostname}</span>
            </Button>
            <Button size="sm" variant="danger" onClick={() => onDelete(d)}>
              Delete<span className="sr-only"> {d.hostname}</span>
            </Button>
          </div>
        ) : null}
      </TableCell>
    </TableRow>
  );
}

/** Custom domains: add (owner/admin), the DNS records to create with copy buttons, verify with the result in words, delete. */
export function DomainsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const canWrite = hasRole(workspace.data?.role, "admin");
  const list = useInfiniteQuery(
    trpc.domains.list.infiniteQueryOptions({ ws, limit: 50, order: "desc" }, {
      getNextPageParam: (p) => p.next_cursor ?? undefined,
      // While a check is queued the worker answers within seconds: keep the page current.
      refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((d) => d.check_pending)) ? 2_000 : false),
    }),
  );
  const [confirm, setConfirm] = useState<TDomain | null>(null);
  const remove = useMutation(
    trpc.domains.delete.mutationOptions({
      onSuccess: async () => {
        setConfirm(null);
        await queryClient.invalidateQueries(trpc.domains.pathFilter());
      },
    }),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader title="Domains" description="Your own hostnames for products' staging and production environments, verified over DNS." />
      <div className="space-y-6">
        {canWrite ? <AddDomainForm ws={ws} /> : null}
        <Card>
          <CardHeader>
            <CardTitle>Domains</CardTitle>
          </CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={list} what="domains" empty={rows.length === 0} emptyText="No custom domains yet." />
            {rows.length > 0 ? (
              <Table>
                <TableCaption>Custom domains of this workspace</TableCaption>
                <TableHeader>
                  <TableRow>
                    <TableHead>Hostname and DNS records</TableHead>
                    <TableHead>Status</TableHead>
                    <TableHead>
                      <span className="sr-only">Actions</span>
                    </TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((d) => (
                    <DomainRow key={d.id} ws={ws} d={d} canWrite={canWrite} onDelete={(x) => { remove.reset(); setConfirm(x); }} />
                  ))}
                </TableBody>
              </Table>
            ) : null}
            <LoadMore query={list} label="Load more domains" />
          </CardContent>
        </Card>
      </div>
      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title="Delete this domain?"
        description={`${confirm?.hostname ?? ""} stops reaching your app at once. Adding it again needs a new verification.`}
        confirmLabel="Delete domain"
        pendingLabel="Deleting…"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => confirm && remove.mutate({ ws, dom: confirm.id })}
      />
    </>
  );
}
