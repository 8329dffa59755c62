"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { Ban } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { useTRPC } from "@/lib/trpc/client";
import type { TAccess, TSession } from "@/server/domain/sessions/sessions.contract";
import { ConfirmDialog } from "../shared/confirm-dialog";
import { useNow } from "../deployments/deployment-status";
import { formatDateTime } from "../shared/format";
import { ShortId, type TColumn } from "../shared/resource-table";
import { TableCard } from "../shared/table-card";
import { workspaceHref } from "../shell/nav-config";
import { idLinkClass } from "../shared/id-link";
import { AccessStateBadge, AccountLabel, SessionStateBadge, useCurrentUserId, useMemberEmails } from "./session-status";

/** The surface's sessions, newest first: state, account, opened and closed (with why). */
export function SurfaceSessionsCard({ ws, srf }: { ws: string; srf: string }) {
  const trpc = useTRPC();
  const emails = useMemberEmails(ws);
  const me = useCurrentUserId();
  const list = useInfiniteQuery(
    trpc.sessions.list.infiniteQueryOptions(
      { ws, surface_id: srf, limit: 20, order: "desc" },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const columns: TColumn<TSession>[] = [
    {
      key: "id",
      label: "Session",
      cell: (s) => (
        <Link href={workspaceHref(ws, `/sessions/${s.id}`)} className={idLinkClass}>
          {s.id}
        </Link>
      ),
    },
    { key: "state", label: "State", cell: (s) => <SessionStateBadge state={s.state} /> },
    { key: "account", label: "Account", cell: (s) => <AccountLabel id={s.account_id} emails={emails} me={me} /> },
    { key: "opened", label: "Opened", className: "whitespace-nowrap", cell: (s) => formatDateTime(s.created_at) },
    {
      key: "closed",
      label: "Closed",
      className: "whitespace-nowrap",
      cell: (s) =>
        s.closed_at ? (
          <>
            {formatDateTime(s.closed_at)}
            {s.closed_reason ? <code className="ml-2 font-mono text-xs">{s.closed_reason}</code> : null}
          </>
        ) : (
          "—"
        ),
    },
  ];
  return (
    <TableCard
      title="Sessions"
      description="Each session sends requests to the app on behalf of one account; open one to send requests and read what ran."
      query={list}
      what="sessions"
      emptyText="No sessions yet. Choose Open session."
      loadMoreLabel="Load more sessions"
      caption="Sessions on this surface, newest first"
      columns={columns}
    />
  );
}

/** Owners and admins: who qualified for access to the surface, with Revoke (its sessions close). */
export function SurfaceAccessesCard({ ws, srf }: { ws: string; srf: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const emails = useMemberEmails(ws);
  const me = useCurrentUserId();
  const now = useNow(30_000);
  const [target, setTarget] = useState<TAccess | null>(null);
  const list = useInfiniteQuery(
    trpc.sessions.listAccesses.infiniteQueryOptions(
      { ws, surface_id: srf, limit: 20, order: "desc" },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const revoke = useMutation(
    trpc.sessions.revokeAccess.mutationOptions({
      onSuccess: async () => {
        setTarget(null);
        await Promise.all([
          queryClient.invalidateQueries(trpc.sessions.listAccesses.pathFilter()),
          queryClient.invalidateQueries(trpc.sessions.list.pathFilter()),
          queryClient.invalidateQueries(trpc.sessions.get.pathFilter()),
        ]);
      },
    }),
  );
  return (
    <>
      <TableCard<TAccess>
        title="Accesses"
        description="Opening a session qualifies the account for access to this surface (any member may, for a day or until the surface expires). Revoking an access closes its sessions."
        query={list}
        what="accesses"
        emptyText="Nobody has access yet."
        loadMoreLabel="Load more accesses"
        caption="Accesses to this surface, newest first"
        columns={[
          { key: "id", label: "Access", priority: 3, cell: (a) => <ShortId id={a.id} /> },
          {
            key: "account",
            label: "Account",
            cell: (a) => <AccountLabel id={a.account_id} emails={emails} me={me} />,
          },
          { key: "state", label: "State", cell: (a) => <AccessStateBadge access={a} now={now} /> },
          { key: "granted", label: "Granted", priority: 2, cell: (a) => formatDateTime(a.created_at) },
          {
            key: "expires",
            label: "Expires",
            cell: (a) => (a.revoked_at ? `Revoked ${formatDateTime(a.revoked_at)}` : formatDateTime(a.expires_at)),
          },
          {
            key: "session",
            label: "Latest session",
            priority: 2,
            cell: (a) =>
              a.session_id ? <ShortId id={a.session_id} href={workspaceHref(ws, `/sessions/${a.session_id}`)} /> : "—",
          },
          {
            key: "actions",
            label: "Actions",
            header: <span className="sr-only">Actions</span>,
            className: "text-right",
            cell: (a) =>
              !a.revoked_at && Date.parse(a.expires_at) > now ? (
                <Button
                  variant="secondary"
                  size="sm"
                  aria-label={`Revoke access ${a.id} of ${(a.account_id && emails.get(a.account_id)) ?? a.account_id ?? "anonymous"}`}
                  onClick={() => {
                    revoke.reset();
                    setTarget(a);
                  }}
                >
                  <Ban aria-hidden="true" />
                  Revoke
                </Button>
              ) : null,
          },
        ]}
      />
      <ConfirmDialog
        open={target !== null}
        onClose={() => setTarget(null)}
        title="Revoke this access?"
        description={`${(target?.account_id && emails.get(target.account_id)) ?? target?.account_id ?? "The account"} loses access to this surface and its open sessions close. Opening a new session qualifies a new access.`}
        confirmLabel="Revoke access"
        pendingLabel="Revoking…"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => target && revoke.mutate({ ws, acc: target.id })}
      />
    </>
  );
}
