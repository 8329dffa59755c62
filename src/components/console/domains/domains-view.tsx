"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RefreshCw } from "lucide-react";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { ConfirmAction } from "../shared/confirm-action";
import { formatDateTime } from "../shared/format";
import { PageHeader } from "../shared/page-header";
import { actionsColumn, type TColumn } from "../shared/resource-table";
import { StatusChip } from "../shared/status-chip";
import { TableCard } from "../shared/table-card";
import { hasRole, workspaceHref } from "../shell/nav-config";
import { AddDomainForm } from "./add-domain-form";
import { DnsRecords, type TDomain } from "./dns-records";

const TONE = { pending_verification: "info", verified: "success", failed: "danger", released: "neutral" } as const;

/** Verify (queue a DNS check) for one domain, with its error under the button. */
function VerifyButton({ ws, d }: { ws: string; d: TDomain }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const verify = useMutation(
    trpc.domains.verify.mutationOptions({
      onSettled: async () => queryClient.invalidateQueries(trpc.domains.pathFilter()),
    }),
  );
  return (
    <>
      <Button
        size="sm"
        variant="secondary"
        disabled={verify.isPending}
        onClick={() => verify.mutate({ ws, dom: d.id })}
      >
        <RefreshCw aria-hidden="true" />
        {verify.isPending ? "Queuing…" : "Verify"}
        <span className="sr-only"> {d.hostname}</span>
      </Button>
      {verify.error ? <Alert className="w-full" problem={problemOf(verify.error)} /> : null}
    </>
  );
}

/** Custom domains: add (owner/admin), the DNS records to create with ✓/✗ and copy buttons, verify with the result in words, delete. */
export function DomainsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const productName = new Map((products.data?.items ?? []).map((p) => [p.id, p.name]));
  const canWrite = hasRole(workspace.data?.role, "admin");
  const list = useInfiniteQuery(
    trpc.domains.list.infiniteQueryOptions(
      { ws, limit: 50, order: "desc" },
      {
        getNextPageParam: (p) => p.next_cursor ?? undefined,
        // While a check is queued the worker answers within seconds: keep the page current.
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((d) => d.check_pending)) ? 2_000 : false),
      },
    ),
  );
  const columns: TColumn<TDomain>[] = [
    {
      key: "hostname",
      label: "Hostname",
      rowHeader: true,
      cell: (d) => (
        <div>
          <div className="break-all">{d.hostname}</div>
          <div className="text-xs font-normal text-slate-600">
            {d.environment_type} of{" "}
            <Link
              href={workspaceHref(ws, `/products/${d.product_id}`)}
              className="text-sky-700 underline-offset-4 hover:underline"
            >
              {productName.get(d.product_id) ?? "a product"}
            </Link>
          </div>
        </div>
      ),
    },
    {
      key: "status",
      label: "Status",
      cell: (d) => (
        <div className="space-y-1 text-xs">
          <StatusChip
            status={d.status}
            tones={TONE}
            labels={{ pending_verification: "Pending verification" }}
            note={d.check_pending ? "A check is queued…" : null}
          />
          {d.failure ? <p className="text-sm text-rose-800">{d.failure.message}</p> : null}
          {d.status === "verified" && !d.failure ? (
            <p className="text-sm text-slate-700">
              Traffic to this hostname reaches the {d.environment_type} deployment.
            </p>
          ) : null}
          <div className="text-slate-600">Last checked: {formatDateTime(d.last_checked_at)}</div>
          {d.verified_at ? <div className="text-slate-600">Verified: {formatDateTime(d.verified_at)}</div> : null}
        </div>
      ),
    },
    actionsColumn((d) =>
      canWrite ? (
        <>
          <VerifyButton ws={ws} d={d} />
          <ConfirmAction
            mutation={trpc.domains.delete.mutationOptions()}
            variables={{ ws, dom: d.id }}
            onDone={() => queryClient.invalidateQueries(trpc.domains.pathFilter())}
            label="Delete"
            srLabel={d.hostname}
            title="Delete this domain?"
            description={`${d.hostname} stops reaching your app at once. Adding it again needs a new verification.`}
            confirmLabel="Delete domain"
            pendingLabel="Deleting…"
          />
        </>
      ) : null,
    ),
  ];
  return (
    <>
      <PageHeader
        title="Domains"
        description="Your own hostnames for products' staging and production environments, verified over DNS."
      />
      <div className="space-y-6">
        {canWrite ? <AddDomainForm ws={ws} /> : null}
        <TableCard
          title="Domains"
          query={list}
          what="domains"
          emptyText="No custom domains yet."
          loadMoreLabel="Load more domains"
          caption="Custom domains of this workspace"
          columns={columns}
          details={(d) => <DnsRecords d={d} />}
        />
      </div>
    </>
  );
}
