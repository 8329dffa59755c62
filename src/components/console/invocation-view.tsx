"use client";

import { useQuery } from "@tanstack/react-query";
import { CheckCircle2, CircleDashed, CircleMinus, CircleSlash, XCircle } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn, focusRing } from "@/components/ui/cn";
import { CopyButton } from "@/components/ui/copy-button";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatMicros } from "@/server/domain/billing/currencies";
import { actionTone, formatAuditTime } from "./audit-log-view";
import { formatBytes, formatMs, formatUnits } from "./format";
import { checksOf, reasonOf, type TCheckState } from "./invocation-reasons";
import { OUTCOME_TONE, useCallerNames } from "./invocations-view";
import { workspaceHref } from "./nav-config";
import { NotFoundState } from "./not-found-state";
import { Loading, PageHeader } from "./page-header";

const linkClass = cn("text-sky-800 underline underline-offset-4 hover:text-sky-950", focusRing);

const CHECK_STATE: Record<TCheckState, { label: string; tone: "success" | "danger" | "neutral" | "info"; icon: ReactNode }> = {
  passed: { label: "Passed", tone: "success", icon: <CheckCircle2 aria-hidden="true" className="size-4 text-emerald-700" /> },
  failed: { label: "Failed: decided the call", tone: "danger", icon: <XCircle aria-hidden="true" className="size-4 text-rose-700" /> },
  not_reached: { label: "Not reached", tone: "neutral", icon: <CircleSlash aria-hidden="true" className="size-4 text-slate-500" /> },
  not_needed: { label: "Not needed (served by the platform)", tone: "neutral", icon: <CircleMinus aria-hidden="true" className="size-4 text-slate-500" /> },
  unknown: { label: "Not decided yet", tone: "info", icon: <CircleDashed aria-hidden="true" className="size-4 text-sky-700" /> },
};

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-600">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </>
  );
}

function Id({ value }: { value: string | null }) {
  if (!value) return <span className="text-slate-600">none</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <code className="font-mono text-xs break-all">{value}</code>
      <CopyButton value={value} size="sm" variant="ghost" label="Copy" aria-label={`Copy ${value}`} />
    </span>
  );
}

