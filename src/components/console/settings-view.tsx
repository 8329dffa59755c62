"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TWorkspace } from "@/server/domain/workspaces/workspaces.contract";
import { ConfirmDialog } from "./confirm-dialog";
import { formatDateTime, titleCase } from "./format";
import { hasRole, workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { BudgetsCard, PlanCard } from "./plan-view";
import { RenameButton } from "./rename-dialog";

const linkClass = "text-sky-800 underline underline-offset-4 hover:text-sky-950";

function GeneralCard({ ws, w, canManage }: { ws: string; w: TWorkspace; canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const rename = useMutation(trpc.workspaces.rename.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.workspaces.pathFilter()) }));
  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <CardTitle>General</CardTitle>
          <CardDescription>The workspace&apos;s display name. Names need not be unique; the id identifies the workspace.</CardDescription>
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
        <dl className="grid gap-4 text-sm sm:grid-cols-2">
          <div className="space-y-1">
            <dt className="text-slate-600">Name</dt>
            <dd className="font-medium break-words">{w.name}</dd>
          </div>
          <div className="space-y-1">
            <dt className="text-slate-600">Workspace id</dt>
            <dd className="flex flex-wrap items-center gap-2">
              <code className="font-mono break-all">{w.id}</code>
              <CopyButton value={w.id} size="sm" label="Copy id" />
            </dd>
          </div>
          <div className="space-y-1">
            <dt className="text-slate-600">Your role</dt>
            <dd>
              <Badge>{titleCase(w.role)}</Badge>
            </dd>
          </div>
          <div className="space-y-1">
            <dt className="text-slate-600">Created</dt>
            <dd>{formatDateTime(w.created_at)}</dd>
          </div>
        </dl>
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
    trpc.onboarding.setDismissed.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.onboarding.pathFilter()) }),
  );
  const o = onboarding.data;
  if (!o || o.complete || !o.dismissed) return null;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Onboarding checklist</CardTitle>
        <CardDescription>You dismissed the getting-started checklist of this workspace. Other members still see theirs.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        {restore.error ? <Alert problem={problemOf(restore.error)} /> : null}
        <Button variant="secondary" size="sm" disabled={restore.isPending} onClick={() => restore.mutate({ ws, dismissed: false })}>
          Show the checklist on the overview again
        </Button>
      </CardContent>
    </Card>
  );
}

/**
 * The danger zone holds what the API offers: handing the owner role to
 * another member. Capstan has no operation to delete or leave a workspace
 * (docs/decisions.md "Workspace settings"), and the card says so plainly.
 */
function DangerZone({ ws, w }: { ws: string; w: TWorkspace }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const isOwner = w.role === "owner";
  const members = useQuery({ ...trpc.workspaces.members.queryOptions({ ws, limit: 200, order: "asc" }), enabled: isOwner });
  const [target, setTarget] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const promote = useMutation(
    trpc.workspaces.putMember.mutationOptions({
      onSuccess: async (m) => {
        setConfirming(false);
        setTarget("");
        setDone(m.email);
        await queryClient.invalidateQueries(trpc.workspaces.pathFilter());
      },
    }),
  );
  const candidates = (members.data?.items ?? []).filter((m) => m.role !== "owner");
  const chosen = candidates.find((m) => m.user_id === target);

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!chosen) return;
    promote.reset();
    setConfirming(true);
  }

  return (
    <Card role="region" className="border-rose-300" aria-labelledby="danger-zone-title">
      <CardHeader className="border-rose-100">
        <CardTitle id="danger-zone-title" className="text-rose-800">
          Danger zone
        </CardTitle>
        <CardDescription>Changes here affect who controls the workspace.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-5 text-sm">
        <section aria-labelledby="transfer-title" className="space-y-3">
          <h3 id="transfer-title" className="font-medium text-slate-900">
            Transfer ownership
          </h3>
          <p className="text-slate-600">
            Make another member an owner. You stay an owner until you change your own role on the{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/members")}>
              Members page
            </Link>
            ; the last owner cannot step down.
          </p>
          {!isOwner ? (
            <p className="text-slate-700">Only an owner can grant the owner role. You are {w.role}.</p>
          ) : members.error ? (
            <Alert problem={problemOf(members.error)} />
          ) : members.isPending ? (
            <Loading what="members" />
          ) : candidates.length === 0 ? (
            <p className="text-slate-700">
              Every member is already an owner. <Link className={linkClass} href={workspaceHref(ws, "/members")}>Invite someone</Link> first.
            </p>
          ) : (
            <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
              <div className="min-w-0 flex-1 basis-56 space-y-1.5">
                <Label htmlFor="transfer-member">New owner</Label>
                <Select id="transfer-member" value={target} onChange={(e) => setTarget(e.target.value)} required>
                  <option value="">Choose a member</option>
                  {candidates.map((m) => (
                    <option key={m.user_id} value={m.user_id}>
                      {m.name} ({m.email}), {m.role}
                    </option>
                  ))}
                </Select>
              </div>
              <Button type="submit" variant="danger" disabled={!chosen}>
                Make owner
              </Button>
            </form>
          )}
          {done ? <Alert tone="success">{done} is now an owner of this workspace.</Alert> : null}
        </section>
        <section aria-labelledby="delete-title" className="space-y-2">
          <h3 id="delete-title" className="font-medium text-slate-900">
            Deleting or leaving the workspace
          </h3>
          <p className="text-slate-600">
            Capstan has no operation to delete a workspace or to leave one: its audit trail, invoices and usage records are kept. To stop
            everything it does, revoke its{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/service-identities")}>service identities</Link>,{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/bindings")}>provider bindings</Link> and{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/credentials")}>credentials</Link>, and stop its{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/deployments")}>deployments</Link>. A platform operator can remove a workspace
            from the database.
          </p>
        </section>
      </CardContent>
      <ConfirmDialog
        open={confirming && chosen !== undefined}
        title="Make this member an owner?"
        description={
          chosen
            ? `${chosen.name} (${chosen.email}) will have full control of ${w.name}, including removing your owner role.`
            : undefined
        }
        confirmLabel="Make owner"
        pendingLabel="Saving…"
        pending={promote.isPending}
        error={promote.error}
        onConfirm={() => chosen && promote.mutate({ ws, usr: chosen.user_id, role: "owner" })}
        onClose={() => setConfirming(false)}
      />
    </Card>
  );
}

/** Workspace settings: name, onboarding, plan and budgets (the plan page's own cards), danger zone. */
export function SettingsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  if (workspace.error) {
    return (
      <>
        <PageHeader title="Settings" />
        <Alert problem={problemOf(workspace.error)} />
      </>
    );
  }
  if (!workspace.data) return <Loading what="settings" />;
  const w = workspace.data;
  const canManage = hasRole(w.role, "admin");
  return (
    <>
      <PageHeader title="Settings" description={`Settings of ${w.name}.`} />
      <div className="space-y-6">
        {!canManage ? <Alert>Only owners and admins can change these settings. You are {w.role}: you see them read-only.</Alert> : null}
        <GeneralCard ws={ws} w={w} canManage={canManage} />
        <OnboardingCard ws={ws} />
        <PlanCard ws={ws} canManage={canManage} />
        <BudgetsCard ws={ws} canManage={canManage} />
        <DangerZone ws={ws} w={w} />
      </div>
    </>
  );
}
