"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Card, CardContent } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { useTRPC } from "@/lib/trpc/client";
import type { TDeploymentStatus } from "@/server/domain/deployments/deployments.states";
import { DEPLOYMENT_STATUSES, inProgress } from "./deployment-status";
import { DeploymentsTable } from "./deployments-table";
import { titleCase } from "./format";
import { LoadMore } from "./load-more";
import { PageHeader } from "./page-header";
import { repoName } from "./products-view";
import { QueryStates } from "./query-states";

/** Product id -> a short name (the repository's), for tables that name products. */
export function useProductNames(ws: string): { names: ReadonlyMap<string, string>; products: { id: string; repo_url: string }[] } {
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
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((d) => inProgress(d.status))) ? 2000 : false),
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
      <Card>
        <CardContent className="flex flex-wrap items-end gap-4 pt-6">
          <div className="space-y-1.5">
            <Label htmlFor="dep-status">Status</Label>
            <Select id="dep-status" value={status} onChange={(e) => setStatus(e.target.value as TDeploymentStatus | "")}>
              <option value="">Any status</option>
              {DEPLOYMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {titleCase(s)}
                </option>
              ))}
            </Select>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="dep-product">Product</Label>
            <Select id="dep-product" value={productId} onChange={(e) => setProductId(e.target.value)}>
              <option value="">All products</option>
              {products.map((p) => (
                <option key={p.id} value={p.id}>
                  {repoName(p.repo_url)} ({p.id})
                </option>
              ))}
            </Select>
          </div>
        </CardContent>
      </Card>
      <Card>
        <CardContent className="px-0 py-0">
          <QueryStates
            query={list}
            what="deployments"
            empty={rows.length === 0}
            emptyText={filtered ? "No deployments match." : "No deployments yet. Open a confirmed revision and choose Deploy."}
          />
          {rows.length > 0 ? <DeploymentsTable ws={ws} rows={rows} caption={`${rows.length} deployment(s)`} productNames={names} /> : null}
          <LoadMore query={list} label="Load more deployments" />
        </CardContent>
      </Card>
    </div>
  );
}
