"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { RotateCcw } from "lucide-react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatDateTime } from "../shared/format";
import { actionsColumn, type TColumn } from "../shared/resource-table";
import { eventColumn } from "./event-column";
import { TableCard } from "../shared/table-card";
import { workspaceHref } from "../shell/nav-config";
import { AdminOnly } from "../shared/admin-only";
import { PageHeader } from "../shared/page-header";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";

type TDeadLetter = inferRouterOutputs<AppRouter>["webhooks"]["deadLetters"]["items"][number];

function DeadLettersTable({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const letters = useInfiniteQuery(
    trpc.webhooks.deadLetters.infiniteQueryOptions(
      { ws, limit: 50, order: "desc" },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  // Endpoint URLs for display; the table still works (with ids) if this fails.
  const endpoints = useQuery(trpc.webhooks.list.queryOptions({ ws, limit: 200, order: "desc" }));
  const urlOf = new Map((endpoints.data?.items ?? []).map((e) => [e.id, e.url]));
  const redeliver = useMutation(
    trpc.webhooks.redeliver.mutationOptions({
      onSettled: () => queryClient.invalidateQueries(trpc.webhooks.pathFilter()),
    }),
  );

  const columns: TColumn<TDeadLetter>[] = [
    eventColumn<TDeadLetter>(),
    {
      key: "endpoint",
      label: "Endpoint",
      className: "max-w-64 break-all",
      cell: (d) => urlOf.get(d.subscription_id) ?? d.subscription_id,
    },
    { key: "attempts", label: "Attempts", priority: 3, cell: (d) => d.attempts },
    {
      key: "error",
      label: "Last error",
      priority: 2,
      className: "max-w-72 text-xs",
      cell: (d) => (
        <div>
          {d.last_status_code !== null ? <Badge tone="danger">HTTP {d.last_status_code}</Badge> : null}
          <div className="pt-1 text-rose-800">{d.last_error ?? "—"}</div>
        </div>
      ),
    },
    { key: "dead", label: "Dead since", priority: 3, cell: (d) => formatDateTime(d.created_at) },
    {
      key: "redelivered",
      label: "Redelivered",
      priority: 3,
      cell: (d) =>
        d.redelivered_at ? (
          <div>
            <div>{formatDateTime(d.redelivered_at)}</div>
            {d.redelivery_id ? (
              <code className="font-mono text-xs break-all text-slate-600">{d.redelivery_id}</code>
            ) : null}
          </div>
        ) : (
          "Not yet"
        ),
    },
    actionsColumn((d) => {
      const busy = redeliver.isPending && redeliver.variables?.dlq === d.id;
      return (
        <Button
          variant="secondary"
          size="sm"
          disabled={busy}
          onClick={() => {
            redeliver.reset();
            redeliver.mutate({ ws, dlq: d.id });
          }}
        >
          <RotateCcw aria-hidden="true" />
          {busy ? "Redelivering…" : d.redelivered_at ? "Redeliver again" : "Redeliver"}
          <span className="sr-only">
            {" "}
            {d.event_type} {d.event_id}
          </span>
        </Button>
      );
    }),
  ];

  return (
    <TableCard
      title="Dead letters"
      description="Fix the endpoint first, then redeliver: the event is queued again with the full retry schedule and the same webhook-id, so receivers that deduplicate stay correct. A disabled endpoint must be re-enabled (rotate its secret) before redelivering."
      notice={
        redeliver.error ? (
          <Alert title="Not redelivered" problem={problemOf(redeliver.error)} />
        ) : redeliver.isSuccess ? (
          <Alert tone="success">
            {redeliver.data.event_type} <code className="font-mono">{redeliver.data.event_id}</code> is queued again as{" "}
            <code className="font-mono">{redeliver.data.redelivery_id}</code>. Follow it under{" "}
            <Link className="underline" href={workspaceHref(ws, "/webhooks")}>
              Webhooks
            </Link>
            .
          </Alert>
        ) : null
      }
      query={letters}
      what="dead letters"
      emptyText="No dead letters: every event reached its endpoints or is still being retried."
      caption="Deliveries that exhausted their retries"
      columns={columns}
    />
  );
}

/** Webhook deliveries that failed on every retry, with Redeliver. Owners and admins only. */
export function DeadLettersView({ ws }: { ws: string }) {
  return (
    <>
      <PageHeader
        title="Dead letters"
        description="Webhook deliveries that still failed after the whole retry schedule."
      />
      <div className="space-y-6">
        <AdminOnly ws={ws} what="see dead letters">
          <DeadLettersTable ws={ws} />
        </AdminOnly>
      </div>
    </>
  );
}
