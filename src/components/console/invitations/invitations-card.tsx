"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Mail, RotateCw, X } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TRole } from "@/server/domain/identity/workspace-access.service";
import { ConfirmAction } from "../shared/confirm-action";
import { formatDateTime, titleCase } from "../shared/format";
import { QueryStates } from "../shared/query-states";
import { actionsColumn, ResourceTable, type TColumn } from "../shared/resource-table";
import { RoleSelect } from "../shared/role-select";
import { Field } from "../shared/field";

/** Invite by email, and the pending invitations with resend and revoke (owners and admins). */
export function InvitationsSection({ ws, callerRole }: { ws: string; callerRole: TRole }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<TRole>("developer");
  const pending = useQuery(trpc.invitations.list.queryOptions({ ws, status: "pending", limit: 100, order: "desc" }));
  const refresh = () => queryClient.invalidateQueries(trpc.invitations.list.pathFilter());
  const create = useMutation(
    trpc.invitations.create.mutationOptions({
      onSuccess: async () => {
        setEmail("");
        await refresh();
      },
    }),
  );
  const resend = useMutation(trpc.invitations.resend.mutationOptions({ onSettled: refresh }));
  const rows = pending.data?.items ?? [];
  const columns: TColumn<(typeof rows)[number]>[] = [
    { key: "email", label: "Email", rowHeader: true, cell: (i) => i.email },
    { key: "role", label: "Role", cell: (i) => titleCase(i.role) },
    { key: "by", label: "Invited by", priority: 3, cell: (i) => i.invited_by.name ?? i.invited_by.id },
    { key: "expires", label: "Expires", priority: 2, cell: (i) => formatDateTime(i.expires_at) },
    {
      key: "delivery",
      label: "Delivery",
      cell: (i) =>
        i.email_status === "sent" ? (
          <Badge tone="success">Sent</Badge>
        ) : i.email_status === "failed" ? (
          <Badge tone="danger" title={i.email_error ?? undefined}>
            Not sent
          </Badge>
        ) : (
          <Badge>Sending</Badge>
        ),
    },
    actionsColumn((i) => (
      <>
        <Button
          size="sm"
          variant="secondary"
          disabled={resend.isPending}
          aria-label={`Resend the invitation to ${i.email}`}
          onClick={() => {
            create.reset();
            resend.mutate({ ws, invt: i.id });
          }}
        >
          <RotateCw aria-hidden="true" />
          Resend
        </Button>
        <ConfirmAction
          mutation={trpc.invitations.revoke.mutationOptions()}
          variables={{ ws, invt: i.id }}
          onDone={refresh}
          icon={<X aria-hidden="true" />}
          label="Revoke"
          srLabel={`the invitation to ${i.email}`}
          variant="secondary"
          confirmVariant="danger"
          title="Revoke this invitation?"
          description={`The link sent to ${i.email} stops working at once. You can invite them again later.`}
          confirmLabel="Revoke invitation"
          pendingLabel="Revoking…"
        />
      </>
    )),
  ];

  function submit(e: FormEvent) {
    e.preventDefault();
    resend.reset();
    create.mutate({ ws, email, role });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Invite by email</CardTitle>
        <CardDescription>
          We email a link that works once and expires after 7 days. People without a Capstan account create one from the
          link.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3" aria-label="Invite a member">
          <Field id="invitation-email" label="Email address to invite" className="min-w-0 flex-1 basis-56">
            <Input
              id="invitation-email"
              name="email"
              type="email"
              required
              autoComplete="off"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </Field>
          <Field id="invitation-role" label="Role to grant" className="w-40">
            <RoleSelect
              id="invitation-role"
              name="role"
              value={role}
              onRole={setRole}
              allowOwner={callerRole === "owner"}
            />
          </Field>
          <Button type="submit" disabled={create.isPending}>
            <Mail aria-hidden="true" />
            {create.isPending ? "Sending…" : "Send invitation"}
          </Button>
        </form>
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
        {create.data && !create.isPending && !create.error ? (
          create.data.email_status === "sent" ? (
            <Alert tone="success">
              Invitation sent to {create.data.email} as {create.data.role}.
            </Alert>
          ) : (
            <Alert tone="warning" title="The invitation was saved but the email was not sent">
              {create.data.email_error ?? "The mail server did not accept it."} Resend it once the mail server is
              reachable.
            </Alert>
          )
        ) : null}
        {resend.error ? <Alert title="Not resent" problem={problemOf(resend.error)} /> : null}
        {resend.data && !resend.isPending && !resend.error ? (
          <Alert tone={resend.data.email_status === "sent" ? "success" : "warning"}>
            {resend.data.email_status === "sent"
              ? `A new link was sent to ${resend.data.email}; the previous one no longer works.`
              : `The email to ${resend.data.email} was not sent: ${resend.data.email_error ?? "the mail server did not accept it"}.`}
          </Alert>
        ) : null}

        <h3 className="text-sm font-semibold">Pending invitations</h3>
        <QueryStates query={pending} what="invitations" />
        {pending.data && rows.length === 0 ? <p className="text-sm text-slate-600">No pending invitations.</p> : null}
        {rows.length > 0 ? (
          <ResourceTable
            caption="Invitations waiting to be accepted"
            columns={columns}
            rows={rows}
            rowKey={(i) => i.id}
          />
        ) : null}
      </CardContent>
    </Card>
  );
}
