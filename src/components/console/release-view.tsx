"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Check, Rocket, X } from "lucide-react";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { formatDateTime } from "./format";
import { hasRole, workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { PersonById } from "./person";
import { idLinkClass } from "./products-view";
import { RELEASE_LABEL, ReleaseStatusBadge } from "./release-status";

const REASON: Record<string, string> = {
  scope_widened: "The version's contract asks for more than the live release's",
  approval_rejected: "An owner or admin rejected it",
  window_ended: "Its window ended",
  version_unqualified: "A later evaluation of its revision failed",
  deployment_failed: "Its deployment did not become active",
  deployment_ended: "Its deployment stopped",
  superseded: "A newer release of the product went live",
};

/** A release: its fields, its status timeline, approve/reject (owner, admin) and deploy to staging. */
export function ReleaseView({ ws, rel }: { ws: string; rel: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const release = useQuery(trpc.releases.release.queryOptions({ ws, rel }, {
    refetchInterval: (q) => (q.state.data && !["retired", "blocked"].includes(q.state.data.status) ? 1500 : false),
  }));
  const refresh = () => queryClient.invalidateQueries(trpc.releases.release.pathFilter());
  const approve = useMutation(trpc.releases.approveRelease.mutationOptions({ onSuccess: refresh }));
  const reject = useMutation(trpc.releases.rejectRelease.mutationOptions({ onSuccess: refresh }));
  const deploy = useMutation(trpc.releases.deployRelease.mutationOptions({ onSuccess: refresh }));
  const role = workspace.data?.role;
  const failure = problemOf(approve.error ?? reject.error ?? deploy.error);

  if (release.error) {
    return (
      <>
        <PageHeader title="Release" />
        <Alert problem={problemOf(release.error)} />
      </>
    );
  }
  if (!release.data) return <Loading what="release" />;
  const r = release.data;

  return (
    <>
      <PageHeader
        title="Release"
        crumbs={[{ label: `Release ${r.id}` }]}
        description={<code className="font-mono text-xs">{r.id}</code>}
        actions={
          <>
            {r.status === "pending_approval" && hasRole(role, "admin") ? (
              <>
                <Button size="sm" variant="secondary" onClick={() => reject.mutate({ ws, rel: r.id })} disabled={reject.isPending}>
                  <X aria-hidden="true" />
                  Reject
                </Button>
                <Button size="sm" onClick={() => approve.mutate({ ws, rel: r.id })} disabled={approve.isPending}>
                  <Check aria-hidden="true" />
                  Approve
                </Button>
              </>
            ) : null}
            {r.status === "draft" && hasRole(role, "developer") ? (
              <Button size="sm" onClick={() => deploy.mutate({ ws, rel: r.id, environment_type: "staging" })} disabled={deploy.isPending}>
                <Rocket aria-hidden="true" />
                Deploy to staging
              </Button>
            ) : null}
          </>
        }
      />
      <div className="space-y-6">
        {failure ? <Alert problem={failure} /> : null}
        {r.status === "pending_approval" ? (
          <Alert tone="warning" title="Waiting for an owner or admin">
            {r.widening?.why ? `The version's contract widens the live release's: ${r.widening.why}.` : "Its contract needs approval."}
          </Alert>
        ) : null}
        <Card>
          <CardContent>
            <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
              <div className="space-y-1">
                <dt className="text-slate-600">Status</dt>
                <dd className="flex flex-wrap items-center gap-2">
                  <ReleaseStatusBadge status={r.status} />
                  {r.reason_code ? <span className="text-slate-600">{REASON[r.reason_code] ?? r.reason_code}</span> : null}
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Version</dt>
                <dd><code className="font-mono text-xs">{r.version_id}</code></dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Revision</dt>
                <dd><Link className={idLinkClass} href={workspaceHref(ws, `/revisions/${r.revision_id}`)}>{r.revision_id}</Link></dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Channel and audience</dt>
                <dd>{r.channel}, {r.audience.kind}</dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Window</dt>
                <dd>{formatDateTime(r.window.starts_at)} – {formatDateTime(r.window.ends_at, "open-ended")}</dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Frozen</dt>
                <dd>{formatDateTime(r.frozen_at, "Not yet")}</dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Deployment</dt>
                <dd>
                  {r.deployment_id ? <Link className={idLinkClass} href={workspaceHref(ws, `/deployments/${r.deployment_id}`)}>{r.deployment_id}</Link> : "None yet"}
                </dd>
              </div>
              {r.adjudication ? (
                <div className="space-y-1 sm:col-span-2">
                  <dt className="text-slate-600">Decision</dt>
                  <dd>
                    {r.adjudication.decision === "approve" ? "Approved" : "Rejected"} by <PersonById ws={ws} id={r.adjudication.decided_by} /> on{" "}
                    {formatDateTime(r.adjudication.decided_at)}{r.adjudication.note ? `: ${r.adjudication.note}` : ""}
                  </dd>
                </div>
              ) : null}
            </dl>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Status timeline</CardTitle>
          </CardHeader>
          <CardContent>
            <ol aria-label="Status timeline" className="space-y-2 text-sm">
              {r.history.map((h, i) => (
                <li key={i} className="flex flex-wrap items-center gap-3">
                  <span className="w-40 text-slate-600">{formatDateTime(h.at)}</span>
                  <span className="font-medium">{RELEASE_LABEL[h.status]}</span>
                  {h.reason_code ? <span className="text-slate-600">{REASON[h.reason_code] ?? h.reason_code}</span> : null}
                </li>
              ))}
            </ol>
          </CardContent>
        </Card>
      </div>
    </>
  );
}
