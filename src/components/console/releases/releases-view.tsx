"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import { useTRPC } from "@/lib/trpc/client";
import { RELEASE_STATES, type TReleaseStatus } from "@/server/domain/releases/releases.states";
import { formatDateTime } from "../shared/format";
import { workspaceHref } from "../shell/nav-config";
import { PageHeader } from "../shared/page-header";
import { idLinkClass } from "../shared/id-link";
import { RELEASE_LABEL, ReleaseStatusBadge } from "./release-status";
import { Field } from "../shared/field";
import type { TColumn } from "../shared/resource-table";
import { TableCard } from "../shared/table-card";
import { ValueSelect } from "../shared/value-select";
import type { AppRouter } from "@/server/trpc/root";

type TRelease = inferRouterOutputs<AppRouter>["releases"]["releases"]["items"][number];

/** Every release of the workspace, newest first, filterable by status. Releases are created from a revision's versions. */
export function ReleasesView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<TReleaseStatus | "">("");
  const list = useInfiniteQuery(
    trpc.releases.releases.infiniteQueryOptions(
      { ws, limit: 50, order: "desc", ...(status ? { status } : {}) },
      {
        getNextPageParam: (page) => page.next_cursor ?? undefined,
        refetchInterval: (q) =>
          q.state.data?.pages.some((p) => p.items.some((r) => r.status === "ready" || r.status === "live"))
            ? 3000
            : false,
      },
    ),
  );
  const columns: TColumn<TRelease>[] = [
    {
      key: "release",
      label: "Release",
      cell: (r) => (
        <Link className={idLinkClass} href={workspaceHref(ws, `/releases/${r.id}`)}>
          {r.id}
        </Link>
      ),
    },
    { key: "status", label: "Status", cell: (r) => <ReleaseStatusBadge status={r.status} /> },
    { key: "version", label: "Version", className: "font-mono text-xs", cell: (r) => r.version_id },
    { key: "audience", label: "Audience", priority: 2, cell: (r) => r.audience.kind },
    {
      key: "window",
      label: "Window",
      priority: 3,
      cell: (r) => `${formatDateTime(r.window.starts_at)} – ${formatDateTime(r.window.ends_at, "open-ended")}`,
    },
    { key: "created", label: "Created", priority: 2, cell: (r) => formatDateTime(r.created_at) },
  ];
  return (
    <>
      <PageHeader
        title="Releases"
        description="Versions offered to an audience inside a window. Create one from a revision's Versions card."
      />
      <TableCard
        title="All releases"
        toolbar={
          <Field id="release-status" label="Status">
            <ValueSelect
              id="release-status"
              value={status}
              options={["", ...RELEASE_STATES] as const}
              label={(s) => (s ? RELEASE_LABEL[s] : "Any")}
              onValue={setStatus}
            />
          </Field>
        }
        query={list}
        what="releases"
        emptyText={`No releases${status ? ` that are ${RELEASE_LABEL[status].toLowerCase()}` : ""}.`}
        caption="Releases of this workspace, newest first"
        columns={columns}
      />
    </>
  );
}
