"use client";

import Link from "next/link";
import { cn, focusRing } from "@/components/ui/cn";
import type { TInvocation } from "@/server/domain/sessions/sessions.contract";
import { EvidenceBlock } from "../shared/evidence";
import { formatBytes, formatDateTime, formatMs } from "../shared/format";
import { LabelValue, LabelValueList } from "../shared/label-value";
import { workspaceHref } from "../shell/nav-config";
import { AdmissionChecks, AdmissionReason, ExecutionStatusBadge, OutcomeBadge } from "./session-status";

/** Requests are numbered from #1 for people (the API's `sequence` counts from 0). */
export const requestNumber = (inv: Pick<TInvocation, "sequence">) => `#${inv.sequence + 1}`;

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
            <Link
              href={workspaceHref(ws, "/pending")}
              className={cn("font-mono text-sky-700 underline-offset-4 hover:underline", focusRing)}
            >
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
      <LabelValueList columns={4} className="gap-3">
        <LabelValue label="Execution">
          <span className="flex flex-wrap items-center gap-2">
            <ExecutionStatusBadge status={execution.status} />
            <span className="text-slate-600">{execution.execution_mode}</span>
          </span>
        </LabelValue>
        <LabelValue label="HTTP status">{execution.result.http_status ?? "No answer"}</LabelValue>
        <LabelValue label="Duration">{formatMs(usage.duration_ms)}</LabelValue>
        <LabelValue label="CPU">{usage.cpu_ms === null ? "Not measured" : formatMs(usage.cpu_ms)}</LabelValue>
        <LabelValue label="Memory peak">
          {usage.memory_peak_bytes === null ? "Not measured" : formatBytes(usage.memory_peak_bytes)}
        </LabelValue>
        <LabelValue label="Started">{formatDateTime(execution.started_at)}</LabelValue>
        <LabelValue label="Finished">{formatDateTime(execution.finished_at)}</LabelValue>
        <LabelValue label="Execution id">
          <code className="font-mono text-xs break-all">{execution.execution_id}</code>
        </LabelValue>
      </LabelValueList>
      {execution.failure ? (
        <p className="text-sm">
          <span className="font-medium">Failure: </span>
          <code className="font-mono text-xs">{execution.failure.code}</code> · {execution.failure.message}
        </p>
      ) : null}
      <EvidenceBlock
        ws={ws}
        title="Response body"
        evidence={execution.result.body_evidence}
        emptyText="The app answered with an empty body."
      />
      <EvidenceBlock
        ws={ws}
        title="App log"
        evidence={execution.log_evidence}
        emptyText="The app wrote nothing while it ran."
      />
    </div>
  );
}

/** One session invocation opened: its admission, its execution, and the request body. */
export function InvocationDetails({ ws, inv }: { ws: string; inv: TInvocation }) {
  return (
    <div className="space-y-5 py-2">
      <section className="space-y-2">
        <h4 className="text-sm font-semibold text-slate-700">Admission</h4>
        {inv.admission ? (
          <AdmissionDetails ws={ws} admission={inv.admission} />
        ) : (
          <p className="text-sm text-slate-600">Not decided yet.</p>
        )}
      </section>
      <section className="space-y-2">
        <h4 className="text-sm font-semibold text-slate-700">Execution</h4>
        {inv.execution ? (
          <ExecutionDetails ws={ws} execution={inv.execution} />
        ) : (
          <p className="text-sm text-slate-600">
            {inv.admission?.outcome === "pending" ? "Runs once an owner or admin approves it." : "It did not run."}
          </p>
        )}
      </section>
      {inv.input.body_evidence ? (
        <EvidenceBlock ws={ws} title="Request body" evidence={inv.input.body_evidence} />
      ) : null}
      <p className="text-xs text-slate-600">
        Invocation <code className="font-mono">{inv.id}</code> · sent {formatDateTime(inv.created_at)}
      </p>
    </div>
  );
}
