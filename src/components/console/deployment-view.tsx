"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Square } from "lucide-react";
import Link from "next/link";
import { useCallback, useState, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button, buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TDeployment } from "@/server/domain/deployments/deployments.contract";
import { ConfirmDialog } from "./confirm-dialog";
import { DeploymentFindings, reasonText } from "./deployment-findings";
import { DeploymentLogsCard } from "./deployment-logs";
import { DeploymentStatusBadge, environmentLabel, inProgress, isolationSummary, stoppable } from "./deployment-status";
import { SurfaceCard } from "./deployment-surface";
import { formatDateTime, formatUnits } from "./format";
import { hasRole, workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { idLinkClass } from "./products-view";

function Item({ label, wide = false, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? "min-w-0 space-y-1 sm:col-span-2 lg:col-span-3" : "min-w-0 space-y-1"}>
      <dt className="text-slate-600">{label}</dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

function healthText(d: TDeployment): string {
  if (!d.health) return inProgress(d.status) ? "Not checked yet" : "Never checked";
  const tries = `${d.health.attempts} attempt${d.health.attempts === 1 ? "" : "s"}`;
  // A surface is only created once the app answered its health check.
  if (d.surface_id || d.status === "active") {
    return `Healthy after ${tries}, last answer in ${formatUnits(d.health.latency_ms)} ms (${formatDateTime(d.health.checked_at)})`;
  }
  return `No healthy answer after ${tries} (last tried ${formatDateTime(d.health.checked_at)})`;
}

function DeploymentDetails({ ws, d }: { ws: string; d: TDeployment }) {
  const why = reasonText(d);
  return (
    <Card>
      <CardContent>
        <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
          <Item label="Deployment id" wide>
            <span className="flex flex-wrap items-center gap-2">
              <code className="font-mono break-all">{d.id}</code>
              <CopyButton value={d.id} size="sm" label="Copy id" />
            </span>
          </Item>
          <Item label="Status">
            <DeploymentStatusBadge status={d.status} />
          </Item>
          <Item label="Environment">{environmentLabel(d)}</Item>
          <Item label="Created">{formatDateTime(d.created_at)}</Item>
          <Item label="Revision">
            <Link href={workspaceHref(ws, `/revisions/${d.revision_id}`)} className={idLinkClass}>
              {d.revision_id}
            </Link>
          </Item>
          <Item label="Product">
            <Link href={workspaceHref(ws, `/products/${d.product_id}`)} className={idLinkClass}>
              {d.product_id}
            </Link>
          </Item>
          <Item label="Started">{formatDateTime(d.started_at, "Not yet")}</Item>
          {d.reason_code ? (
            <Item label="Reason" wide>
              <code className="font-mono text-xs">{d.reason_code}</code>
              {why ? <span className="text-slate-600"> · {why}</span> : null}
            </Item>
          ) : null}
          {d.stopped_at ? <Item label="Ended">{formatDateTime(d.stopped_at)}</Item> : null}
          {d.superseded_deployment_id ? (
            <Item label="Replaced">
              <Link href={workspaceHref(ws, `/deployments/${d.superseded_deployment_id}`)} className={idLinkClass}>
                {d.superseded_deployment_id}
              </Link>
            </Item>
          ) : null}
          {d.pipeline_run_id ? (
            <Item label="Pipeline run">
              <code className="font-mono text-xs break-all">{d.pipeline_run_id}</code>
            </Item>
          ) : null}
          <Item label="Isolation" wide>
            {isolationSummary(d.isolation)}
          </Item>
          <Item label="Network">{d.egress === "deny" ? "No outbound network (egress denied)" : d.egress}</Item>
          <Item label="Health" wide>
            {healthText(d)}
          </Item>
        </dl>
      </CardContent>
    </Card>
  );
}

/**
 * One deployment: status (polled every 2 s while planned or applying),
 * isolation and health, findings with what to do, its surface, its logs and
 * Stop while something may run.
 */
export function DeploymentView({ ws, dep }: { ws: string; dep: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const deployment = useQuery(
    trpc.deployments.get.queryOptions({ ws, dep }, { refetchInterval: (q) => (q.state.data && inProgress(q.state.data.status) ? 2000 : false) }),
  );
  const [confirmStop, setConfirmStop] = useState(false);
  const stop = useMutation(
    trpc.deployments.stop.mutationOptions({
      onSuccess: async (data) => {
        queryClient.setQueryData(trpc.deployments.get.queryKey({ ws, dep }), data);
        setConfirmStop(false);
        await queryClient.invalidateQueries(trpc.deployments.pathFilter());
      },
    }),
  );
  const { refetch } = deployment;
  const onEnded = useCallback(() => void refetch(), [refetch]);
  const role = workspace.data?.role;
  const canOperate = hasRole(role, "developer");

  if (deployment.error) {
    return (
      <>
        <PageHeader title="Deployment" />
        <Alert problem={problemOf(deployment.error)} />
      </>
    );
  }
  if (!deployment.data) return <Loading what="deployment" />;
  const d = deployment.data;

  return (
    <>
      <PageHeader
        title="Deployment"
        crumbs={[{ label: `Deployment ${d.id}` }]}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <DeploymentStatusBadge status={d.status} />
            <span>{environmentLabel(d)}</span>
            <code className="font-mono text-xs">{d.id}</code>
          </span>
        }
        actions={
          <>
            <Link href={workspaceHref(ws, "/deployments")} className={buttonVariants({ variant: "secondary", size: "sm" })}>
              All deployments
            </Link>
            <Link href={workspaceHref(ws, `/revisions/${d.revision_id}`)} className={buttonVariants({ variant: "secondary", size: "sm" })}>
              Open revision
            </Link>
            {canOperate && stoppable(d.status) ? (
              <Button
                variant="danger"
                size="sm"
                onClick={() => {
                  stop.reset();
                  setConfirmStop(true);
                }}
              >
                <Square aria-hidden="true" />
                Stop
              </Button>
            ) : null}
          </>
        }
      />
      <div className="space-y-6">
        {inProgress(d.status) ? (
          <Alert>{d.status === "planned" ? "Waiting for the runner to pick this deployment up…" : "Installing, building and starting the app, then checking its health…"}</Alert>
        ) : null}
        <DeploymentDetails ws={ws} d={d} />
        <Card>
          <CardHeader>
            <CardTitle>Findings</CardTitle>
            <CardDescription>What the platform noticed while authorizing, building and running this deployment, and what to do about it.</CardDescription>
          </CardHeader>
          <CardContent>
            <DeploymentFindings ws={ws} deployment={d} />
          </CardContent>
        </Card>
        {d.surface_id ? <SurfaceCard ws={ws} srf={d.surface_id} poll={inProgress(d.status)} /> : null}
        {canOperate ? (
          <DeploymentLogsCard ws={ws} dep={d.id} status={d.status} onEnded={onEnded} />
        ) : role ? (
          <Alert>Only developers, admins and owners can read a deployment&apos;s logs. You are {role}.</Alert>
        ) : null}
      </div>
      <ConfirmDialog
        open={confirmStop}
        onClose={() => setConfirmStop(false)}
        title="Stop this deployment?"
        description="The app's process ends and its surface stops answering. This cannot be undone: deploy the revision again to get a new surface."
        confirmLabel="Stop deployment"
        pendingLabel="Stopping…"
        pending={stop.isPending}
        error={stop.error}
        onConfirm={() => stop.mutate({ ws, dep: d.id })}
      />
    </>
  );
}
