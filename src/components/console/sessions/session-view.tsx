"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { DoorClosed } from "lucide-react";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button, buttonVariants } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TSession } from "@/server/domain/sessions/sessions.contract";
import { ConfirmDialog } from "../shared/confirm-dialog";
import { formatDateTime } from "../shared/format";
import { hasRole, workspaceHref } from "../shell/nav-config";
import { PageFallback } from "../shared/page-query";
import { PageHeader } from "../shared/page-header";
import { idLinkClass } from "../shared/id-link";
import { SessionInvocationsCard } from "./session-invocations";
import { SessionRequestForm } from "./session-request-form";
import { AccountLabel, SessionStateBadge, useCurrentUserId, useMemberEmails } from "./session-status";

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0 space-y-1">
      <dt className="text-slate-600">{label}</dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

/** Why a session closed, in words. */
const CLOSED_REASON: Record<string, string> = {
  closed: "Closed by a user.",
  access_revoked: "An owner or admin revoked its access.",
  surface_expired: "Its surface expired (the deployment stopped, was replaced or reached its expiry).",
};

function SessionDetails({ ws, s, me }: { ws: string; s: TSession; me: string | undefined }) {
  const emails = useMemberEmails(ws);
  return (
    <Card>
      <CardContent>
        <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
          <Item label="Session id">
            <span className="flex flex-wrap items-center gap-2">
              <code className="font-mono break-all">{s.id}</code>
              <CopyButton value={s.id} size="sm" label="Copy id" />
            </span>
          </Item>
          <Item label="State">
            <SessionStateBadge state={s.state} />
          </Item>
          <Item label="Account">
            <AccountLabel id={s.account_id} emails={emails} me={me} />
          </Item>
          <Item label="Surface">
            <Link href={workspaceHref(ws, `/surfaces/${s.surface_id}`)} className={idLinkClass}>
              {s.surface_id}
            </Link>
          </Item>
          <Item label="Product">
            <Link href={workspaceHref(ws, `/products/${s.product_id}`)} className={idLinkClass}>
              {s.product_id}
            </Link>
          </Item>
          <Item label="Access">
            <code className="font-mono text-xs break-all">{s.access_id}</code>
          </Item>
          <Item label="Opened">{formatDateTime(s.created_at)}</Item>
          {s.closed_at ? (
            <Item label="Closed">
              {formatDateTime(s.closed_at)}
              {s.closed_reason ? (
                <span className="text-slate-600">
                  {" "}
                  · <code className="font-mono text-xs">{s.closed_reason}</code> {CLOSED_REASON[s.closed_reason] ?? ""}
                </span>
              ) : null}
            </Item>
          ) : null}
        </dl>
      </CardContent>
    </Card>
  );
}

/**
 * One session: who holds it and on which surface, Close (its account, or an
 * owner or admin), "Send a request" while it is active, and its invocations.
 */
export function SessionView({ ws, ses }: { ws: string; ses: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useCurrentUserId();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const session = useQuery(trpc.sessions.get.queryOptions({ ses }));
  const [confirmClose, setConfirmClose] = useState(false);
  const close = useMutation(
    trpc.sessions.close.mutationOptions({
      onSuccess: async (data) => {
        queryClient.setQueryData(trpc.sessions.get.queryKey({ ses }), data);
        setConfirmClose(false);
        await queryClient.invalidateQueries(trpc.sessions.list.pathFilter());
      },
    }),
  );

  if (!session.data) return <PageFallback query={session} title="Session" what="session" />;
  const s = session.data;
  const mine = !!me && s.account_id === me;
  const canClose = s.state === "active" && (mine || hasRole(workspace.data?.role, "admin"));

  return (
    <>
      <PageHeader
        title="Session"
        description={
          <span className="flex flex-wrap items-center gap-2">
            <SessionStateBadge state={s.state} />
            <code className="font-mono text-xs">{s.id}</code>
          </span>
        }
        actions={
          <>
            <Link
              href={workspaceHref(ws, `/surfaces/${s.surface_id}`)}
              className={buttonVariants({ variant: "secondary", size: "sm" })}
            >
              Open surface
            </Link>
            {canClose ? (
              <Button
                variant="danger"
                size="sm"
                onClick={() => {
                  close.reset();
                  setConfirmClose(true);
                }}
              >
                <DoorClosed aria-hidden="true" />
                Close session
              </Button>
            ) : null}
          </>
        }
      />
      <div className="space-y-6">
        {s.workspace_id !== ws ? (
          <Alert tone="warning">This session belongs to workspace {s.workspace_id}, not to this one.</Alert>
        ) : null}
        <SessionDetails ws={ws} s={s} me={me} />
        {s.state === "active" ? (
          <>
            {!mine ? (
              <Alert tone="warning">
                This session belongs to another account: requests you send through it are recorded and denied by the
                permission check. Open your own session from the surface page.
              </Alert>
            ) : null}
            <SessionRequestForm ws={ws} ses={s.id} canUpload={hasRole(workspace.data?.role, "developer")} />
          </>
        ) : (
          <Alert>This session is closed: it takes no more requests. Open a new one from the surface page.</Alert>
        )}
        <SessionInvocationsCard ws={ws} ses={s.id} />
      </div>
      <ConfirmDialog
        open={confirmClose}
        onClose={() => setConfirmClose(false)}
        title="Close this session?"
        description="It takes no more requests; its invocations stay. Open a new session to send more."
        confirmLabel="Close session"
        pendingLabel="Closing…"
        pending={close.isPending}
        error={close.error}
        onConfirm={() => close.mutate({ ses: s.id })}
      />
    </>
  );
}
