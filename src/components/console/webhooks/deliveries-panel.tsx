"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { RefreshCw } from "lucide-react";
import { Button } from "@/components/ui/button";
import { useTRPC } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { formatDateTime } from "../shared/format";
import type { TColumn } from "../shared/resource-table";
import { eventColumn } from "./event-column";
import { StatusChip } from "../shared/status-chip";
import { TableCard } from "../shared/table-card";

type TOutputs = inferRouterOutputs<AppRouter>["webhooks"];
export type TEndpoint = TOutputs["list"]["items"][number];
type TDelivery = TOutputs["deliveries"]["items"][number];

const DELIVERY_TONE = { delivered: "success", pending: "info", failed: "danger", dead: "danger" } as const;

function attemptsSummary(d: TDelivery): string {
  if (!d.attempts.length) return d.attempt_count ? `${d.attempt_count} (in flight)` : "none yet";
  return d.attempts.map((a) => (a.status_code === null ? (a.error ?? "error") : String(a.status_code))).join(" → ");
}

/** The recent deliveries to one endpoint, refreshed while a retry is pending. */
export function DeliveriesPanel({ ws, endpoint }: { ws: string; endpoint: TEndpoint }) {
  const trpc = useTRPC();
  const deliveries = useQuery(
    trpc.webhooks.deliveries.queryOptions(
      { ws, wb: endpoint.id, limit: 25, order: "desc" },
      // Follow retries while something is still pending.
      { refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === "pending") ? 3000 : false) },
    ),
  );

  const columns: TColumn<TDelivery>[] = [
    eventColumn<TDelivery>(),
    {
      key: "status",
      label: "Status",
      cell: (d) => (
        <StatusChip
          status={d.status}
          tones={DELIVERY_TONE}
          note={d.status === "pending" && d.next_attempt_at ? `next try ${formatDateTime(d.next_attempt_at)}` : null}
        />
      ),
    },
    {
      key: "attempts",
      label: "Attempts (status codes)",
      cell: (d) => (
        <>
          <span className="font-mono text-xs">{attemptsSummary(d)}</span>
          <span className="sr-only"> ({d.attempt_count} attempts)</span>
        </>
      ),
    },
    {
      key: "error",
      label: "Last error",
      priority: 2,
      className: "text-xs text-slate-600",
      cell: (d) => d.last_error ?? "—",
    },
    { key: "created", label: "Created", priority: 3, cell: (d) => formatDateTime(d.created_at) },
  ];

  return (
    <TableCard
      title="Recent deliveries"
      description={<span className="break-all">{endpoint.url}</span>}
      toolbar={
        <Button
          variant="secondary"
          size="sm"
          disabled={deliveries.isFetching}
          onClick={() => void deliveries.refetch()}
        >
          <RefreshCw aria-hidden="true" />
          {deliveries.isFetching ? "Refreshing…" : "Refresh"}
        </Button>
      }
      query={deliveries}
      what="deliveries"
      emptyText="No deliveries yet."
      caption={`Recent deliveries to ${endpoint.url}`}
      columns={columns}
    />
  );
}
