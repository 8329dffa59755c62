"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RefreshCw } from "lucide-react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button, buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TRevision } from "@/server/domain/source/source.contract";
import { formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { hasRole, workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { ProductDeployments } from "./product-deployments";
import { FreezeProgress, idLinkClass, ProductStatusBadge, stillFreezing } from "./products-view";
import { QueryStates } from "./query-states";
import { RelativeTime } from "./relative-time";
import { RenameButton } from "./rename-dialog";

type TDescriptorStatus = TRevision["descriptor_status"];

const DESCRIPTOR_STATUS: Record<TDescriptorStatus, { label: string; tone: "info" | "success" | "warning" | "danger" | "neutral" }> = {
  pending: { label: "Freezing", tone: "info" },
  detected: { label: "Awaiting confirmation", tone: "warning" },
  confirmed: { label: "Confirmed", tone: "success" },
  unavailable: { label: "No descriptor", tone: "danger" },
};

export function DescriptorStatusBadge({ status }: { status: TDescriptorStatus }) {
  const s = DESCRIPTOR_STATUS[status];
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

/** The contract column: rejected with its reason, ready once the descriptor is confirmed, otherwise not yet. */
export function ContractStatusBadge({ revision }: { revision: TRevision }) {
  if (revision.capability_contract?.status === "rejected") {
    return <Badge tone="danger">Rejected: {revision.capability_contract.reason}</Badge>;
  }
  if (revision.descriptor_status === "confirmed") return <Badge tone="success">Ready</Badge>;
  if (revision.descriptor_status === "detected") return <Badge>On confirmation</Badge>;
  return <span className="text-slate-600">—</span>;
}

function FreezeAgainForm({ ws, prod, defaultRef, canFreeze }: { ws: string; prod: string; defaultRef: string; canFreeze: boolean }) {
  const trpc = useTRPC();
  const [ref, setRef] = useState(defaultRef);
  const refreeze = useMutation(trpc.source.refreeze.mutationOptions());

  function submit(e: FormEvent) {
    e.preventDefault();
    refreeze.mutate({ ws, prod, ref: ref.trim() });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Freeze again</CardTitle>
        <CardDescription>Freeze the repository at a ref once more. Each freeze gives a new revision with its own descriptor and contract.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <div className="min-w-64 flex-1 space-y-1.5">
            <Label htmlFor="refreeze-ref">Ref</Label>
            <Input
              id="refreeze-ref"
              name="ref"
              required
              maxLength={256}
              autoComplete="off"
              value={ref}
              disabled={!canFreeze}
              onChange={(e) => setRef(e.target.value)}
            />
          </div>
          <Button type="submit" disabled={!canFreeze || refreeze.isPending}>
            <RefreshCw aria-hidden="true" />
            {refreeze.isPending ? "Starting…" : "Freeze again"}
          </Button>
        </form>
        {refreeze.error ? <Alert title="The freeze was not started" problem={problemOf(refreeze.error)} /> : null}
        {refreeze.data && !refreeze.isPending ? (
          <FreezeProgress key={refreeze.data.source_freeze_id} ws={ws} frz={refreeze.data.source_freeze_id} showProductLink={false} />
        ) : null}
      </CardContent>
    </Card>
  );
}

function RevisionsCard({ ws, prod }: { ws: string; prod: string }) {
  const trpc = useTRPC();
  const revisions = useInfiniteQuery(
    trpc.source.listRevisions.infiniteQueryOptions(
      { ws, product_id: prod, limit: 50, order: "desc" },
      {
        getNextPageParam: (page) => page.next_cursor ?? undefined,
        // A revision whose source is still being frozen changes on its own: keep the table current.
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some(stillFreezing)) ? 2000 : false),
      },
    ),
  );
  const rows = revisions.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <Card>
      <CardHeader>
        <CardTitle>Revisions</CardTitle>
        <CardDescription>Newest first. Open a revision to review and confirm its runtime descriptor.</CardDescription>
      </CardHeader>
      <CardContent className="px-0 py-0">
        <QueryStates query={revisions} what="revisions" empty={rows.length === 0} emptyText="No revisions yet." />
        {rows.length > 0 ? (
          <Table>
            <TableCaption>Revisions of this product</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Revision</TableHead>
                <TableHead>Descriptor</TableHead>
                <TableHead>Contract</TableHead>
                <TableHead>Commit</TableHead>
                <TableHead>Created</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((r) => (
                <TableRow key={r.id}>
                  <TableCell>
                    <Link href={workspaceHref(ws, `/revisions/${r.id}`)} className={idLinkClass}>
                      {r.id}
                    </Link>
                  </TableCell>
                  <TableCell>
                    <DescriptorStatusBadge status={r.descriptor_status} />
                  </TableCell>
                  <TableCell>
                    <ContractStatusBadge revision={r} />
                  </TableCell>
                  <TableCell className="font-mono text-xs" title={r.commit_sha ?? undefined}>
                    {r.commit_sha ? r.commit_sha.slice(0, 12) : "—"}
                  </TableCell>
                  <TableCell className="whitespace-nowrap">{formatDateTime(r.created_at)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ) : null}
        <LoadMore query={revisions} label="Load more revisions" />
      </CardContent>
    </Card>
  );
}

/** One product: where it comes from, what is live per environment, its deployments and revisions, and a form to freeze its repository again. */
export function ProductView({ ws, prod }: { ws: string; prod: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const product = useQuery(trpc.source.getProduct.queryOptions({ ws, prod }));
  const queryClient = useQueryClient();
  const rename = useMutation(
    trpc.source.renameProduct.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.source.getProduct.queryKey({ ws, prod }), data);
        void queryClient.invalidateQueries(trpc.source.listProducts.pathFilter());
      },
    }),
  );
  const role = workspace.data?.role;
  const canFreeze = role === undefined || hasRole(role, "developer");

  if (product.error) {
    return (
      <>
        <PageHeader title="Product" />
        <Alert problem={problemOf(product.error)} />
      </>
    );
  }
  if (!product.data) return <Loading what="product" />;
  const p = product.data;

  return (
    <>
      <PageHeader
        title={p.name}
        crumbs={[{ label: p.name }]}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <ProductStatusBadge status={p.status} />
            <span>
              Product from <span className="font-mono text-xs break-all">{p.repo_url}</span>; last activity <RelativeTime iso={p.last_activity_at} />
            </span>
          </span>
        }
        actions={
          <>
            <RenameButton
              what="product"
              current={p.name}
              disabled={!canFreeze}
              mutation={{ ...rename, mutate: (name, opts) => rename.mutate({ ws, prod, name }, opts) }}
            />
            <Link href={workspaceHref(ws, "/products")} className={buttonVariants({ variant: "secondary", size: "sm" })}>
              All products
            </Link>
          </>
        }
      />
      <div className="space-y-6">
        <Card>
          <CardContent>
            <dl className="grid gap-4 text-sm sm:grid-cols-2">
              <div className="space-y-1 sm:col-span-2">
                <dt className="text-slate-600">Product id</dt>
                <dd className="flex flex-wrap items-center gap-2">
                  <code className="font-mono break-all">{p.id}</code>
                  <CopyButton value={p.id} size="sm" label="Copy id" />
                </dd>
              </div>
              <div className="min-w-0 space-y-1">
                <dt className="text-slate-600">Repository URL</dt>
                <dd className="font-mono text-xs break-all">{p.repo_url}</dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Ref at creation</dt>
                <dd className="font-mono text-xs break-all">{p.ref}</dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Type</dt>
                <dd>
                  <Badge tone="info">{p.type}</Badge>
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Created</dt>
                <dd>{formatDateTime(p.created_at)}</dd>
              </div>
              <div className="space-y-1 sm:col-span-2">
                <dt className="text-slate-600">Input revision</dt>
                <dd>
                  <Link
                    href={workspaceHref(ws, `/revisions/${p.input_revision_id}`)}
                    className={idLinkClass}
                  >
                    {p.input_revision_id}
                  </Link>
                </dd>
              </div>
            </dl>
          </CardContent>
        </Card>
        {role && !canFreeze ? <Alert>Only developers, admins and owners can freeze the repository again. You are {role}.</Alert> : null}
        <ProductDeployments ws={ws} prod={prod} />
        <FreezeAgainForm ws={ws} prod={prod} defaultRef={p.ref} canFreeze={canFreeze} />
        <RevisionsCard ws={ws} prod={prod} />
      </div>
    </>
  );
}
