"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { SectionCard } from "../shared/section-card";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { formatMicros } from "@/server/domain/billing/currencies";
import { BudgetBar } from "../usage/budget-bar";
import { CATEGORY_LABEL, formatDateTime, titleCase } from "../shared/format";
import { hasRole, workspaceHref } from "../shell/nav-config";
import { IdValue, LabelValue, LabelValueList } from "../shared/label-value";
import { OnboardingChecklist } from "../onboarding/onboarding-checklist";
import { OverviewFailures, OverviewLive } from "./overview-cards";
import { PageFallback } from "../shared/page-query";
import { Loading, PageHeader } from "../shared/page-header";
import { UsageChart } from "./usage-chart";

/**
 * The workspace overview: name, id, plan and the caller's role; what is live
 * in each environment; the failures of the last 7 days that need action;
 * this month's budgets and spend; usage and spend over time.
 */
export function WorkspaceOverview({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const budgets = useQuery(trpc.usage.budgets.queryOptions(wsOnly(ws)));
  const overview = useQuery(trpc.overview.get.queryOptions(wsOnly(ws)));

  if (!workspace.data) return <PageFallback query={workspace} title="Workspace" what="workspace" />;
  const w = workspace.data;
  const month = budgets.data?.items[0]?.month;
  const spend = overview.data?.spend_this_month;

  return (
    <>
      <PageHeader title={w.name} description="Workspace overview" />
      <div className="space-y-6">
        <OnboardingChecklist ws={ws} />

        <Card>
          <CardContent>
            <LabelValueList columns={4}>
              <LabelValue label="Workspace id" span={2}>
                <IdValue id={w.id} />
              </LabelValue>
              <LabelValue label="Plan">
                <Badge tone="info">{titleCase(w.plan)}</Badge>
              </LabelValue>
              <LabelValue label="Your role">
                <Badge>{titleCase(w.role)}</Badge>
              </LabelValue>
              <LabelValue label="Created" span={2}>
                {formatDateTime(w.created_at)}
              </LabelValue>
            </LabelValueList>
          </CardContent>
        </Card>

        {overview.error ? <Alert problem={problemOf(overview.error)} /> : null}
        <div className="grid gap-6 lg:grid-cols-2">
          <OverviewLive ws={ws} overview={overview.data} />
          <OverviewFailures ws={ws} overview={overview.data} />
        </div>

        <Card>
          <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
            <div className="space-y-1">
              <CardTitle>Budget usage{month ? ` (${month}, UTC)` : ""}</CardTitle>
              <CardDescription>Used plus reserved units against each monthly limit.</CardDescription>
            </div>
            <Link href={workspaceHref(ws, "/plan")} className={buttonVariants({ variant: "secondary", size: "sm" })}>
              {hasRole(w.role, "admin") ? "Edit limits" : "Plan & budgets"}
            </Link>
          </CardHeader>
          <CardContent className="space-y-5">
            {spend ? (
              <p className="text-sm">
                <span className="text-slate-600">Spend this month ({spend.month}, UTC): </span>
                <span className="font-medium tabular-nums">
                  {spend.spend.length
                    ? spend.spend.map((m) => formatMicros(m.amount_micros, m.currency)).join(" · ")
                    : "nothing priced yet"}
                </span>
              </p>
            ) : null}
            {budgets.isPending ? <Loading what="budgets" /> : null}
            {budgets.error ? <Alert problem={problemOf(budgets.error)} /> : null}
            {budgets.data ? (
              <ul className="grid gap-5 sm:grid-cols-2">
                {budgets.data.items.map((b) => (
                  <li key={b.usage_category} className="space-y-1.5">
                    <p className="text-sm font-medium">{CATEGORY_LABEL[b.usage_category]}</p>
                    <BudgetBar
                      label={CATEGORY_LABEL[b.usage_category]}
                      used={b.used_units}
                      reserved={b.reserved_units}
                      limit={b.limit_units}
                    />
                  </li>
                ))}
              </ul>
            ) : null}
          </CardContent>
        </Card>

        <SectionCard
          title="Usage and spend"
          description="Bridge calls and their priced amounts, by capability or by product."
        >
          <UsageChart ws={ws} heading="Per day" />
        </SectionCard>
      </div>
    </>
  );
}
