"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { Check, X } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TInvocation, TPendingOperation } from "@/server/domain/sessions/sessions.contract";
import { AdminOnly } from "../shared/admin-only";
import { formatDateTime, titleCase } from "../shared/format";
import { FilterBar, ListCard } from "../shared/list-card";
import { workspaceHref } from "../shell/nav-config";
import { PageHeader } from "../shared/page-header";
import { idLinkClass } from "../shared/id-link";
import { OptionSelect } from "../shared/option-select";
import { TextField } from "../shared/text-field";
import { AdmissionDetails, requestNumber } from "./invocation-details";
import { AccountLabel, ExecutionStatusBadge, useMemberEmails } from "./session-status";

type TStatus = TPendingOperation["status"];
type TResolved = { pending_operation: TPendingOperation; invocation: TInvocation };
const STATUSES: TStatus[] = ["pending", "approved", "denied"];
const STATUS_TONE = { pending: "info", approved: "success", denied: "danger" } as const;
function InvocationSummary({ ws, inv }: { ws: string; inv: TInvocation }) {
  return (
    <div className="space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3">
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <code className="font-mono text-xs font-semibold">
          {inv.input.method} {inv.input.path}
        </code>
        <span className="text-slate-600">{requestNumber(inv)} in session</span>
        <Link href={workspaceHref(ws, `/sessions/${inv.session_id}`)} className={idLinkClass}>
          {inv.session_id}
        </Link>
        {inv.input.body_evidence ? <span className="text-xs text-slate-600">with a body</span> : null}
      </p>
      {inv.admission ? <AdmissionDetails ws={ws} admission={inv.admission} /> : null}
      {inv.execution ? (
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <ExecutionStatusBadge status={inv.execution.status} />
          HTTP {inv.execution.result.http_status ?? "no answer"}
          {inv.execution.failure ? <span className="text-slate-600">· {inv.execution.failure.message}</span> : null}
        </p>
      ) : null}
    </div>
  );
}

function PendingItem({
  ws,
  op,
  emails,
  onResolved,
}: {
  ws: string;
  op: TPendingOperation;
  emails: ReadonlyMap<string, string>;
  onResolved: (r: TResolved) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [note, setNote] = useState("");
  const invocation = op.invocation;
  const resolve = useMutation(
    trpc.sessions.resolve.mutationOptions({
      onSuccess: async (result) => {
        onResolved(result);
        await Promise.all([
          queryClient.invalidateQueries(trpc.sessions.pending.pathFilter()),
          queryClient.invalidateQueries(trpc.sessions.invocation.pathFilter()),
          queryClient.invalidateQueries(trpc.sessions.invocations.pathFilter()),
        ]);
      },
    }),
  );
  const decide = (decision: "approve" | "deny") =>
    resolve.mutate({ ws, pend: op.id, decision, ...(note.trim() ? { note: note.trim() } : {}) });
  const noteId = `note-${op.id}`;

  return (
    <li className="space-y-3 px-5 py-4">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        <Badge tone={STATUS_TONE[op.status]}>{titleCase(op.status)}</Badge>
        <code className="font-mono text-xs">{op.id}</code>
        <span className="text-slate-600">
          requested by {op.requested_by ? <AccountLabel id={op.requested_by} emails={emails} /> : "unknown"} ·{" "}
          {formatDateTime(op.created_at)} · <code className="font-mono text-xs">{op.reason}</code>
        </span>
      </div>
      {invocation ? (
        <InvocationSummary ws={ws} inv={invocation} />
      ) : (
        <p className="text-sm text-slate-600">
          Invocation <code className="font-mono text-xs">{op.subject_id}</code> no longer exists.
        </p>
      )}
      {op.status === "pending" ? (
        <div className="flex flex-wrap items-end gap-3">
          <TextField
            id={noteId}
            label="Note (optional)"
            className="min-w-64 flex-1"
            autoComplete="off"
            maxLength={500}
            value={note}
            onValue={setNote}
          />
          <Button
            size="sm"
            disabled={resolve.isPending}
            onClick={() => decide("approve")}
            aria-label={`Approve ${op.id}`}
          >
            <Check aria-hidden="true" />
            Approve
          </Button>
          <Button
            variant="danger"
            size="sm"
            disabled={resolve.isPending}
            onClick={() => decide("deny")}
            aria-label={`Deny ${op.id}`}
          >
            <X aria-hidden="true" />
            Deny
          </Button>
        </div>
      ) : (
        <p className="text-xs text-slate-600">
          {titleCase(op.status)} by {op.resolved_by ? <AccountLabel id={op.resolved_by} emails={emails} /> : "unknown"}{" "}
          · {formatDateTime(op.resolved_at)}
          {op.note ? ` · “${op.note}”` : ""}
        </p>
      )}
      {resolve.error ? <Alert title="Not resolved" problem={problemOf(resolve.error)} /> : null}
    </li>
  );
}

/** What this visit resolved, with the admission that followed (approval re-runs the checks). */
function ResolvedCard({ ws, resolved }: { ws: string; resolved: TResolved[] }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Resolved just now</CardTitle>
        <CardDescription>
          An approved request is admitted again with consent given: a later check can still deny it. Admitted ones ran
          at once.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="space-y-4">
          {resolved.map(({ pending_operation: p, invocation }) => (
            <li key={p.id} className="space-y-2">
              <p className="flex flex-wrap items-center gap-2 text-sm">
                <Badge tone={STATUS_TONE[p.status]}>{titleCase(p.status)}</Badge>
                <code className="font-mono text-xs">{p.id}</code>
              </p>
              <InvocationSummary ws={ws} inv={invocation} />
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

function PendingList({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<TStatus | "">("pending");
  const [resolved, setResolved] = useState<TResolved[]>([]);
  const list = useInfiniteQuery(
    trpc.sessions.pending.infiniteQueryOptions(
      { ws, limit: 50, order: "desc", ...(status ? { status } : {}) },
      { getNextPageParam: (page) => page.next_cursor ?? undefined, refetchInterval: 10_000 },
    ),
  );
  const emails = useMemberEmails(ws);
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <div className="space-y-6">
      {resolved.length ? <ResolvedCard ws={ws} resolved={resolved} /> : null}
      <FilterBar>
        <OptionSelect
          id="pending-status"
          label="Status"
          value={status}
          onChange={(v) => setStatus(v as TStatus | "")}
          anyLabel="Any status"
          options={STATUSES.map((s) => ({ value: s, label: titleCase(s) }))}
        />
      </FilterBar>
      <ListCard
        query={list}
        what="pending operations"
        empty={rows.length === 0}
        emptyText={status === "pending" ? "Nothing waits for a decision." : "No pending operations match."}
        loadMoreLabel="Load more pending operations"
      >
        <ul className="divide-y divide-slate-100" aria-label="Pending operations">
          {rows.map((op) => (
            <PendingItem
              key={op.id}
              ws={ws}
              op={op}
              emails={emails}
              onResolved={(r) => setResolved((prev) => [r, ...prev])}
            />
          ))}
        </ul>
      </ListCard>
    </div>
  );
}

/** Owners and admins: requests waiting for consent (a viewer's POST, PUT, PATCH or DELETE), with Approve and Deny. */
export function PendingView({ ws }: { ws: string }) {
  return (
    <>
      <PageHeader
        title="Pending operations"
        description="Requests sent through a session that wait for an owner or admin: approve to run them (the checks run again), or deny them with a note."
      />
      <AdminOnly ws={ws} what="approve or deny pending operations">
        <PendingList ws={ws} />
      </AdminOnly>
    </>
  );
}
