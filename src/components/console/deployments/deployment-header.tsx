"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import { ExternalLink } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { useTRPC } from "@/lib/trpc/client";
import type { TDeployment } from "@/server/domain/deployments/deployments.contract";
import { DeploymentStatusBadge, environmentLabel, inProgress } from "./deployment-status";
import { useSurface } from "./deployment-surface";
import { LabelValue, LabelValueList } from "../shared/label-value";
import { ShortId } from "../shared/resource-table";
import { workspaceHref } from "../shell/nav-config";

type TIsolation = NonNullable<TDeployment["isolation"]>;
const MECHANISM: Record<NonNullable<TIsolation["sandbox"]>, string> = {
  gvisor: "gVisor",
  bubblewrap: "bubblewrap",
  none: "none",
};

/** The sandbox in a few words: "gVisor (own kernel)", "bubblewrap", "Not sandboxed" or "Not reported yet". */
export function sandboxInWords(isolation: TDeployment["isolation"]): string {
  const mechanism = isolation?.mechanism ?? isolation?.sandbox;
  if (!isolation || !mechanism) return "Not reported yet";
  if (mechanism === "none") return "Not sandboxed";
  return mechanism === "gvisor" ? "gVisor (its own kernel)" : "bubblewrap (namespaces on the host kernel)";
}

/**
 * What the app's network really was: "No outbound network" only when a
 * sandbox gave it no network interface; otherwise the policy says deny but
 * nothing enforced it, and the page says so.
 */
export function networkInWords(d: Pick<TDeployment, "egress" | "isolation">): string {
  const i = d.isolation;
  const mechanism = i?.mechanism ?? i?.sandbox;
  if (!i || !mechanism) return "Egress denied by policy; not reported yet whether it was enforced";
  if (i.network && mechanism !== "none")
    return `No outbound network: the ${MECHANISM[mechanism]} sandbox gave the app no network interface`;
  return "Outbound network not blocked: egress is denied by policy, but the app runs without a network sandbox";
}

const Field = ({ label, children }: { label: string; children: ReactNode }) => (
  <LabelValue label={label} small>
    {children}
  </LabelValue>
);

/** A surface's URL with Visit while it is served, or its status. */
export function LiveUrl({ ws, surfaceId, poll = false }: { ws: string; surfaceId: string; poll?: boolean }) {
  const surface = useSurface(ws, surfaceId, poll);
  const s = surface.data;
  if (!s) return <span className="text-slate-600">Loading…</span>;
  if (!s.url) return <>None</>;
  return (
    <span className="flex flex-wrap items-center gap-2">
      <code className="font-mono text-xs break-all">{s.url}</code>
      {s.status === "active" ? (
        <a href={s.url} target="_blank" rel="noopener noreferrer" className={buttonVariants({ size: "sm" })}>
          Visit
          <ExternalLink aria-hidden="true" />
          <span className="sr-only"> {s.url} (opens in a new tab)</span>
        </a>
      ) : (
        <Badge tone="neutral">{s.status}</Badge>
      )}
    </span>
  );
}

/** The live URL with Visit, or why there is none. */
function UrlField({ ws, d }: { ws: string; d: TDeployment }) {
  if (!d.surface_id) return <>{inProgress(d.status) ? "Once the app is healthy" : "None"}</>;
  return <LiveUrl ws={ws} surfaceId={d.surface_id} poll={inProgress(d.status)} />;
}

/** The release and its version ("v1") when deployed from a release, else the revision. */
function SourceField({ ws, d }: { ws: string; d: TDeployment }) {
  const trpc = useTRPC();
  const release = d.source?.kind === "release" ? d.source : null;
  const version = useQuery(trpc.releases.version.queryOptions(release ? { ws, ver: release.version_id } : skipToken));
  if (!release) return <ShortId id={d.revision_id} href={workspaceHref(ws, `/revisions/${d.revision_id}`)} />;
  return (
    <span className="flex flex-wrap items-center gap-2">
      <Link
        href={workspaceHref(ws, `/releases/${release.release_id}`)}
        className="font-medium text-sky-700 underline-offset-4 hover:underline"
      >
        Release {version.data ? version.data.label : "…"}
      </Link>
      <ShortId id={d.revision_id} href={workspaceHref(ws, `/revisions/${d.revision_id}`)} />
    </span>
  );
}

/** The product's custom domains for this deployment's environment, ✓ verified or ✗ not yet. */
function DomainsField({ ws, d }: { ws: string; d: TDeployment }) {
  const trpc = useTRPC();
  const custom = d.environment_type !== "preview";
  const list = useQuery(
    trpc.domains.list.queryOptions(custom ? { ws, product_id: d.product_id, limit: 100 } : skipToken),
  );
  if (!custom) return <span className="text-slate-600">None: custom domains serve staging and production</span>;
  const names = (list.data?.items ?? []).filter((x) => x.environment_type === d.environment_type);
  if (!list.data) return <span className="text-slate-600">Loading…</span>;
  if (names.length === 0)
    return (
      <Link href={workspaceHref(ws, "/domains")} className="text-sky-700 underline-offset-4 hover:underline">
        None yet: add one
      </Link>
    );
  return (
    <ul className="space-y-0.5">
      {names.map((x) => (
        <li key={x.id}>
          <span aria-hidden="true">{x.status === "verified" ? "✓ " : "✗ "}</span>
          {x.hostname}
          <span className="sr-only">{x.status === "verified" ? " (verified)" : ` (${x.status})`}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The top of a deployment's page, as the best dashboards have it: status,
 * URL with Visit, environment, revision or release, domains and the sandbox.
 */
export function DeploymentHeader({ ws, d }: { ws: string; d: TDeployment }) {
  return (
    <Card>
      <CardContent>
        <section aria-label="Deployment summary">
          <LabelValueList>
            <Field label="Status">
              <DeploymentStatusBadge status={d.status} />
            </Field>
            <Field label="URL">
              <UrlField ws={ws} d={d} />
            </Field>
            <Field label="Environment">{environmentLabel(d)}</Field>
            <Field label={d.source?.kind === "release" ? "Release" : "Revision"}>
              <SourceField ws={ws} d={d} />
            </Field>
            <Field label="Domains">
              <DomainsField ws={ws} d={d} />
            </Field>
            <Field label="Sandbox">
              <span>{sandboxInWords(d.isolation)}</span>
              <span className="block text-xs text-slate-600">{networkInWords(d)}</span>
            </Field>
            <Field label="Runner host">
              {d.runner_host ? (
                <code className="font-mono text-xs break-all">{d.runner_host}</code>
              ) : (
                <span className="text-slate-600">Not placed yet</span>
              )}
            </Field>
          </LabelValueList>
        </section>
      </CardContent>
    </Card>
  );
}
