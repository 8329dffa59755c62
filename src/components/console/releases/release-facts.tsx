"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import { Card, CardContent } from "@/components/ui/card";
import { SectionCard } from "../shared/section-card";
import { useTRPC } from "@/lib/trpc/client";
import type { TRelease } from "@/server/domain/releases/releases.contract";
import { LiveUrl } from "../deployments/deployment-header";
import { formatDateTime, titleCase } from "../shared/format";
import { LabelValue, LabelValueList, NoValue } from "../shared/label-value";
import { PersonById } from "../shared/person";
import { ShortId } from "../shared/resource-table";
import { workspaceHref } from "../shell/nav-config";
import { RELEASE_LABEL, ReleaseStatusBadge } from "./release-status";

export const REASON: Record<string, string> = {
  scope_widened: "The version's contract asks for more than the live release's",
  approval_rejected: "An owner or admin rejected it",
  window_ended: "Its window ended",
  version_unqualified: "A later evaluation of its revision failed",
  deployment_failed: "Its deployment did not become active",
  deployment_ended: "Its deployment stopped",
  superseded: "A newer release of the product went live",
  rollback: "Rolled back to: its production deployment is starting",
  rolled_back: "Production was rolled back to the release before it",
};

/** Where a live release answers: its deployment's environment and URL with Visit (staging or production alike). */
function LiveAt({ ws, r }: { ws: string; r: TRelease }) {
  const trpc = useTRPC();
  const live = r.status === "live";
  const deployment = useQuery(
    trpc.deployments.get.queryOptions(r.deployment_id ? { ws, dep: r.deployment_id } : skipToken, {
      // Read while the deployment was still starting (no surface yet): follow it until the live release has its URL.
      refetchInterval: (q) => (live && !q.state.data?.surface_id ? 2000 : false),
    }),
  );
  if (r.status !== "live") return <NoValue>{r.deployment_id ? "Not live" : "Not deployed yet"}</NoValue>;
  const d = deployment.data;
  if (!d) return <NoValue>Loading…</NoValue>;
  return (
    <span className="space-y-1">
      <span className="block">Live on {titleCase(d.environment_type)}</span>
      {d.surface_id ? <LiveUrl ws={ws} surfaceId={d.surface_id} /> : <NoValue>No URL yet</NoValue>}
    </span>
  );
}

/** The release's facts: status, version (v1), where it is live with its URL, revision, channel, window, deployment, decision. */
export function ReleaseFacts({ ws, r }: { ws: string; r: TRelease }) {
  const trpc = useTRPC();
  const version = useQuery(trpc.releases.version.queryOptions({ ws, ver: r.version_id }));
  return (
    <Card>
      <CardContent>
        <LabelValueList>
          <LabelValue label="Status">
            <span className="flex flex-wrap items-center gap-2">
              <ReleaseStatusBadge status={r.status} />
              {r.reason_code ? <span className="text-slate-600">{REASON[r.reason_code] ?? r.reason_code}</span> : null}
            </span>
          </LabelValue>
          <LabelValue label="Version">
            <span className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{version.data?.label ?? "…"}</span>
              <ShortId id={r.version_id} />
            </span>
          </LabelValue>
          <LabelValue label="Live at">
            <LiveAt ws={ws} r={r} />
          </LabelValue>
          <LabelValue label="Revision">
            <ShortId id={r.revision_id} href={workspaceHref(ws, `/revisions/${r.revision_id}`)} />
          </LabelValue>
          <LabelValue label="Channel and audience">
            {r.channel}, {r.audience.kind}
          </LabelValue>
          <LabelValue label="Window">
            {formatDateTime(r.window.starts_at)} – {formatDateTime(r.window.ends_at, "open-ended")}
          </LabelValue>
          <LabelValue label="Frozen">{formatDateTime(r.frozen_at, "Not yet")}</LabelValue>
          <LabelValue label="Deployment">
            {r.deployment_id ? (
              <ShortId id={r.deployment_id} href={workspaceHref(ws, `/deployments/${r.deployment_id}`)} />
            ) : (
              "None yet"
            )}
          </LabelValue>
          {r.adjudication ? (
            <LabelValue label="Decision" span={2}>
              {r.adjudication.decision === "approve" ? "Approved" : "Rejected"} by{" "}
              <PersonById ws={ws} id={r.adjudication.decided_by} /> on {formatDateTime(r.adjudication.decided_at)}
              {r.adjudication.note ? `: ${r.adjudication.note}` : ""}
            </LabelValue>
          ) : null}
        </LabelValueList>
      </CardContent>
    </Card>
  );
}

/** The release's status timeline, oldest first. */
export function ReleaseTimeline({ r }: { r: TRelease }) {
  return (
    <SectionCard title="Status timeline">
      <ol aria-label="Status timeline" className="space-y-2 text-sm">
        {r.history.map((h, i) => (
          <li key={i} className="flex flex-wrap items-center gap-3">
            <span className="w-40 text-slate-600">{formatDateTime(h.at)}</span>
            <span className="font-medium">{RELEASE_LABEL[h.status]}</span>
            {h.reason_code ? <span className="text-slate-600">{REASON[h.reason_code] ?? h.reason_code}</span> : null}
          </li>
        ))}
      </ol>
    </SectionCard>
  );
}
