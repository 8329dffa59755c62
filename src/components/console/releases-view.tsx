"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Card, CardContent } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { RELEASE_STATES, type TReleaseStatus } from "@/server/domain/releases/releases.states";
import { formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { workspaceHref } from "./nav-config";
import { PageHeader } from "./page-header";
import { idLinkClass } from "./products-view";
import { RELEASE_LABEL, ReleaseStatusBadge } from "./release-status";

/** Every release of the workspace, newest first, filterable by status. Releases are created from a revision's versions. */
export function ReleasesView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<TReleaseStatus | "">("");
  const list = useInfiniteQuery(
    trpc.releases.releases.infiniteQueryOptions(
      { ws, limit: 50, order: "desc", ...(status ? { status } : {}) },
      {
        getNextPageParam: (page) => page.next_cursor ?? undefined,
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((r) => r.status === "ready" || r.status === "live")) ? 3000 : false),
      },
    ),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader title="Releases" description="Versions offered to an audience inside a window. Create one from a revision's Versions card." />
      <div className="mb-4 flex items-end gap-3">
        <div className="space-y-1.5">
          <Label htmlFor="release-status">Status</Label>
          <Select id="release-status" value={status} onChange={(e) => setStatus(e.target.value as TReleaseStatus | "")}>
            <option value="">Any</option>
            {RELEASE_STATES.map((s) => <option key={s} value={s}>{RELEASE_LABEL[s]}</option>)}
          </Select>
        </div>
      </div>
      {list.error ? <Alert problem={problemOf(list.error)} /> : null}
      <Card>
        <CardContent className="p-0">
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead>Release</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>Version</TableHead>
                <TableHead>Audience</TableHead>
                <TableHead>Window</TableHead>
                <TableHead>Created</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((r) => (
                <TableRow key={r.id}>
                  <TableCell><Link className={idLinkClass} href={workspaceHref(ws, `/releases/${r.id}`)}>{r.id}</Link></TableCell>
                  <TableCell><ReleaseStatusBadge status={r.status} /></TableCell>
                  <TableCell><code className="font-mono text-xs">{r.version_id}</code></TableCell>
                  <TableCell>{r.audience.kind}</TableCell>
                  <TableCell>{formatDateTime(r.window.starts_at)} – {formatDateTime(r.window.ends_at, "open-ended")}</TableCell>
                  <TableCell>{formatDateTime(r.created_at)}</TableCell>
                </TableRow>
              ))}
              {!rows.length && !list.isLoading ? (
                <TableRow>
                  <TableCell colSpan={6} className="text-slate-600">No releases{status ? ` that are ${RELEASE_LABEL[status].toLowerCase()}` : ""}.</TableCell>
                </TableRow>
              ) : null}
            </TableBody>
          </Table>
          <LoadMore query={list} />
        </CardContent>
      </Card>
    </>
  );
}
