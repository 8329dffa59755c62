"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import { ExternalLink } from "lucide-react";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn, focusRing } from "@/components/ui/cn";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TSurface } from "@/server/domain/deployments/deployments.contract";
import { relativeTo, SurfaceStatusBadge, useNow } from "./deployment-status";
import { formatDateTime, formatUnits } from "../shared/format";
import { workspaceHref } from "../shell/nav-config";
import { Loading } from "../shared/page-header";

const SETTLING: TSurface["status"][] = ["awaiting_expiration_registration", "validating"];
const GONE: TSurface["status"][] = ["expired", "configuration_failed", "expiration_registration_failed"];

export const externalLinkClass = cn(
  "inline-flex items-center gap-1 font-mono text-xs break-all text-sky-700 underline-offset-4 hover:underline",
  focusRing,
);

/** A surface URL as a link that opens in a new tab. */
export function SurfaceUrlLink({ href, label }: { href: string; label?: string }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={externalLinkClass}>
      {label ?? href}
      <ExternalLink aria-hidden="true" className="size-3 shrink-0" />
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}

/** One surface, fetched; polled while it settles or while `poll` says its deployment is still moving. */
export function useSurface(ws: string, srf: string | undefined, poll = false) {
  const trpc = useTRPC();
  return useQuery(
    trpc.deployments.surface.queryOptions(srf ? { ws, srf } : skipToken, {
      refetchInterval: (q) => (poll || (q.state.data && SETTLING.includes(q.state.data.status)) ? 2000 : false),
    }),
  );
}

/** "expires in 6 days 23 hours", ticking; "expired 2 min ago" once gone. */
export function ExpiryCountdown({ surface }: { surface: TSurface }) {
  const now = useNow(1000);
  const gone = GONE.includes(surface.status) || Date.parse(surface.expires_at) <= now;
  return (
    <span title={formatDateTime(surface.expires_at)}>
      {gone
        ? surface.status === "expired"
          ? `Expired (${formatDateTime(surface.updated_at)})`
          : "No longer served"
        : `Expires ${relativeTo(surface.expires_at, now)}`}
      <span className="text-slate-600"> · {formatDateTime(surface.expires_at)}</span>
    </span>
  );
}

/**
 * The deployment's surface: its two routes, status, expiry (counting down) and the last reachability probe;
 * `pageLink` links to the surface's own page (sessions and accesses).
 */
export function SurfaceCard({
  ws,
  srf,
  poll,
  pageLink = true,
}: {
  ws: string;
  srf: string;
  poll: boolean;
  pageLink?: boolean;
}) {
  const surface = useSurface(ws, srf, poll);
  const s = surface.data;
  const live = s && !GONE.includes(s.status);
  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <CardTitle>Surface</CardTitle>
          <CardDescription>
            Where the app answers. The host route is its own origin; the path route serves it under Capstan&apos;s
            origin, with its pages sandboxed.
          </CardDescription>
        </div>
        {pageLink ? (
          <Link
            href={workspaceHref(ws, `/surfaces/${srf}`)}
            className={buttonVariants({ variant: "secondary", size: "sm" })}
          >
            Sessions and access
          </Link>
        ) : null}
      </CardHeader>
      <CardContent>
        {surface.isPending ? <Loading what="surface" /> : null}
        {surface.error ? <Alert problem={problemOf(surface.error)} /> : null}
        {s ? (
          <dl className="grid gap-4 text-sm sm:grid-cols-2">
            <div className="min-w-0 space-y-1 sm:col-span-2">
              <dt className="text-slate-600">URL</dt>
              <dd>
                {s.url ? (
                  live ? (
                    <SurfaceUrlLink href={s.url} />
                  ) : (
                    <code className="font-mono text-xs break-all">{s.url}</code>
                  )
                ) : (
                  "—"
                )}
              </dd>
            </div>
            <div className="min-w-0 space-y-1 sm:col-span-2">
              <dt className="text-slate-600">Path route</dt>
              <dd>
                {s.path_url ? (
                  live ? (
                    <SurfaceUrlLink href={s.path_url} />
                  ) : (
                    <code className="font-mono text-xs break-all">{s.path_url}</code>
                  )
                ) : (
                  "—"
                )}
              </dd>
            </div>
            <div className="space-y-1">
              <dt className="text-slate-600">Surface status</dt>
              <dd className="flex flex-wrap items-center gap-2">
                <SurfaceStatusBadge status={s.status} />
                {s.reason_code ? <code className="font-mono text-xs">{s.reason_code}</code> : null}
              </dd>
            </div>
            <div className="space-y-1">
              <dt className="text-slate-600">Expiry</dt>
              <dd>
                <ExpiryCountdown surface={s} />
              </dd>
            </div>
            <div className="space-y-1 sm:col-span-2">
              <dt className="text-slate-600">Reachability</dt>
              <dd>
                {s.reachability
                  ? `Answered ${s.reachability.status_code} through the surface route in ${formatUnits(s.reachability.latency_ms)} ms (${formatDateTime(s.reachability.checked_at)})`
                  : "Not probed yet"}
              </dd>
            </div>
          </dl>
        ) : null}
      </CardContent>
    </Card>
  );
}
