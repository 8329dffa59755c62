"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import { hasRole } from "../shell/nav-config";

export const OUTCOME_TONE = { completed: "success", denied: "warning", failed: "danger", requested: "info" } as const;

/** Names of the workspace's products and (for admins, who may list them) service identities. */
export function useCallerNames(ws: string) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const isAdmin = hasRole(workspace.data?.role, "admin");
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const identities = useQuery({
    ...trpc.serviceIdentities.list.queryOptions({ ws, limit: 200, order: "desc" }),
    enabled: isAdmin,
  });
  return {
    products: products.data?.items ?? [],
    identities: identities.data?.items ?? [],
    productName: new Map((products.data?.items ?? []).map((p) => [p.id, p.name])),
    identityName: new Map((identities.data?.items ?? []).map((i) => [i.id, i.name])),
  };
}
