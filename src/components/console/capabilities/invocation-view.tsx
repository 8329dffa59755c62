"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatMicros } from "@/server/domain/billing/currencies";
import { formatAuditTime } from "../audit/audit-format";
import { formatMs, formatUnits } from "../shared/format";
import { LabelValue } from "../shared/label-value";
import { NotFoundState } from "../shared/not-found-state";
import { Loading, PageHeader } from "../shared/page-header";
import { workspaceHref } from "../shell/nav-config";
import { reasonOf } from "./invocation-reasons";
import {
  FactsCard,
  Id,
  InvocationCaller,
  InvocationCorrelation,
  InvocationEvidence,
  linkClass,
} from "./invocation-parts";
import { InvocationChecks } from "./invocation-checks";
import { OUTCOME_TONE, useCallerNames } from "./invocation-callers";

/**
 * One Bridge call: what was asked, how each decision step went, what it used
 * and cost, the evidence (hashes and sizes, never content), timings, who
 * called, and the correlation id leading to its events and audit records.
 */
export function InvocationView({ ws, inv }: { ws: string; inv: string }) {
  const trpc = useTRPC();
  const call = useQuery(trpc.invocations.get.queryOptions({ ws, cap: inv }, { retry: false }));
  const names = useCallerNames(ws);

  if (call.isPending) return <Loading what="invocation" />;
  if (call.error) {
    const problem = problemOf(call.error);
    if (problem?.status === 404 || problem?.status === 422 || problem?.status === 400) return <NotFoundState />;
    return (
      <>
        <PageHeader title="Invocation" />
        <Alert title="The invocation could not be loaded" problem={problem} />
      </>
    );
  }
  const r = call.data;
  const reason = reasonOf(r.reason);
  const productName = names.productName.get(r.product_id);
  const identityName = r.service_identity_id ? names.identityName.get(r.service_identity_id) : undefined;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Invocation"
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <code className="font-mono">{r.capability}</code> {r.action}
            <Badge tone={OUTCOME_TONE[r.outcome]}>{r.outcome}</Badge>
            <span className="text-slate-600">at</span>
            <time dateTime={r.created_at} title={r.created_at}>
              {formatAuditTime(r.created_at)}
            </time>
          </span>
        }
        actions={
          <Link href={workspaceHref(ws, "/invocations")} className={linkClass}>
            All invocations
          </Link>
        }
      />

      <FactsCard title="Outcome" description="What the Bridge decided, and why.">
        <LabelValue label="Invocation id">
          <Id value={r.id} />
        </LabelValue>
        <LabelValue label="Capability">
          <code className="font-mono">{r.capability}</code> {r.action}
        </LabelValue>
        <LabelValue label="Outcome">
          <Badge tone={OUTCOME_TONE[r.outcome]}>{r.outcome}</Badge>
        </LabelValue>
        <LabelValue label="Reason">
          {r.reason ? (
            <span className="space-y-1">
              <code className="block font-mono text-xs">{r.reason}</code>
              {reason ? (
                <span className="block text-slate-700">
                  {reason.text}{" "}
                  {reason.fix ? (
                    <Link href={workspaceHref(ws, reason.fix.path)} className={linkClass}>
                      {reason.fix.label}
                    </Link>
                  ) : null}
                </span>
              ) : null}
            </span>
          ) : (
            <span className="text-slate-600">
              none (the call {r.outcome === "requested" ? "is in flight" : "completed"})
            </span>
          )}
        </LabelValue>
        <LabelValue label="Provider">
          {r.provider ?? <span className="text-slate-600">none</span>}
          {r.fallback_used ? (
            <Badge tone="info" className="ml-2">
              fallback
            </Badge>
          ) : null}
        </LabelValue>
        <LabelValue label="Binding">
          {r.binding_id ? (
            <Link href={workspaceHref(ws, "/bindings")} className={cn(linkClass, "font-mono text-xs")}>
              {r.binding_id}
            </Link>
          ) : (
            <span className="text-slate-600">none</span>
          )}
        </LabelValue>
      </FactsCard>

      <InvocationChecks r={r} />

      <div className="grid gap-6 lg:grid-cols-2">
        <FactsCard title="Usage and price" labelWidth="10rem">
          <LabelValue label="Usage">
            {formatUnits(r.usage.units)} {r.usage.unit}
          </LabelValue>
          <LabelValue label="Price">
            {r.charge ? (
              <>
                {formatMicros(r.charge.amount_micros, r.charge.currency, true)}{" "}
                <span className="text-slate-600">
                  (rate card version <code className="font-mono text-xs">{r.charge.rate_card_version_id}</code>)
                </span>
              </>
            ) : (
              <span className="text-slate-600">not priced</span>
            )}
          </LabelValue>
        </FactsCard>

        <FactsCard title="Timings" labelWidth="10rem">
          <LabelValue label="Requested (UTC)">
            <time dateTime={r.requested_at} className="font-mono text-xs">
              {r.requested_at}
            </time>
          </LabelValue>
          <LabelValue label="Finished (UTC)">
            {r.finished_at ? (
              <time dateTime={r.finished_at} className="font-mono text-xs">
                {r.finished_at}
              </time>
            ) : (
              <span className="text-slate-600">not yet</span>
            )}
          </LabelValue>
          <LabelValue label="Latency">{r.latency_ms === null ? "—" : formatMs(r.latency_ms)}</LabelValue>
          <LabelValue label="Capstan overhead">{r.overhead_ms === null ? "—" : formatMs(r.overhead_ms)}</LabelValue>
        </FactsCard>
      </div>

      <InvocationCaller ws={ws} r={r} productName={productName} identityName={identityName} />
      <InvocationEvidence r={r} />
      <InvocationCorrelation ws={ws} r={r} />
    </div>
  );
}
