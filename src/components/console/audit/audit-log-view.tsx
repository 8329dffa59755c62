"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { inferRouterInputs } from "@trpc/server";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Alert } from "@/components/ui/alert";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { hasRole } from "../shell/nav-config";
import { PageHeader } from "../shared/page-header";
import { usePeople } from "../shared/person";
import { useTimeWindow } from "../shared/url-filters";
import { FILTER_KEYS, type TFilterKey } from "./audit-filter-controls";
import { AuditFiltersCard } from "./audit-filters-card";
import { AuditRecordsTable } from "./audit-records-table";
import { ChainCheck } from "./chain-check";

type TAction = NonNullable<inferRouterInputs<AppRouter>["audit"]["list"]["action"]>;

/** The audit log's filters, kept in the URL so a filtered view can be shared or linked to. */
function useUrlFilters() {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const active = FILTER_KEYS.flatMap((k): [TFilterKey, string][] => {
    const v = searchParams.get(k);
    return v ? [[k, v]] : [];
  });
  function setFilters(changes: Partial<Record<TFilterKey | "range", string | null>>) {
    const next = new URLSearchParams(searchParams.toString());
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    // An explicit since/until (a chip or the custom range) replaces a relative range.
    if ((changes.since || changes.until) && changes.range === undefined) next.set("range", "custom");
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  }
  return {
    active,
    filters: Object.fromEntries(active) as Partial<Record<TFilterKey, string>>,
    range: searchParams.get("range") ?? "",
    setFilters,
    clearAll: () => router.replace(pathname, { scroll: false }),
  };
}

/**
 * The audit log: filter chips kept in the URL, newest first, "Load more"
 * pagination, and rows that expand to their details and hashes.
 */
export function AuditLogView({ ws, actions }: { ws: string; actions: readonly string[] }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const url = useUrlFilters();
  const { filters } = url;
  const timeWindow = useTimeWindow({ range: url.range, since: filters.since ?? "", until: filters.until ?? "" });

  const records = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(
      { ws, limit: 50, ...filters, ...timeWindow, action: filters.action as TAction | undefined },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const rows = records.data?.pages.flatMap((p) => p.items) ?? [];
  const people = usePeople(
    ws,
    rows.flatMap((r) => [r.actor.id, r.target?.id]),
  );
  const isAdmin = hasRole(workspace.data?.role, "admin");

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change and refusal in this workspace, append-only and hash-chained."
        actions={isAdmin ? <ChainCheck ws={ws} /> : undefined}
      />
      <div className="space-y-6">
        {workspace.data && !isAdmin ? (
          <Alert>
            Billing, credential, binding and service identity records are visible to owners and admins only.
          </Alert>
        ) : null}
        <AuditFiltersCard
          ws={ws}
          actions={actions}
          isAdmin={isAdmin}
          url={url}
          rows={rows}
          people={people}
          more={Boolean(records.hasNextPage)}
        />
        <AuditRecordsTable ws={ws} records={records} rows={rows} people={people} />
      </div>
    </>
  );
}
