"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { TInvocation } from "@/server/domain/sessions/sessions.contract";
import { ExpandToggle } from "../shared/expand-toggle";
import { formatDateTime, formatMs } from "../shared/format";
import { TableCard } from "../shared/table-card";
import { InvocationDetails, requestNumber } from "./invocation-details";
import { AdmissionChecks, AdmissionReason, OutcomeBadge } from "./session-status";

/**
 * A session's invocations, newest first, with load-more; each row shows the
 * outcome, reason, checks, HTTP status and duration, and opens to the
 * admission, the execution and its evidence. Polled while one is pending.
 */
export function SessionInvocationsCard({ ws, ses }: { ws: string; ses: string }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const list = useInfiniteQuery(
    trpc.sessions.invocations.infiniteQueryOptions(
      { ses, limit: 25, order: "desc" },
      {
        getNextPageParam: (page) => page.next_cursor ?? undefined,
        // An owner or admin may approve a pending one elsewhere.
        refetchInterval: (q) =>
          q.state.data?.pages.some((p) => p.items.some((i) => i.admission?.outcome === "pending")) ? 5000 : false,
      },
    ),
  );
  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  return (
    <TableCard<TInvocation>
      title="Invocations"
      description="Every request sent through this session, newest first. Open one for its admission checks, what ran, and the response body and app log (read with a short-lived API token in your name, since the evidence route takes bearer tokens only)."
      query={list}
      what="invocations"
      emptyText="No requests yet. Send one above."
      loadMoreLabel="Load more invocations"
      caption="Invocations of this session, newest first"
      rowClassName={(inv) => (open.has(inv.id) ? "bg-slate-50" : undefined)}
      detailsId={(inv) => `invocation-details-${inv.id}`}
      details={(inv) => (open.has(inv.id) ? <InvocationDetails ws={ws} inv={inv} /> : null)}
      columns={[
        {
          key: "toggle",
          label: "Details",
          header: <span className="sr-only">Details</span>,
          className: "w-10 py-2",
          cell: (inv) => (
            <ExpandToggle
              expanded={open.has(inv.id)}
              controls={`invocation-details-${inv.id}`}
              what={`invocation ${requestNumber(inv)}`}
              onToggle={() => toggle(inv.id)}
            />
          ),
        },
        { key: "seq", label: "#", className: "font-mono text-xs", cell: (inv) => requestNumber(inv) },
        { key: "method", label: "Method", className: "font-mono text-xs", cell: (inv) => inv.input.method },
        {
          key: "path",
          label: "Path",
          className: "max-w-64 font-mono text-xs break-all",
          cell: (inv) => inv.input.path,
        },
        { key: "outcome", label: "Outcome", cell: (inv) => <OutcomeBadge admission={inv.admission} /> },
        {
          key: "reason",
          label: "Reason",
          priority: 3,
          cell: (inv) => (inv.admission ? <AdmissionReason ws={ws} reason={inv.admission.reason} compact /> : "—"),
        },
        {
          key: "checks",
          label: "Checks",
          cell: (inv) => (inv.admission ? <AdmissionChecks checks={inv.admission.checks} compact /> : "—"),
        },
        {
          key: "http",
          label: "HTTP",
          className: "font-mono text-xs",
          cell: (inv) => inv.execution?.result.http_status ?? "—",
        },
        {
          key: "duration",
          label: "Duration",
          priority: 2,
          className: "whitespace-nowrap",
          cell: (inv) => (inv.execution ? formatMs(inv.execution.usage.duration_ms) : "—"),
        },
        { key: "sent", label: "Sent", priority: 3, cell: (inv) => formatDateTime(inv.created_at) },
      ]}
    />
  );
}
