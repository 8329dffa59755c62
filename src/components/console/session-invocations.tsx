"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { ChevronDown, ChevronRight } from "lucide-react";
import Link from "next/link";
import { Fragment, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn, focusRing } from "@/components/ui/cn";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { useTRPC } from "@/lib/trpc/client";
import type { TInvocation } from "@/server/domain/sessions/sessions.contract";
import { EvidenceBlock } from "./evidence";
import { formatBytes, formatDateTime, formatMs } from "./format";
import { LoadMore } from "./load-more";
import { workspaceHref } from "./nav-config";
import { QueryStates } from "./query-states";
import { AdmissionChecks, AdmissionReason, ExecutionStatusBadge, OutcomeBadge } from "./session-status";

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0 space-y-1">
      <dt className="text-slate-600">{label}</dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

/** The admission of one invocation: the five checks, the reason and the server's message. */
export function AdmissionDetails({ ws, admission }: { ws: string; admission: NonNullable<TInvocation["admission"]> }) {
  return (
    <div className="space-y-2 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <OutcomeBadge admission={admission} />
        <AdmissionChecks checks={admission.checks} />
      </div>
      <p>
        <AdmissionReason ws={ws} reason={admission.reason} />
      </p>
      <p className="whitespace-pre-wrap break-words">{admission.message}</p>
      <p className="text-xs text-slate-600">
        Decided {formatDateTime(admission.decided_at)}
        {admission.pending_operation_id ? (
          <>
            {" · pending operation "}
            <Link href={workspaceHref(ws, "/pending")} className={cn("font-mono text-sky-700 underline-offset-4 hover:underline", focusRing)}>
              {admission.pending_operation_id}
            </Link>
          </>
        ) : null}
      </p>
    </div>
  );
}

/** What ran: status, failure, measured usage, and the response body and log evidence. */
function ExecutionDetails({ ws, execution }: { ws: string; execution: NonNullable<TInvocation["execution"]> }) {
  const { usage } = execution;
  return (
    <div className="space-y-4">
      <dl className="grid gap-3 text-sm sm:grid-cols-2 lg:grid-cols-4">
        <Item label="Execution">
          <span className="flex flex-wrap items-center gap-2">
            <ExecutionStatusBadge status={execution.status} />
            <span className="text-slate-600">{execution.execution_mode}</span>
          </span>
        </Item>
        <Item label="HTTP status">{execution.result.http_status ?? "No answer"}</Item>
        <Item label="Duration">{formatMs(usage.duration_ms)}</Item>
        <Item label="CPU">{usage.cpu_ms === null ? "Not measured" : formatMs(usage.cpu_ms)}</Item>
        <Item label="Memory peak">{usage.memory_peak_bytes === null ? "Not measured" : formatBytes(usage.memory_peak_bytes)}</Item>
        <Item label="Started">{formatDateTime(execution.started_at)}</Item>
        <Item label="Finished">{formatDateTime(execution.finished_at)}</Item>
        <Item label="Execution id">
          <code className="font-mono text-xs break-all">{execution.execution_id}</code>
        </Item>
      </dl>
      {execution.failure ? (
        <p className="text-sm">
          <span className="font-medium">Failure: </span>
          <code className="font-mono text-xs">{execution.failure.code}</code> · {execution.failure.message}
        </p>
      ) : null}
      <EvidenceBlock ws={ws} title="Response body" evidence={execution.result.body_evidence} emptyText="The app answered with an empty body." />
      <EvidenceBlock ws={ws} title="App log" evidence={execution.log_evidence} emptyText="The app wrote nothing while it ran." />
    </div>
  );
}