/** The audit rows this call's correlation id wrote (denials, blocked outputs, fallbacks), oldest first. */
function CorrelatedAudit({ ws, correlationId }: { ws: string; correlationId: string }) {
  const trpc = useTRPC();
  const records = useQuery(trpc.audit.list.queryOptions({ ws, correlation_id: correlationId, order: "asc", limit: 50 }));
  if (records.isPending) return <Loading what="audit records" />;
  if (records.error) return <Alert problem={problemOf(records.error)} />;
  const items = records.data.items;
  if (!items.length) return <p className="text-sm text-slate-600">No audit records carry this correlation id (a completed call without fallback writes none).</p>;
  return (
    <ul aria-label="Audit records of this correlation" className="space-y-1.5 text-sm">
      {items.map((r) => (
        <li key={r.id} className="flex flex-wrap items-center gap-2">
          <time dateTime={r.created_at} className="text-slate-700">{formatAuditTime(r.created_at)}</time>
          <Badge tone={actionTone(r.action)} className="font-mono">{r.action}</Badge>
          {typeof r.details.detail === "string" ? <span className="text-slate-700">{r.details.detail}</span> : null}
        </li>
      ))}
    </ul>
  );
}

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
  const auditHref = `${workspaceHref(ws, "/audit")}?correlation_id=${encodeURIComponent(r.correlation_id)}`;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Invocation"
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <code className="font-mono">{r.capability}</code> {r.action}
            <Badge tone={OUTCOME_TONE[r.outcome]}>{r.outcome}</Badge>
            <span className="text-slate-600">at</span>
            <time dateTime={r.created_at} title={r.created_at}>{formatAuditTime(r.created_at)}</time>
          </span>
        }
        actions={
          <Link href={workspaceHref(ws, "/invocations")} className={linkClass}>
            All invocations
          </Link>
        }
      />

      <Card>
        <CardHeader>
          <CardTitle>Outcome</CardTitle>
          <CardDescription>What the Bridge decided, and why.</CardDescription>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[12rem_1fr]">
            <Field label="Invocation id"><Id value={r.id} /></Field>
            <Field label="Capability">
              <code className="font-mono">{r.capability}</code> {r.action}
            </Field>
            <Field label="Outcome"><Badge tone={OUTCOME_TONE[r.outcome]}>{r.outcome}</Badge></Field>
            <Field label="Reason">
              {r.reason ? (
                <span className="space-y-1">
                  <code className="block font-mono text-xs">{r.reason}</code>
                  {reason ? (
                    <span className="block text-slate-700">
                      {reason.text}{" "}
                      {reason.fix ? <Link href={workspaceHref(ws, reason.fix.path)} className={linkClass}>{reason.fix.label}</Link> : null}
                    </span>
                  ) : null}
                </span>
              ) : (
                <span className="text-slate-600">none (the call {r.outcome === "requested" ? "is in flight" : "completed"})</span>
              )}
            </Field>
            <Field label="Provider">
              {r.provider ?? <span className="text-slate-600">none</span>}
              {r.fallback_used ? <Badge tone="info" className="ml-2">fallback</Badge> : null}
            </Field>
            <Field label="Binding">
              {r.binding_id ? (
                <Link href={workspaceHref(ws, "/bindings")} className={cn(linkClass, "font-mono text-xs")}>{r.binding_id}</Link>
              ) : (
                <span className="text-slate-600">none</span>
              )}
            </Field>
          </dl>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>Checks</CardTitle>
          <CardDescription>The Bridge's decision steps in the order it runs them; the first that fails decides the call.</CardDescription>
        </CardHeader>
        <CardContent>
          <ol aria-label="Checks" className="space-y-3">
            {checksOf(r).map((c) => {
              const s = CHECK_STATE[c.state];
              return (
                <li key={c.name} className="flex items-start gap-3">
                  <span className="mt-0.5">{s.icon}</span>
                  <span className="min-w-0 space-y-0.5">
                    <span className="flex flex-wrap items-center gap-2">
                      <span className="font-medium text-slate-900">{c.name}</span>
                      <Badge tone={s.tone}>{s.label}</Badge>
                    </span>
                    <span className="block text-xs text-slate-600">{c.what}</span>
                  </span>
                </li>
              );
            })}
          </ol>
        </CardContent>
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle>Usage and price</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
              <Field label="Usage">{formatUnits(r.usage.units)} {r.usage.unit}</Field>
              <Field label="Price">
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
              </Field>
            </dl>
          </CardContent>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle>Timings</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
              <Field label="Requested (UTC)"><time dateTime={r.requested_at} className="font-mono text-xs">{r.requested_at}</time></Field>
              <Field label="Finished (UTC)">
                {r.finished_at ? <time dateTime={r.finished_at} className="font-mono text-xs">{r.finished_at}</time> : <span className="text-slate-600">not yet</span>}
              </Field>
              <Field label="Latency">{r.latency_ms === null ? "—" : formatMs(r.latency_ms)}</Field>
              <Field label="Capstan overhead">{r.overhead_ms === null ? "—" : formatMs(r.overhead_ms)}</Field>
            </dl>
          </CardContent>
        </Card>
      </div>

      <Card>
        <CardHeader>
          <CardTitle>Caller</CardTitle>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[12rem_1fr]">
            <Field label="Product">
              <Link href={workspaceHref(ws, `/products/${r.product_id}`)} className={linkClass}>
                {productName ?? r.product_id}
              </Link>
            </Field>
            <Field label="Service identity">
              {r.service_identity_id ? (
                <span className="inline-flex flex-wrap items-center gap-2">
                  {identityName ? <span className="font-medium">{identityName}</span> : null}
                  <Id value={r.service_identity_id} />
                </span>
              ) : (
                <span className="text-slate-600">none</span>
              )}
            </Field>
            <Field label="Deployment">
              {r.deployment_id ? (
                <Link href={workspaceHref(ws, `/deployments/${r.deployment_id}`)} className={cn(linkClass, "font-mono text-xs")}>{r.deployment_id}</Link>
              ) : (
                <span className="text-slate-600">none</span>
              )}
            </Field>
            <Field label="Revision"><Id value={r.revision_id} /></Field>
            {r.execution_id ? <Field label="Execution"><Id value={r.execution_id} /></Field> : null}
            {r.bridge_invocation_id ? <Field label="Session invocation"><Id value={r.bridge_invocation_id} /></Field> : null}
          </dl>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>Evidence</CardTitle>
          <CardDescription>Content is never stored: the request's shape, and the SHA-256 and size of the request and output bodies.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-3">
          <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[12rem_1fr]">
            <Field label="Request SHA-256"><code className="font-mono text-xs break-all">{r.request.sha256}</code></Field>
            <Field label="Request size">{formatBytes(r.request.size_bytes)}</Field>
            <Field label="Output SHA-256">
              {r.output ? <code className="font-mono text-xs break-all">{r.output.sha256}</code> : <span className="text-slate-600">no output</span>}
            </Field>
            {r.output ? <Field label="Output size">{formatBytes(r.output.size_bytes)}</Field> : null}
          </dl>
          <div className="space-y-1">
            <p className="text-xs text-slate-600">Request shape (spec 6.2)</p>
            <pre className="max-h-64 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">{JSON.stringify(r.request.shape, null, 2)}</pre>
          </div>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>Correlation</CardTitle>
          <CardDescription>Everything this call caused carries its correlation id.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          <div className="flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
            <Id value={r.correlation_id} />
            <Link href={workspaceHref(ws, `/correlations/${r.correlation_id}`)} className={linkClass}>
              Events of this correlation
            </Link>
            <Link href={auditHref} className={linkClass}>
              Audit records of this correlation
            </Link>
          </div>
          <CorrelatedAudit ws={ws} correlationId={r.correlation_id} />
        </CardContent>
      </Card>
    </div>
  );
}
