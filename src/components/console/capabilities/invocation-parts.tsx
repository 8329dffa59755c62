"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn, focusRing } from "@/components/ui/cn";
import { CopyButton } from "@/components/ui/copy-button";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { actionTone, formatAuditTime } from "../audit/audit-format";
import { formatBytes } from "../shared/format";
import { LabelValue, LabelValueList } from "../shared/label-value";
import { Loading } from "../shared/page-header";
import { workspaceHref } from "../shell/nav-config";

/* The cards of one Bridge call's page (InvocationView). */

export type TInvocation = inferRouterOutputs<AppRouter>["invocations"]["get"];

export const linkClass = cn("text-sky-800 underline underline-offset-4 hover:text-sky-950", focusRing);

/** A card of label-value rows, with anything else (a code block) below them. */
export function FactsCard({
  title,
  description,
  labelWidth = "12rem",
  footer,
  children,
}: {
  title: string;
  description?: string;
  labelWidth?: "10rem" | "12rem";
  footer?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>{title}</CardTitle>
        {description ? <CardDescription>{description}</CardDescription> : null}
      </CardHeader>
      <CardContent className={footer ? "space-y-3" : undefined}>
        <LabelValueList rows labelWidth={labelWidth}>
          {children}
        </LabelValueList>
        {footer}
      </CardContent>
    </Card>
  );
}

export function Id({ value }: { value: string | null }) {
  if (!value) return <span className="text-slate-600">none</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <code className="font-mono text-xs break-all">{value}</code>
      <CopyButton value={value} size="sm" variant="ghost" label="Copy" aria-label={`Copy ${value}`} />
    </span>
  );
}

/** Who called: product, service identity, deployment, revision, and the execution or session invocation. */
export function InvocationCaller({
  ws,
  r,
  productName,
  identityName,
}: {
  ws: string;
  r: TInvocation;
  productName: string | undefined;
  identityName: string | undefined;
}) {
  return (
    <FactsCard title="Caller">
      <LabelValue label="Product">
        <Link href={workspaceHref(ws, `/products/${r.product_id}`)} className={linkClass}>
          {productName ?? r.product_id}
        </Link>
      </LabelValue>
      <LabelValue label="Service identity">
        {r.service_identity_id ? (
          <span className="inline-flex flex-wrap items-center gap-2">
            {identityName ? <span className="font-medium">{identityName}</span> : null}
            <Id value={r.service_identity_id} />
          </span>
        ) : (
          <span className="text-slate-600">none</span>
        )}
      </LabelValue>
      <LabelValue label="Deployment">
        {r.deployment_id ? (
          <Link
            href={workspaceHref(ws, `/deployments/${r.deployment_id}`)}
            className={cn(linkClass, "font-mono text-xs")}
          >
            {r.deployment_id}
          </Link>
        ) : (
          <span className="text-slate-600">none</span>
        )}
      </LabelValue>
      <LabelValue label="Revision">
        <Id value={r.revision_id} />
      </LabelValue>
      {r.execution_id ? (
        <LabelValue label="Execution">
          <Id value={r.execution_id} />
        </LabelValue>
      ) : null}
      {r.bridge_invocation_id ? (
        <LabelValue label="Session invocation">
          <Id value={r.bridge_invocation_id} />
        </LabelValue>
      ) : null}
    </FactsCard>
  );
}

/** Hashes and sizes of the request and output (content is never stored), and the request's shape. */
export function InvocationEvidence({ r }: { r: TInvocation }) {
  return (
    <FactsCard
      title="Evidence"
      description="Content is never stored: the request's shape, and the SHA-256 and size of the request and output bodies."
      footer={
        <div className="space-y-1">
          <p className="text-xs text-slate-600">Request shape (spec 6.2)</p>
          <pre className="max-h-64 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">
            {JSON.stringify(r.request.shape, null, 2)}
          </pre>
        </div>
      }
    >
      <LabelValue label="Request SHA-256">
        <code className="font-mono text-xs break-all">{r.request.sha256}</code>
      </LabelValue>
      <LabelValue label="Request size">{formatBytes(r.request.size_bytes)}</LabelValue>
      <LabelValue label="Output SHA-256">
        {r.output ? (
          <code className="font-mono text-xs break-all">{r.output.sha256}</code>
        ) : (
          <span className="text-slate-600">no output</span>
        )}
      </LabelValue>
      {r.output ? <LabelValue label="Output size">{formatBytes(r.output.size_bytes)}</LabelValue> : null}
    </FactsCard>
  );
}

/** The audit rows this call's correlation id wrote (denials, blocked outputs, fallbacks), oldest first. */
function CorrelatedAudit({ ws, correlationId }: { ws: string; correlationId: string }) {
  const trpc = useTRPC();
  const records = useQuery(
    trpc.audit.list.queryOptions({ ws, correlation_id: correlationId, order: "asc", limit: 50 }),
  );
  if (records.isPending) return <Loading what="audit records" />;
  if (records.error) return <Alert problem={problemOf(records.error)} />;
  const items = records.data.items;
  if (!items.length)
    return (
      <p className="text-sm text-slate-600">
        No audit records carry this correlation id (a completed call without fallback writes none).
      </p>
    );
  return (
    <ul aria-label="Audit records of this correlation" className="space-y-1.5 text-sm">
      {items.map((r) => (
        <li key={r.id} className="flex flex-wrap items-center gap-2">
          <time dateTime={r.created_at} className="text-slate-700">
            {formatAuditTime(r.created_at)}
          </time>
          <Badge tone={actionTone(r.action)} className="font-mono">
            {r.action}
          </Badge>
          {typeof r.details.detail === "string" ? <span className="text-slate-700">{r.details.detail}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** The call's correlation id, links to its events and audit records, and those records. */
export function InvocationCorrelation({ ws, r }: { ws: string; r: TInvocation }) {
  const auditHref = `${workspaceHref(ws, "/audit")}?correlation_id=${encodeURIComponent(r.correlation_id)}`;
  return (
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
  );
}
