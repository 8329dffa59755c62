"use client";

import { Fragment, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent } from "@/components/ui/card";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { ExpandToggle } from "../shared/expand-toggle";
import { LoadMore } from "../shared/load-more";
import { ActorLabel, type TPerson } from "../shared/person";
import { QueryStates } from "../shared/query-states";
import { actionTone, CorrelationLink, formatAuditTime } from "./audit-format";
import { AuditRecordDetails, type TAuditRow } from "./audit-record-details";

type TRecordsQuery = {
  isPending: boolean;
  error: unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
};

function AuditRecordRow({
  ws,
  record: r,
  people,
  expanded,
  onToggle,
}: {
  ws: string;
  record: TAuditRow;
  people: Map<string, TPerson>;
  expanded: boolean;
  onToggle: () => void;
}) {
  const detailsId = `audit-details-${r.id}`;
  return (
    <Fragment>
      <TableRow className={expanded ? "bg-slate-50" : undefined}>
        <TableCell className="py-2">
          <ExpandToggle
            expanded={expanded}
            controls={detailsId}
            what={`${r.action} at ${r.created_at}`}
            onToggle={onToggle}
          />
        </TableCell>
        <TableCell className="whitespace-nowrap">
          <time dateTime={r.created_at} title={r.created_at}>
            {formatAuditTime(r.created_at)}
          </time>
        </TableCell>
        <TableCell>
          <Badge tone={actionTone(r.action)} className="font-mono">
            {r.action}
          </Badge>
        </TableCell>
        <TableCell className="text-xs">
          <ActorLabel kind={r.actor.kind} id={r.actor.id} people={people} />
        </TableCell>
        <TableCell className="text-xs">
          {r.target ? (
            <ActorLabel kind={r.target.kind} id={r.target.id} people={people} />
          ) : (
            <span className="text-slate-600">none</span>
          )}
        </TableCell>
        <TableCell>
          <CorrelationLink ws={ws} id={r.correlation_id} />
        </TableCell>
      </TableRow>
      {expanded ? (
        <TableRow id={detailsId} className="bg-slate-50">
          <TableCell colSpan={6} className="pt-0">
            <AuditRecordDetails record={r} />
          </TableCell>
        </TableRow>
      ) : null}
    </Fragment>
  );
}

/** The audit records, newest first, each row opening onto its ids, hashes and details; "Load more" below. */
export function AuditRecordsTable({
  ws,
  records,
  rows,
  people,
}: {
  ws: string;
  records: TRecordsQuery;
  rows: TAuditRow[];
  people: Map<string, TPerson>;
}) {
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  function toggle(id: string) {
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }
  return (
    <Card>
      <CardContent className="space-y-3 px-0 py-0">
        <QueryStates
          query={records}
          what="audit records"
          empty={rows.length === 0}
          emptyText="No records match."
          errorTitle="The audit log could not be loaded"
        />
        {rows.length ? (
          <Table>
            <TableCaption>Audit records, newest first</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead className="w-10">
                  <span className="sr-only">Details</span>
                </TableHead>
                <TableHead>Time</TableHead>
                <TableHead>Action</TableHead>
                <TableHead>Actor</TableHead>
                <TableHead>Target</TableHead>
                <TableHead>Correlation id</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((r) => (
                <AuditRecordRow
                  key={r.id}
                  ws={ws}
                  record={r}
                  people={people}
                  expanded={open.has(r.id)}
                  onToggle={() => toggle(r.id)}
                />
              ))}
            </TableBody>
          </Table>
        ) : null}
        <LoadMore query={records} className="px-5 pb-4" />
      </CardContent>
    </Card>
  );
}
