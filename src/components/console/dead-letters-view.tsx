"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { RotateCcw } from "lucide-react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { workspaceHref } from "./nav-config";
import { AdminOnly } from "./admin-only";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

function DeadLettersTable({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const letters = useInfiniteQuery(
    trpc.webhooks.deadLetters.infiniteQueryOptions({ ws, limit: 50, order: "desc" }, { getNextPageParam: (page) => page.next_cursor ?? undefined }),
  );
  // Endpoint URLs for display; the table still works (with ids) if this fails.
  const endpoints = useQuery(trpc.webhooks.list.queryOptions({ ws, limit: 200, order: "desc" }));
  const urlOf = new Map((endpoints.data?.items ?? []).map((e) => [e.id, e.url]));
  const redeliver = useMutation(
    trpc.webhooks.redeliver.mutationOptions({
      onSettled: () => queryClient.invalidateQueries(trpc.webhooks.pathFilter()),
    }),
  );
  const rows = letters.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <Card>
      <CardHeader>
        <CardTitle>Dead letters</CardTitle>
        <CardDescription>
          Fix the endpoint first, then redeliver: the event is queued again with the full retry schedule and the same webhook-id,
          so receivers that deduplicate stay correct. A disabled endpoint must be re-enabled (rotate its secret) before redelivering.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-3 px-0 py-0">
        {redeliver.error ? (
          <div className="px-5 pt-4">
            <Alert title="Not redelivered" problem={problemOf(redeliver.error)} />
          </div>
        ) : null}
        {redeliver.isSuccess ? (
          <div className="px-5 pt-4">
            <Alert tone="success">
              {redeliver.data.event_type} <code className="font-mono">{redeliver.data.event_id}</code> is queued again as{" "}
              <code className="font-mono">{redeliver.data.redelivery_id}</code>. Follow it under{" "}
              <Link className="underline" href={workspaceHref(ws, "/webhooks")}>
                Webhooks
              </Link>
              .
            </Alert>
          </div>
        ) : null}
        <QueryStates
          query={letters}
          what="dead letters"
          empty={rows.length === 0}
          emptyText="No dead letters: every event reached its endpoints or is still being retried."
        />
        {rows.length > 0 ? (
          <Table>
            <TableCaption>Deliveries that exhausted their retries</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Event</TableHead>
                <TableHead>Endpoint</TableHead>
                <TableHead>Attempts</TableHead>
                <TableHead>Last error</TableHead>
                <TableHead>Dead since</TableHead>
                <TableHead>Redelivered</TableHead>
                <TableHead>
                  <span className="sr-only">Actions</span>
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((d) => {
                const busy = redeliver.isPending && redeliver.variables?.dlq === d.id;
                return (
                  <TableRow key={d.id}>
                    <TableCell>
                      <div className="font-medium">{d.event_type}</div>
                      <code className="font-mono text-xs text-slate-600">{d.event_id}</code>
                    </TableCell>
                    <TableCell className="max-w-64">
                      <div className="break-all">{urlOf.get(d.subscription_id) ?? d.subscription_id}</div>
                    </TableCell>
                    <TableCell>{d.attempts}</TableCell>
                    <TableCell className="max-w-72 text-xs">
                      {d.last_status_code !== null ? <Badge tone="danger">HTTP {d.last_status_code}</Badge> : null}
                      <div className="pt-1 break-words text-rose-800">{d.last_error ?? "—"}</div>
                    </TableCell>
                    <TableCell>{formatDateTime(d.created_at)}</TableCell>
                    <TableCell>
                      {d.redelivered_at ? (
                        <>
                          <div>{formatDateTime(d.redelivered_at)}</div>
                          {d.redelivery_id ? <code className="font-mono text-xs text-slate-600">{d.redelivery_id}</code> : null}
                        </>
                      ) : (
                        "Not yet"
                      )}
                    </TableCell>
                    <TableCell className="text-right">
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
                        <span className="sr-only"> {d.event_type} {d.event_id}</span>
                      </Button>
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        ) : null}
        <LoadMore query={letters} className="px-5 pb-4" />
      </CardContent>
    </Card>
  );
}

/** Webhook deliveries that failed on every retry, with Redeliver. Owners and admins only. */
export function DeadLettersView({ ws }: { ws: string }) {

  return (
    <>
      <PageHeader title="Dead letters" description="Webhook deliveries that still failed after the whole retry schedule." />
      <div className="space-y-6">
        <AdminOnly ws={ws} what="see dead letters">
          <DeadLettersTable ws={ws} />
        </AdminOnly>
      </div>
    </>
  );
}
