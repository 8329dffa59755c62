"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc/client";
import { formatDateTime } from "../shared/format";
import { idLinkClass } from "../shared/id-link";
import { TableCard } from "../shared/table-card";
import { workspaceHref } from "../shell/nav-config";
import { ContractStatusBadge, DescriptorStatusBadge } from "./revision-status";
import { stillFreezing } from "./source-freeze";

/** A product's revisions, newest first, kept current while one is still being frozen. */
export function ProductRevisions({ ws, prod }: { ws: string; prod: string }) {
  const trpc = useTRPC();
  const revisions = useInfiniteQuery(
    trpc.source.listRevisions.infiniteQueryOptions(
      { ws, product_id: prod, limit: 50, order: "desc" },
      {
        getNextPageParam: (page) => page.next_cursor ?? undefined,
        // A revision whose source is still being frozen changes on its own: keep the table current.
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some(stillFreezing)) ? 2000 : false),
      },
    ),
  );
  const rows = revisions.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <TableCard
      title="Revisions"
      description="Newest first. Open a revision to review and confirm its runtime descriptor."
      query={revisions}
      what="revisions"
      emptyText="No revisions yet."
      loadMoreLabel="Load more revisions"
      caption="Revisions of this product"
      rows={rows}
      columns={[
        {
          key: "id",
          label: "Revision",
          cell: (r) => (
            <Link href={workspaceHref(ws, `/revisions/${r.id}`)} className={idLinkClass}>
              {r.id}
            </Link>
          ),
        },
        { key: "descriptor", label: "Descriptor", cell: (r) => <DescriptorStatusBadge status={r.descriptor_status} /> },
        { key: "contract", label: "Contract", cell: (r) => <ContractStatusBadge revision={r} /> },
        {
          key: "commit",
          label: "Commit",
          className: "font-mono text-xs",
          cell: (r) => <span title={r.commit_sha ?? undefined}>{r.commit_sha ? r.commit_sha.slice(0, 12) : "—"}</span>,
        },
        { key: "created", label: "Created", className: "whitespace-nowrap", cell: (r) => formatDateTime(r.created_at) },
      ]}
    />
  );
}
