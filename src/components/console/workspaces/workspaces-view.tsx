"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { SectionCard } from "../shared/section-card";
import { cn, focusRing } from "@/components/ui/cn";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatDate, titleCase } from "../shared/format";
import { workspaceHref } from "../shell/nav-config";
import { Loading, PageHeader } from "../shared/page-header";
import { TextField } from "../shared/text-field";

/**
 * Workspace names need not be unique (ids are), as with Vercel teams; a
 * second workspace with a name the caller already sees is almost always a
 * mistake, so the form says so before it is created (docs/decisions.md).
 */
function NewWorkspaceForm({ existing }: { existing: { id: string; name: string }[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [name, setName] = useState("");
  const twin = existing.find((w) => name.trim() !== "" && w.name.trim().toLowerCase() === name.trim().toLowerCase());
  const create = useMutation(
    trpc.workspaces.create.mutationOptions({
      onSuccess: async (ws) => {
        await queryClient.invalidateQueries(trpc.workspaces.list.pathFilter());
        router.push(workspaceHref(ws.id));
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name });
  }

  return (
    <SectionCard title="New workspace" description="You become its owner. It starts on the free plan.">
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
        <TextField
          id="workspace-name"
          label="Workspace name"
          className="min-w-64 flex-1"
          name="name"
          required
          maxLength={100}
          autoComplete="off"
          value={name}
          onValue={setName}
        />
        <Button type="submit" disabled={create.isPending}>
          <Plus aria-hidden="true" />
          {create.isPending ? "Creating…" : twin ? "Create another workspace" : "Create workspace"}
        </Button>
      </form>
      {twin ? (
        <Alert tone="warning" className="mt-3" title={`You already have a workspace named “${twin.name}”`}>
          <p>
            <Link href={workspaceHref(twin.id)} className="underline underline-offset-2">
              Open {twin.name}
            </Link>{" "}
            or choose another name. Creating it anyway makes a second, separate workspace with the same name.
          </p>
        </Alert>
      ) : null}
      {create.error ? <Alert className="mt-3" problem={problemOf(create.error)} /> : null}
    </SectionCard>
  );
}

/** The caller's workspaces as cards, plus the form to create one. */
export function WorkspacesView() {
  const trpc = useTRPC();
  const list = useQuery(trpc.workspaces.list.queryOptions({ limit: 200, order: "asc" }));

  return (
    <>
      <PageHeader
        title="Workspaces"
        description="Workspaces you are a member of. Choose one to manage its members, plan and budgets."
      />
      <div className="space-y-6">
        {list.isPending ? <Loading what="workspaces" /> : null}
        {list.error ? <Alert problem={problemOf(list.error)} /> : null}
        {list.data && list.data.items.length === 0 ? (
          <Alert title="No workspaces yet">Create your first workspace below.</Alert>
        ) : null}
        {list.data && list.data.items.length > 0 ? (
          <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Your workspaces">
            {list.data.items.map((w) => (
              <li key={w.id}>
                <Card className="relative h-full transition-colors hover:border-slate-400">
                  <CardContent className="space-y-3">
                    <h2 className="text-base font-semibold">
                      <Link
                        href={workspaceHref(w.id)}
                        className={cn(
                          "rounded-sm after:absolute after:inset-0 after:rounded-lg hover:underline",
                          focusRing,
                        )}
                      >
                        {w.name}
                      </Link>
                    </h2>
                    <p className="font-mono text-xs break-all text-slate-600">{w.id}</p>
                    <div className="flex flex-wrap items-center gap-2 text-xs text-slate-600">
                      <Badge tone="info">{titleCase(w.plan)} plan</Badge>
                      <Badge>{titleCase(w.role)}</Badge>
                      <span>since {formatDate(w.created_at)}</span>
                    </div>
                  </CardContent>
                </Card>
              </li>
            ))}
          </ul>
        ) : null}
        {list.data?.next_cursor ? <p className="text-sm text-slate-600">Showing the first 200 workspaces.</p> : null}
        <NewWorkspaceForm existing={list.data?.items ?? []} />
      </div>
    </>
  );
}
