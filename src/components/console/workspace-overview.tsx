"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { BudgetBar } from "./budget-bar";
import { CATEGORY_LABEL, formatDateTime, titleCase } from "./format";
import { hasRole, workspaceHref } from "./nav-config";
import { OnboardingChecklist } from "./onboarding-checklist";
import { Loading, PageHeader } from "./page-header";

/** Name, id, plan, the caller's role and this month's budget usage per category. */
export function WorkspaceOverview({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const budgets = useQuery(trpc.usage.budgets.queryOptions(wsOnly(ws)));

  if (workspace.error) {
    return (
      <>
        <PageHeader title="Workspace" />
        <Alert problem={problemOf(workspace.error)} />
      </>
    );
  }
  if (!workspace.data) return <Loading what="workspace" />;
  const w = workspace.data;
  const month = budgets.data?.items[0]?.month;

  return (
    <>
      <PageHeader title={w.name} description="Workspace overview" />
      <div className="space-y-6">
        <OnboardingChecklist ws={ws} />
        <Card>
          <CardContent>
            <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-4">
              <div className="space-y-1 sm:col-span-2">
                <dt className="text-slate-600">Workspace id</dt>
                <dd className="flex flex-wrap items-center gap-2">
                  <code className="font-mono break-all">{w.id}</code>
                  <CopyButton value={w.id} size="sm" label="Copy id" />
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Plan</dt>
                <dd>
                  <Badge tone="info">{titleCase(w.plan)}</Badge>
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Your role</dt>
                <dd>
                  <Badge>{titleCase(w.role)}</Badge>
                </dd>
              </div>
              <div className="space-y-1 sm:col-span-2">
                <dt className="text-slate-600">Created</dt>
                <dd>{formatDateTime(w.created_at)}</dd>
              </div>
            </dl>
          </CardContent>
        </Card>

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
          <CardContent>
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
      </div>
    </>
  );
}
