"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TWorkspace } from "@/server/domain/workspaces/workspaces.contract";
import { ConfirmDialog } from "../shared/confirm-dialog";
import { Field } from "../shared/field";
import { Loading } from "../shared/page-header";
import { workspaceHref } from "../shell/nav-config";

const linkClass = "text-sky-800 underline underline-offset-4 hover:text-sky-950";

/**
 * The danger zone holds what the API offers: handing the owner role to
 * another member. Capstan has no operation to delete or leave a workspace
 * (docs/decisions.md "Workspace settings"), and the card says so plainly.
 */
export function DangerZone({ ws, w }: { ws: string; w: TWorkspace }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const isOwner = w.role === "owner";
  const members = useQuery({
    ...trpc.workspaces.members.queryOptions({ ws, limit: 200, order: "asc" }),
    enabled: isOwner,
  });
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
              Every member is already an owner.{" "}
              <Link className={linkClass} href={workspaceHref(ws, "/members")}>
                Invite someone
              </Link>{" "}
              first.
            </p>
          ) : (
            <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
              <Field id="transfer-member" label="New owner" className="min-w-0 flex-1 basis-56">
                <Select id="transfer-member" value={target} onChange={(e) => setTarget(e.target.value)} required>
                  <option value="">Choose a member</option>
                  {candidates.map((m) => (
                    <option key={m.user_id} value={m.user_id}>
                      {m.name} ({m.email}), {m.role}
                    </option>
                  ))}
                </Select>
              </Field>
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
            Capstan has no operation to delete a workspace or to leave one: its audit trail, invoices and usage records
            are kept. To stop everything it does, revoke its{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/service-identities")}>
              service identities
            </Link>
            ,{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/bindings")}>
              provider bindings
            </Link>{" "}
            and{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/credentials")}>
              credentials
            </Link>
            , and stop its{" "}
            <Link className={linkClass} href={workspaceHref(ws, "/deployments")}>
              deployments
            </Link>
            . A platform operator can remove a workspace from the database.
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
