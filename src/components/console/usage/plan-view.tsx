"use client";

import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { PageHeader } from "../shared/page-header";
import { hasRole } from "../shell/nav-config";
import { BudgetsCard } from "./budgets-card";
import { PlanCard } from "./plan-card";

/** Plan and entitlements, plus this month's budgets with an inline limit editor per category. */
export function PlanView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const canManage = hasRole(workspace.data?.role, "admin");
  return (
    <>
      <PageHeader
        title="Plan & budgets"
        description={workspace.data ? `Plan, entitlements and monthly budgets of ${workspace.data.name}.` : undefined}
      />
      <div className="space-y-6">
        {workspace.error ? <Alert problem={problemOf(workspace.error)} /> : null}
        {workspace.data && !canManage ? (
          <Alert>Only owners and admins can change the plan or budgets. You are {workspace.data.role}.</Alert>
        ) : null}
        {/* One failure, one message: the cards' own queries would repeat the workspace's error twice more. */}
        {workspace.data ? (
          <>
            <PlanCard ws={ws} canManage={canManage} />
            <BudgetsCard ws={ws} canManage={canManage} />
          </>
        ) : null}
      </div>
    </>
  );
}
