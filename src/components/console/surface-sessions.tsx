"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { Ban } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { useTRPC } from "@/lib/trpc/client";
import type { TAccess } from "@/server/domain/sessions/sessions.contract";
import { ConfirmDialog } from "./confirm-dialog";
import { useNow } from "./deployment-status";
import { formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { workspaceHref } from "./nav-config";
import { idLinkClass } from "./products-view";
import { QueryStates } from "./query-states";
import { AccessStateBadge, AccountLabel, SessionStateBadge, useCurrentUserId, useMemberEmails } from "./session-status";

/** The surface's sessions, newest first: state, account, opened and closed (with why). */
export function SurfaceSessionsCard({ ws, srf }: { ws: string; srf: string }) {
  const trpc = useTRPC();
  const emails = useMemberEmails(ws);
  const me = useCurrentUserId();
  const list = useInfiniteQuery(
    trpc.sessions.list.infiniteQueryOptions({ ws, surface_id: srf, limit: 20, order: "desc" }, { getNextPageParam: (page) => page.next_cursor ?? undefined }),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card>
      <CardHeader>
        <CardTitle>Sessions</CardTitle>
        <CardDescription>Each session sends requests to the app on behalf of one account; open one to send requests and read what ran.</CardDescription>
      </CardHeader>
      <CardContent className="px-0 py-0">
        <QueryStates query={list} what="sessions" empty={rows.length === 0} emptyText="No sessions yet. Choose Open session." />
        {rows.length ? (
          <Table>
            <TableCaption>Sessions on this surface, newest first</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Session</TableHead>
                <TableHead>State</TableHead>
                <TableHead>Account</TableHead>
                <TableHead>Opened</TableHead>
                <TableHead>Closed</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((s) => (
                <TableRow key={s.id}>
                  <TableCell>
                    <Link href={workspaceHref(ws, `/sessions/${s.id}`)} className={idLinkClass}>
                      {s.id}
                    </Link>
                  </TableCell>
                  <TableCell>
                    <SessionStateBadge state={s.state} />
                  </TableCell>
                  <TableCell>
                    <AccountLabel id={s.account_id} emails={emails} me={me} />
                  </TableCell>
                  <TableCell className="whitespace-nowrap">{formatDateTime(s.created_at)}</TableCell>
                  <TableCell className="whitespace-nowrap">
                    {s.closed_at ? (
                      <>
                        {formatDateTime(s.closed_at)}
                        {s.closed_reason ? <code className="ml-2 font-mono text-xs">{s.closed_reason}</code> : null}
                      </>
                    ) : (
                      "—"
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ) : null}
        <LoadMore query={list} label="Load more sessions" />
      </CardContent>
    </Card>
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
    trpc.sessions.listAccesses.infiniteQueryOptions({ ws, surface_id: srf, limit: 20, order: "desc" }, { getNextPageParam: (page) => page.next_cursor ?? undefined }),
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
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <Card>
      <CardHeader>
        <CardTitle>Accesses</CardTitle>
        <CardDescription>
          Opening a session qualifies the account for access to this surface (any member may, for a day or until the surface expires). Revoking an
          access closes its sessions.
        </CardDescription>
      </CardHeader>
      <CardContent className="px-0 py-0">
        <QueryStates query={list} what="accesses" empty={rows.length === 0} emptyText="Nobody has access yet." />
        {rows.length ? (
          <Table>
            <TableCaption>Accesses to this surface, newest first</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Access</TableHead>
                <TableHead>Account</TableHead>
                <TableHead>State</TableHead>
                <TableHead>Granted</TableHead>
                <TableHead>Expires</TableHead>
                <TableHead>Latest session</TableHead>
                <TableHead>
                  <span className="sr-only">Actions</span>
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((a) => {
                const usable = !a.revoked_at && Date.parse(a.expires_at) > now;
                return (
                  <TableRow key={a.id}>
                    <TableCell className="font-mono text-xs">{a.id}</TableCell>
                    <TableCell>
                      <AccountLabel id={a.account_id} emails={emails} me={me} />
                    </TableCell>
                    <TableCell>
                      <AccessStateBadge access={a} now={now} />
                    </TableCell>
                    <TableCell className="whitespace-nowrap">{formatDateTime(a.created_at)}</TableCell>
                    <TableCell className="whitespace-nowrap">{a.revoked_at ? `Revoked ${formatDateTime(a.revoked_at)}` : formatDateTime(a.expires_at)}</TableCell>
                    <TableCell>
                      {a.session_id ? (
                        <Link href={workspaceHref(ws, `/sessions/${a.session_id}`)} className={idLinkClass}>
                          {a.session_id}
                        </Link>
                      ) : (
                        "—"
                      )}
                    </TableCell>
                    <TableCell className="text-right">
                      {usable ? (
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
                      ) : null}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        ) : null}
        <LoadMore query={list} label="Load more accesses" />
      </CardContent>
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
    </Card>
  );
}
