"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { SectionCard } from "../shared/section-card";
import type { TOverview } from "@/server/domain/overview/overview.contract";
import { titleCase } from "../shared/format";
import { workspaceHref } from "../shell/nav-config";
import { Loading } from "../shared/page-header";
import { RelativeTime } from "../shared/relative-time";

const STATUS_TONE = { active: "success", applying: "info", planned: "neutral" } as const;
const linkClass = "text-sky-800 underline underline-offset-2 hover:text-sky-950";

/** Deployments that are live (or on their way) in each environment, with their surface's address. */
export function OverviewLive({ ws, overview }: { ws: string; overview: TOverview | undefined }) {
  return (
    <SectionCard title="Live now" description="What each environment is serving." contentClassName="space-y-4">
      {!overview ? (
        <Loading what="environments" />
      ) : (
        overview.environments.map((env) => (
          <section key={env.environment_type} aria-label={titleCase(env.environment_type)} className="space-y-2">
            <h3 className="text-sm font-semibold">{titleCase(env.environment_type)}</h3>
            {env.deployments.length === 0 ? (
              <p className="text-sm text-slate-600">Nothing deployed.</p>
            ) : (
              <ul className="space-y-2">
                {env.deployments.map((d) => (
                  <li key={d.id} className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
                    <Link
                      href={workspaceHref(ws, `/products/${d.product_id}`)}
                      className={`${linkClass} font-medium break-all`}
                    >
                      {d.product_name}
                    </Link>
                    <Link
                      href={workspaceHref(ws, `/revisions/${d.revision_id}`)}
                      className={`${linkClass} font-mono text-xs`}
                      title={d.revision_id}
                    >
                      {d.revision_id.slice(0, 12)}…
                    </Link>
                    <Link
                      href={workspaceHref(ws, `/deployments/${d.id}`)}
                      aria-label={`Deployment ${d.id}: ${d.status}`}
                    >
                      <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>
                    </Link>
                    {d.surface_url ? (
                      <a
                        href={d.surface_url}
                        className={`${linkClass} basis-full break-all text-xs`}
                        rel="noreferrer"
                        target="_blank"
                      >
                        {d.surface_url}
                      </a>
                    ) : null}
                  </li>
                ))}
              </ul>
            )}
          </section>
        ))
      )}
    </SectionCard>
  );
}

function Item({ href, children, at }: { href: string; children: ReactNode; at: string }) {
  return (
    <li className="space-y-0.5 text-sm">
      <Link href={href} className={linkClass}>
        {children}
      </Link>
      <div className="text-xs text-slate-600">
        <RelativeTime iso={at} />
      </div>
    </li>
  );
}

/** Failures of the last 7 days that need someone to act, each linking to where to act. */
export function OverviewFailures({ ws, overview }: { ws: string; overview: TOverview | undefined }) {
  const f = overview?.failures;
  const none = f && !f.deployments.length && !f.denied.length && !f.domains.length && !f.dead_letters?.count;
  return (
    <SectionCard
      title="Needs action"
      description="Failures of the last 7 days, and domains failing now."
      contentClassName="space-y-4"
    >
      {!f ? <Loading what="failures" /> : null}
      {none ? <p className="text-sm text-slate-600">Nothing failed in the last 7 days.</p> : null}
      {f?.deployments.length ? (
        <section aria-label="Failed deployments" className="space-y-2">
          <h3 className="text-sm font-semibold">Failed deployments</h3>
          <ul className="space-y-2">
            {f.deployments.map((d) => (
              <Item key={d.id} href={workspaceHref(ws, `/deployments/${d.id}`)} at={d.at}>
                {d.product_name} to {d.environment_type}
                {d.reason_code ? `: ${d.reason_code}` : ""}
              </Item>
            ))}
          </ul>
        </section>
      ) : null}
      {f?.denied.length ? (
        <section aria-label="Denied Bridge calls" className="space-y-2">
          <h3 className="text-sm font-semibold">Denied Bridge calls</h3>
          <ul className="space-y-2">
            {f.denied.map((d) => (
              <Item key={d.reason} href={workspaceHref(ws, "/invocations")} at={d.last_at}>
                {d.count} denied: {d.reason}
              </Item>
            ))}
          </ul>
        </section>
      ) : null}
      {f?.dead_letters?.count ? (
        <section aria-label="Undelivered webhooks" className="space-y-2">
          <h3 className="text-sm font-semibold">Undelivered webhooks</h3>
          <ul className="space-y-2">
            <Item href={workspaceHref(ws, "/dead-letters")} at={f.dead_letters.latest[0]!.at}>
              {f.dead_letters.count} {f.dead_letters.count === 1 ? "delivery" : "deliveries"} in dead letters, latest{" "}
              {f.dead_letters.latest[0]!.event_type}
            </Item>
          </ul>
        </section>
      ) : null}
      {f?.domains.length ? (
        <section aria-label="Failing domains" className="space-y-2">
          <h3 className="text-sm font-semibold">Failing domains</h3>
          <ul className="space-y-2">
            {f.domains.map((d) => (
              <Item key={d.id} href={workspaceHref(ws, "/domains")} at={d.at}>
                {d.hostname}: {d.failure_message ?? d.failure_code ?? "verification failed"}
              </Item>
            ))}
          </ul>
        </section>
      ) : null}
    </SectionCard>
  );
}
