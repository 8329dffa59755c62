"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TProductStatus } from "@/server/domain/source/source.contract";
import { titleCase } from "../shared/format";
import { PageHeader } from "../shared/page-header";
import { RelativeTime } from "../shared/relative-time";
import { TableCard } from "../shared/table-card";
import { hasRole, workspaceHref } from "../shell/nav-config";
import { NewProductForm } from "./new-product-form";
import { sourceLabel } from "./source-label";

// The deployments page takes repoName from here; new code imports it from ./source-freeze.
export { repoName } from "./source-freeze";

const PRODUCT_TONE: Record<TProductStatus, "info" | "success" | "neutral" | "danger"> = {
  building: "info",
  ready: "neutral",
  live: "success",
  failed: "danger",
};

export function ProductStatusBadge({ status }: { status: TProductStatus }) {
  return <Badge tone={PRODUCT_TONE[status]}>{titleCase(status)}</Badge>;
}

/** The workspace's products and the form that creates one from a repository, with live freeze progress. */
export function ProductsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const products = useInfiniteQuery(
    trpc.source.listProducts.infiniteQueryOptions(
      { ws, limit: 50, order: "desc" },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const role = workspace.data?.role;
  // Until the role is known, let the form be used: the server decides anyway.
  const canCreate = role === undefined || hasRole(role, "developer");
  const rows = products.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <>
      <PageHeader
        title="Products"
        description={
          workspace.data
            ? `Hosted apps of ${workspace.data.name}, each created from a repository.`
            : "Hosted apps, each created from a repository."
        }
      />
      <div className="space-y-6">
        {workspace.error ? <Alert problem={problemOf(workspace.error)} /> : null}
        {role && !canCreate ? (
          <Alert>Only developers, admins and owners can create products. You are {role}.</Alert>
        ) : null}
        <NewProductForm ws={ws} canCreate={canCreate} existing={rows} />

        <TableCard
          title="All products"
          query={products}
          what="products"
          emptyText="No products yet."
          loadMoreLabel="Load more products"
          caption="Products of this workspace"
          rows={rows}
          columns={[
            {
              key: "name",
              label: "Name",
              cell: (p) => (
                <div>
                  <Link
                    href={workspaceHref(ws, `/products/${p.id}`)}
                    className="font-medium text-sky-800 underline underline-offset-2"
                  >
                    {p.name}
                  </Link>
                  <div className="font-mono text-xs text-slate-600">{p.id}</div>
                </div>
              ),
            },
            { key: "status", label: "Status", cell: (p) => <ProductStatusBadge status={p.status} /> },
            {
              key: "repository",
              label: "Repository",
              className: "max-w-80 text-xs break-all",
              cell: (p) => (
                <span>
                  <span className="font-mono">{sourceLabel(p.repo_url)}</span>{" "}
                  <span className="text-slate-600">@ {p.ref}</span>
                </span>
              ),
            },
            {
              key: "activity",
              label: "Last activity",
              className: "whitespace-nowrap",
              cell: (p) => <RelativeTime iso={p.last_activity_at} />,
            },
          ]}
        />
      </div>
    </>
  );
}