function InvocationDetails({ ws, inv }: { ws: string; inv: TInvocation }) {
  return (
    <div className="space-y-5 py-2">
      <section className="space-y-2">
        <h4 className="text-sm font-semibold text-slate-700">Admission</h4>
        {inv.admission ? <AdmissionDetails ws={ws} admission={inv.admission} /> : <p className="text-sm text-slate-600">Not decided yet.</p>}
      </section>
      <section className="space-y-2">
        <h4 className="text-sm font-semibold text-slate-700">Execution</h4>
        {inv.execution ? (
          <ExecutionDetails ws={ws} execution={inv.execution} />
        ) : (
          <p className="text-sm text-slate-600">{inv.admission?.outcome === "pending" ? "Runs once an owner or admin approves it." : "It did not run."}</p>
        )}
      </section>
      {inv.input.body_evidence ? <EvidenceBlock ws={ws} title="Request body" evidence={inv.input.body_evidence} /> : null}
      <p className="text-xs text-slate-600">
        Invocation <code className="font-mono">{inv.id}</code> · sent {formatDateTime(inv.created_at)}
      </p>
    </div>
  );
}

const COLUMNS = 10;

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
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((i) => i.admission?.outcome === "pending")) ? 5000 : false),
      },
    ),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Invocations</CardTitle>
        <CardDescription>
          Every request sent through this session, newest first. Open one for its admission checks, what ran, and the response body and app log
          (read with a short-lived API token in your name, since the evidence route takes bearer tokens only).
        </CardDescription>
      </CardHeader>
      <CardContent className="px-0 py-0">
        <QueryStates query={list} what="invocations" empty={rows.length === 0} emptyText="No requests yet. Send one above." />
        {rows.length ? (
          <Table>
            <TableCaption>Invocations of this session, newest first</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead className="w-10">
                  <span className="sr-only">Details</span>
                </TableHead>
                <TableHead>#</TableHead>
                <TableHead>Method</TableHead>
                <TableHead>Path</TableHead>
                <TableHead>Outcome</TableHead>
                <TableHead>Reason</TableHead>
                <TableHead>Checks</TableHead>
                <TableHead>HTTP</TableHead>
                <TableHead>Duration</TableHead>
                <TableHead>Sent</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((inv) => {
                const expanded = open.has(inv.id);
                const detailsId = `invocation-details-${inv.id}`;
                const exe = inv.execution;
                return (
                  <Fragment key={inv.id}>
                    <TableRow className={expanded ? "bg-slate-50" : undefined}>
                      <TableCell className="py-2">
                        <Button
                          variant="ghost"
                          size="icon"
                          aria-expanded={expanded}
                          aria-controls={expanded ? detailsId : undefined}
                          aria-label={`${expanded ? "Hide" : "Show"} details of invocation #${inv.sequence}`}
                          onClick={() => toggle(inv.id)}
                        >
                          {expanded ? <ChevronDown aria-hidden="true" /> : <ChevronRight aria-hidden="true" />}
                        </Button>
                      </TableCell>
                      <TableCell className="font-mono text-xs">{inv.sequence}</TableCell>
                      <TableCell className="font-mono text-xs">{inv.input.method}</TableCell>
                      <TableCell className="max-w-64 font-mono text-xs break-all">{inv.input.path}</TableCell>
                      <TableCell>
                        <OutcomeBadge admission={inv.admission} />
                      </TableCell>
                      <TableCell>{inv.admission ? <AdmissionReason ws={ws} reason={inv.admission.reason} compact /> : "—"}</TableCell>
                      <TableCell>{inv.admission ? <AdmissionChecks checks={inv.admission.checks} compact /> : "—"}</TableCell>
                      <TableCell className="font-mono text-xs">{exe?.result.http_status ?? "—"}</TableCell>
                      <TableCell className="whitespace-nowrap">{exe ? formatMs(exe.usage.duration_ms) : "—"}</TableCell>
                      <TableCell className="whitespace-nowrap">{formatDateTime(inv.created_at)}</TableCell>
                    </TableRow>
                    {expanded ? (
                      <TableRow id={detailsId} className="bg-slate-50">
                        <TableCell colSpan={COLUMNS} className="pt-0">
                          <InvocationDetails ws={ws} inv={inv} />
                        </TableCell>
                      </TableRow>
                    ) : null}
                  </Fragment>
                );
              })}
            </TableBody>
          </Table>
        ) : null}
        <LoadMore query={list} label="Load more invocations" />
      </CardContent>
    </Card>
  );
}
