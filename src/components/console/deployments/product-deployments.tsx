"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { SectionCard } from "../shared/section-card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TDeployment } from "@/server/domain/deployments/deployments.contract";
import { DeployButton } from "./deploy-dialog";
import { environmentLabel, ENVIRONMENTS, inProgress, redeployable, relativeTo, useNow } from "./deployment-status";
import { SurfaceUrlLink, useSurface } from "./deployment-surface";
import { DeploymentsTable } from "./deployments-table";
import { formatDateTime } from "../shared/format";
import { LoadMore } from "../shared/load-more";
import { actionsColumn, ResourceTable, ShortId, type TColumn } from "../shared/resource-table";
import { workspaceHref } from "../shell/nav-config";
import { idLinkClass } from "../shared/id-link";
import { QueryStates } from "../shared/query-states";

function SurfaceCell({ ws, srf }: { ws: string; srf: string | undefined }) {
  const surface = useSurface(ws, srf);
  const now = useNow(1000);
  if (!srf) return <>—</>;
  if (surface.error) return <Alert problem={problemOf(surface.error)} />;
  const s = surface.data;
  if (!s) return <span className="text-slate-600">Loading…</span>;
  return (
    <div className="space-y-0.5">
      {s.url ? <SurfaceUrlLink href={s.url} /> : "—"}
      <p className="text-xs text-slate-600" title={formatDateTime(s.expires_at)}>
        Expires {relativeTo(s.expires_at, now)}
        {s.path_url ? (
          <>
            {" · "}
            <SurfaceUrlLink href={s.path_url} label="path route" />
          </>
        ) : null}
        {" · "}
        <Link href={workspaceHref(ws, `/surfaces/${s.id}`)} className={idLinkClass}>
          sessions
        </Link>
      </p>
    </div>
  );
}

/** Redeploy of a live preview or staging deployment, named after its lane ("Redeploy Preview · slot pr-42"). */
const redeployColumn = (ws: string): TColumn<TDeployment> =>
  actionsColumn((d) =>
    redeployable(d) ? (
      <DeployButton
        ws={ws}
        rev={d.revision_id}
        redeploy={{ environment: d.environment_type, slot: d.slot }}
        context={environmentLabel(d)}
      />
    ) : null,
  );

const envOrder = (d: TDeployment) => ENVIRONMENTS.indexOf(d.environment_type) * 1000 + (d.slot === "default" ? 0 : 1);

/**
 * What is live per environment: the product's active deployments, with their
 * surfaces, and (for developers and up) Redeploy of what runs in each preview
 * or staging lane: the same revision to the same environment and slot.
 */
function EnvironmentsCard({
  ws,
  prod,
  poll,
  canOperate,
}: {
  ws: string;
  prod: string;
  poll: boolean;
  canOperate: boolean;
}) {
  const trpc = useTRPC();
  const active = useQuery(
    trpc.deployments.list.queryOptions(
      { ws, product_id: prod, status: "active", limit: 100, order: "desc" },
      { refetchInterval: poll ? 2000 : false },
    ),
  );
  const rows = [...(active.data?.items ?? [])].sort(
    (a, b) => envOrder(a) - envOrder(b) || a.slot.localeCompare(b.slot),
  );

  return (
    <SectionCard
      title="Environments"
      description="What is live in each environment and slot: one active deployment each, reachable at its surface URL."
      flush
    >
      <QueryStates
        query={active}
        what="environments"
        empty={rows.length === 0}
        emptyText="Nothing is live. Choose Deploy above: it deploys the latest confirmed revision, or one you pick."
      />
      {rows.length > 0 ? (
        <ResourceTable
          caption="Live deployments of this product, by environment"
          rows={rows}
          rowKey={(d) => d.id}
          columns={[
            { key: "env", label: "Environment", rowHeader: true, cell: (d) => environmentLabel(d) },
            {
              key: "id",
              label: "Deployment",
              cell: (d) => <ShortId id={d.id} href={workspaceHref(ws, `/deployments/${d.id}`)} />,
            },
            {
              key: "rev",
              label: "Revision",
              priority: 2,
              cell: (d) => <ShortId id={d.revision_id} href={workspaceHref(ws, `/revisions/${d.revision_id}`)} />,
            },
            { key: "surface", label: "Surface", cell: (d) => <SurfaceCell ws={ws} srf={d.surface_id} /> },
            {
              key: "started",
              label: "Started",
              priority: 3,
              cell: (d) => <span className="whitespace-nowrap">{formatDateTime(d.started_at)}</span>,
            },
            ...(canOperate ? [redeployColumn(ws)] : []),
          ]}
        />
      ) : null}
    </SectionCard>
  );
}

/**
 * Deployments filtered by product or revision, newest first, polled while one
 * of them is planned or applying.
 */
export function DeploymentsCard({
  ws,
  filter,
  title,
  description,
  limit = 10,
}: {
  ws: string;
  filter: { product_id: string } | { revision_id: string };
  title: string;
  description: string;
  limit?: number;
}) {
  const trpc = useTRPC();
  const list = useInfiniteQuery(
    trpc.deployments.list.infiniteQueryOptions(
      { ws, limit, order: "desc", ...filter },
      {
        getNextPageParam: (page) => page.next_cursor ?? undefined,
        refetchInterval: (q) =>
          q.state.data?.pages.some((p) => p.items.some((d) => inProgress(d.status))) ? 2000 : false,
      },
    ),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <CardTitle>{title}</CardTitle>
          <CardDescription>{description}</CardDescription>
        </div>
        <Link href={workspaceHref(ws, "/deployments")} className={buttonVariants({ variant: "secondary", size: "sm" })}>
          All deployments
        </Link>
      </CardHeader>
      <CardContent className="px-0 py-0">
        <QueryStates query={list} what="deployments" empty={rows.length === 0} emptyText="No deployments yet." />
        {rows.length > 0 ? (
          <DeploymentsTable
            ws={ws}
            rows={rows}
            caption={title}
            showProduct={false}
            showRevision={!("revision_id" in filter)}
          />
        ) : null}
        <LoadMore query={list} label="Load more deployments" />
      </CardContent>
    </Card>
  );
}

/** The product page's deployment sections: what is live per environment, then the latest deployments. */
export function ProductDeployments({ ws, prod, canOperate }: { ws: string; prod: string; canOperate: boolean }) {
  const trpc = useTRPC();
  // Shares its cache entry with the "Latest deployments" card below (same input): while one of
  // them moves, the environments follow every 2 s too.
  const latest = useInfiniteQuery(
    trpc.deployments.list.infiniteQueryOptions(
      { ws, limit: 10, order: "desc", product_id: prod },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const moving = latest.data?.pages.some((p) => p.items.some((d) => inProgress(d.status))) ?? false;
  return (
    <>
      <EnvironmentsCard ws={ws} prod={prod} poll={moving} canOperate={canOperate} />
      <DeploymentsCard
        ws={ws}
        filter={{ product_id: prod }}
        title="Latest deployments"
        description="Newest first, in every environment. Open one for its findings, surface and logs."
      />
    </>
  );
}
