"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { useTRPC } from "@/lib/trpc/client";
import { actionTone, formatAuditTime } from "./audit-format";
import { AuditRecordDetails } from "./audit-record-details";
import { workspaceHref } from "../shell/nav-config";
import { PageHeader } from "../shared/page-header";
import { ActorLabel, usePeople } from "../shared/person";
import { QueryStates } from "../shared/query-states";

/** "+1.234 s" after the first item of the timeline. */
function offset(fromIso: string, iso: string): string {
  const ms = Date.parse(iso) - Date.parse(fromIso);
  return ms < 1000 ? `+${ms} ms` : `+${(ms / 1000).toFixed(3)} s`;
}

function EventTimeline({ ws, evt }: { ws: string; evt: string }) {
  const trpc = useTRPC();
  const events = useQuery(trpc.audit.correlation.queryOptions({ ws, evt }));
  const items = events.data?.items ?? [];
  const first = items[0]?.time;

  return (
    <Card>
      <CardHeader>
        <CardTitle>Events</CardTitle>
        <CardDescription>Events this correlation emitted, oldest first. Payloads are not shown here.</CardDescription>
      </CardHeader>
      <CardContent>
        <QueryStates
          query={events}
          what="events"
          inset={false}
          empty={items.length === 0}
          emptyText="No events carry this correlation id."
        />
        {items.length ? (
          <ol aria-label="Event timeline" className="relative space-y-5 border-l border-slate-200 pl-5">
            {items.map((e) => (
              <li key={e.id} className="relative">
                <span
                  aria-hidden="true"
                  className="absolute top-1.5 -left-[1.625rem] size-2.5 rounded-full bg-sky-600 ring-4 ring-white"
                />
                <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
                  <time dateTime={e.time} title={e.time} className="text-sm font-medium text-slate-900">
                    {formatAuditTime(e.time)}
                  </time>
                  {first ? <span className="text-xs text-slate-600">{offset(first, e.time)}</span> : null}
                  <Badge tone="info" className="font-mono">
                    {e.type}
                  </Badge>
                  <span className="text-xs text-slate-600">v{e.version}</span>
                </div>
                <dl className="mt-1.5 grid gap-x-4 gap-y-1 text-xs sm:grid-cols-[auto_1fr]">
                  <dt className="text-slate-600">Event id</dt>
                  <dd className="font-mono break-all">{e.id}</dd>
                  <dt className="text-slate-600">Subject</dt>
                  <dd className="font-mono break-all">{e.subject ?? "none"}</dd>
                  <dt className="text-slate-600">Source</dt>
                  <dd className="font-mono break-all">{e.source}</dd>
                  {e.dataschema ? (
                    <>
                      <dt className="text-slate-600">Data schema</dt>
                      <dd>
                        <a
                          href={e.dataschema}
                          className="font-mono break-all text-sky-700 underline-offset-4 hover:underline"
                          target="_blank"
                          rel="noreferrer"
                        >
                          {e.dataschema}
                        </a>
                      </dd>
                    </>
                  ) : null}
                </dl>
              </li>
            ))}
          </ol>
        ) : null}
      </CardContent>
    </Card>
  );
}

function CorrelationAudit({ ws, evt }: { ws: string; evt: string }) {
  const trpc = useTRPC();
  const records = useQuery(trpc.audit.list.queryOptions({ ws, correlation_id: evt, order: "asc", limit: 200 }));
  const [open, setOpen] = useState<string | null>(null);
  const items = records.data?.items ?? [];
  const people = usePeople(
    ws,
    items.map((r) => r.actor.id),
  );

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <div className="space-y-1">
          <CardTitle>Audit records</CardTitle>
          <CardDescription>Records of this correlation that you may see, oldest first.</CardDescription>
        </div>
        <Link
          href={workspaceHref(ws, `/audit?correlation_id=${encodeURIComponent(evt)}`)}
          className={buttonVariants({ variant: "secondary", size: "sm" })}
        >
          Open in the audit log
        </Link>
      </CardHeader>
      <CardContent>
        <QueryStates
          query={records}
          what="audit records"
          inset={false}
          empty={items.length === 0}
          emptyText="No audit records carry this correlation id."
        />
        {items.length ? (
          <ul className="divide-y divide-slate-100">
            {items.map((r) => (
              <li key={r.id} className="py-2">
                <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                  <time dateTime={r.created_at} title={r.created_at} className="text-sm">
                    {formatAuditTime(r.created_at)}
                  </time>
                  <Badge tone={actionTone(r.action)} className="font-mono">
                    {r.action}
                  </Badge>
                  <span className="text-xs text-slate-600">
                    by <ActorLabel kind={r.actor.kind} id={r.actor.id} people={people} />
                  </span>
                  <Button
                    variant="link"
                    size="sm"
                    className="h-auto px-0"
                    aria-expanded={open === r.id}
                    onClick={() => setOpen(open === r.id ? null : r.id)}
                  >
                    {open === r.id ? "Hide details" : "Details"}
                  </Button>
                </div>
                {open === r.id ? (
                  <div className="mt-2 rounded-md bg-slate-50 p-3">
                    <AuditRecordDetails record={r} />
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** Everything one correlation (one request or job) caused: its events and its audit records. */
export function CorrelationView({ ws, evt }: { ws: string; evt: string }) {
  return (
    <>
      <PageHeader
        title="Correlation"
        description={
          <span className="flex flex-wrap items-center gap-2">
            <code className="font-mono break-all">{evt}</code>
            <CopyButton value={evt} size="sm" label="Copy id" />
          </span>
        }
        actions={
          <Link href={workspaceHref(ws, "/audit")} className={buttonVariants({ variant: "secondary", size: "sm" })}>
            Back to the audit log
          </Link>
        }
      />
      <div className="space-y-6">
        <EventTimeline ws={ws} evt={evt} />
        <CorrelationAudit ws={ws} evt={evt} />
      </div>
    </>
  );
}
