"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { SectionCard } from "../shared/section-card";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TWorkspace } from "@/server/domain/workspaces/workspaces.contract";
import { formatDateTime, titleCase } from "../shared/format";
import { IdValue, LabelValue, LabelValueList } from "../shared/label-value";
import { PageHeader } from "../shared/page-header";
import { PageFallback } from "../shared/page-query";
import { RenameButton } from "../shared/rename-dialog";
import { hasRole } from "../shell/nav-config";
import { BudgetsCard } from "../usage/budgets-card";
import { PlanCard } from "../usage/plan-card";
import { DangerZone } from "./danger-zone";

function GeneralCard({ ws, w, canManage }: { ws: string; w: TWorkspace; canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const rename = useMutation(
    trpc.workspaces.rename.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.workspaces.pathFilter()),
    }),
  );
  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <CardTitle>General</CardTitle>
          <CardDescription>
            The workspace&apos;s display name. Names need not be unique; the id identifies the workspace.
          </CardDescription>
        </div>
        {canManage ? (
          <RenameButton
            what="workspace"
            current={w.name}
            mutation={{
              mutate: (name, opts) => rename.mutate({ ws, name }, opts),
              isPending: rename.isPending,
              error: rename.error,
              reset: rename.reset,
            }}
          />
        ) : null}
      </CardHeader>
      <CardContent>
        <LabelValueList columns={2}>
          <LabelValue label="Name">
            <span className="font-medium">{w.name}</span>
          </LabelValue>
          <LabelValue label="Workspace id">
            <IdValue id={w.id} />
          </LabelValue>
          <LabelValue label="Your role">
            <Badge>{titleCase(w.role)}</Badge>
          </LabelValue>
          <LabelValue label="Created">{formatDateTime(w.created_at)}</LabelValue>
        </LabelValueList>
      </CardContent>
    </Card>
  );
}

/** Brings the onboarding checklist back for this person when they dismissed it and it is not complete. */
function OnboardingCard({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const onboarding = useQuery(trpc.onboarding.get.queryOptions(wsOnly(ws)));
  const restore = useMutation(
    trpc.onboarding.setDismissed.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.onboarding.pathFilter()),
    }),
  );
  const o = onboarding.data;
  if (!o || o.complete || !o.dismissed) return null;
  return (
    <SectionCard
      title="Onboarding checklist"
      description="You dismissed the getting-started checklist of this workspace. Other members still see theirs."
      contentClassName="space-y-3"
    >
      {restore.error ? <Alert problem={problemOf(restore.error)} /> : null}
      <Button
        variant="secondary"
        size="sm"
        disabled={restore.isPending}
        onClick={() => restore.mutate({ ws, dismissed: false })}
      >
        Show the checklist on the overview again
      </Button>
    </SectionCard>
  );
}

/** Workspace settings: name, onboarding, plan and budgets (the plan page's own cards), danger zone. */
export function SettingsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  if (!workspace.data) return <PageFallback query={workspace} title="Settings" what="settings" />;
  const w = workspace.data;
  const canManage = hasRole(w.role, "admin");
  return (
    <>
      <PageHeader title="Settings" description={`Settings of ${w.name}.`} />
      <div className="space-y-6">
        {!canManage ? (
          <Alert>Only owners and admins can change these settings. You are {w.role}: you see them read-only.</Alert>
        ) : null}
        <GeneralCard ws={ws} w={w} canManage={canManage} />
        <OnboardingCard ws={ws} />
        <PlanCard ws={ws} canManage={canManage} />
        <BudgetsCard ws={ws} canManage={canManage} />
        <DangerZone ws={ws} w={w} />
      </div>
    </>
  );
}
