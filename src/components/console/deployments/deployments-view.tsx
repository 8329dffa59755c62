"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { TDeploymentStatus } from "@/server/domain/deployments/deployments.states";
import { DEPLOYMENT_STATUSES, inProgress } from "./deployment-status";
import { DeploymentsTable } from "./deployments-table";
import { titleCase } from "../shared/format";
import { FilterBar, ListCard } from "../shared/list-card";
import { PageHeader } from "../shared/page-header";
import { repoName } from "../source/products-view";
import { OptionSelect } from "../shared/option-select";

/** Product id -> a short name (the repository's), for tables that name products. */
export function useProductNames(ws: string): {
  names: ReadonlyMap<string, string>;
  products: { id: string; repo_url: string }[];
} {
  const trpc = useTRPC();
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  return useMemo(() => {
    const items = products.data?.items ?? [];
    return { names: new Map(items.map((p) => [p.id, repoName(p.repo_url)])), products: items };
  }, [products.data]);
}

/** Every deployment of the workspace, newest first; filter by status and product. */
export function DeploymentsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<TDeploymentStatus | "">("");
  const [productId, setProductId] = useState("");
  const { names, products } = useProductNames(ws);
  const list = useInfiniteQuery(
    trpc.deployments.list.infiniteQueryOptions(
      { ws, limit: 50, order: "desc", ...(status ? { status } : {}), ...(productId ? { product_id: productId } : {}) },
      {
        getNextPageParam: (page) => page.next_cursor ?? undefined,
        // A planned or applying deployment moves on its own: keep the table current.
        refetchInterval: (q) =>
          q.state.data?.pages.some((p) => p.items.some((d) => inProgress(d.status))) ? 2000 : false,
      },
    ),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = status !== "" || productId !== "";

  return (
    <div className="space-y-6">
      <PageHeader
        title="Deployments"
        description="Every deployment of a revision to preview, staging or production. Deploy a confirmed revision from its page."
      />
      <FilterBar>
        <OptionSelect
          id="dep-status"
          label="Status"
          value={status}
          onChange={(v) => setStatus(v as TDeploymentStatus | "")}
          anyLabel="Any status"
          options={DEPLOYMENT_STATUSES.map((s) => ({ value: s, label: titleCase(s) }))}
        />
        <OptionSelect
          id="dep-product"
          label="Product"
          value={productId}
          onChange={setProductId}
          anyLabel="All products"
          options={products.map((p) => ({ value: p.id, label: `${repoName(p.repo_url)} (${p.id})` }))}
        />
      </FilterBar>
      <ListCard
        query={list}
        what="deployments"
        empty={rows.length === 0}
        emptyText={
          filtered ? "No deployments match." : "No deployments yet. Open a confirmed revision and choose Deploy."
        }
        loadMoreLabel="Load more deployments"
      >
        <DeploymentsTable ws={ws} rows={rows} caption={`${rows.length} deployment(s)`} productNames={names} />
      </ListCard>
    </div>
  );
}
