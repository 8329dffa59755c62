"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Square } from "lucide-react";
import Link from "next/link";
import { useCallback, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button, buttonVariants } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { cn, focusRing } from "@/components/ui/cn";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import { ConfirmDialog } from "../shared/confirm-dialog";
import { DeploymentDetails } from "./deployment-details";
import { DeploymentFindings } from "./deployment-findings";
import { DeploymentHeader } from "./deployment-header";
import { DeploymentLogsCard } from "./deployment-logs";
import { DeploymentStatusBadge, environmentLabel, inProgress, redeployable, stoppable } from "./deployment-status";
import { SurfaceCard } from "./deployment-surface";
import { hasRole, workspaceHref } from "../shell/nav-config";
import { PageFallback } from "../shared/page-query";
import { PageHeader } from "../shared/page-header";
import { DeployButton } from "./deploy-dialog";

/**
 * One deployment: a header with status, URL and Visit, environment, revision
 * or release, domains and sandbox (polled every 2 s while planned or
 * applying); an Overview tab (details, findings, surface) and a Logs tab;
 * Stop while something may run.
 */
export function DeploymentView({ ws, dep }: { ws: string; dep: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const deployment = useQuery(
    trpc.deployments.get.queryOptions(
      { ws, dep },
      { refetchInterval: (q) => (q.state.data && inProgress(q.state.data.status) ? 2000 : false) },
    ),
  );
  const [confirmStop, setConfirmStop] = useState(false);
  const [tab, setTab] = useState<"overview" | "logs">("overview");
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

  if (!deployment.data) return <PageFallback query={deployment} title="Deployment" what="deployment" />;
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
            <Link
              href={workspaceHref(ws, "/deployments")}
              className={buttonVariants({ variant: "secondary", size: "sm" })}
            >
              All deployments
            </Link>
            <Link
              href={workspaceHref(ws, `/revisions/${d.revision_id}`)}
              className={buttonVariants({ variant: "secondary", size: "sm" })}
            >
              Open revision
            </Link>
            {canOperate && redeployable(d) ? (
              <DeployButton ws={ws} rev={d.revision_id} redeploy={{ environment: d.environment_type, slot: d.slot }} />
            ) : null}
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
        <DeploymentHeader ws={ws} d={d} />
        {inProgress(d.status) ? (
          <Alert>
            {d.status === "planned"
              ? "Waiting for the runner to pick this deployment up…"
              : "Installing, building and starting the app, then checking its health…"}
          </Alert>
        ) : null}
        <div role="tablist" aria-label="Deployment" className="flex gap-1 border-b border-slate-200">
          {(["overview", "logs"] as const).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              id={`deployment-tab-${t}`}
              aria-selected={tab === t}
              aria-controls={`deployment-panel-${t}`}
              tabIndex={tab === t ? 0 : -1}
              onClick={() => setTab(t)}
              onKeyDown={(e) => {
                if (e.key === "ArrowRight" || e.key === "ArrowLeft") setTab(t === "overview" ? "logs" : "overview");
              }}
              className={cn(
                "-mb-px border-b-2 px-4 py-2 text-sm font-medium",
                focusRing,
                tab === t ? "border-sky-700 text-slate-900" : "border-transparent text-slate-600 hover:text-slate-900",
              )}
            >
              {t === "overview" ? "Overview" : "Logs"}
            </button>
          ))}
        </div>
        <div
          role="tabpanel"
          id="deployment-panel-overview"
          aria-labelledby="deployment-tab-overview"
          hidden={tab !== "overview"}
          className="space-y-6"
        >
          <DeploymentDetails ws={ws} d={d} />
          <SectionCard
            title="Findings"
            description="What the platform noticed while authorizing, building and running this deployment, and what to do about it."
          >
            <DeploymentFindings ws={ws} deployment={d} />
          </SectionCard>
          {d.surface_id ? <SurfaceCard ws={ws} srf={d.surface_id} poll={inProgress(d.status)} /> : null}
        </div>
        {/* Kept mounted while hidden: it notices an app that stopped running and refreshes the page. */}
        <div role="tabpanel" id="deployment-panel-logs" aria-labelledby="deployment-tab-logs" hidden={tab !== "logs"}>
          {canOperate ? (
            <DeploymentLogsCard ws={ws} dep={d.id} status={d.status} onEnded={onEnded} />
          ) : role ? (
            <Alert>Only developers, admins and owners can read a deployment&apos;s logs. You are {role}.</Alert>
          ) : null}
        </div>
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
