"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Mail, RotateCw, X } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TRole } from "@/server/domain/identity/access.service";
import { ConfirmDialog } from "./confirm-dialog";
import { formatDateTime, ROLE_OPTIONS, titleCase } from "./format";
import { QueryStates } from "./query-states";

/** Invite by email, and the pending invitations with resend and revoke (owners and admins). */
export function InvitationsSection({ ws, callerRole }: { ws: string; callerRole: TRole }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<TRole>("developer");
  const [revoking, setRevoking] = useState<{ id: string; email: string } | null>(null);
  const pending = useQuery(trpc.invitations.list.queryOptions({ ws, status: "pending", limit: 100, order: "desc" }));
  const refresh = () => queryClient.invalidateQueries(trpc.invitations.list.pathFilter());
  const create = useMutation(trpc.invitations.create.mutationOptions({ onSuccess: async () => { setEmail(""); await refresh(); } }));
  const resend = useMutation(trpc.invitations.resend.mutationOptions({ onSettled: refresh }));
  const revoke = useMutation(trpc.invitations.revoke.mutationOptions({ onSuccess: async () => { setRevoking(null); await refresh(); } }));
  const roles = ROLE_OPTIONS.filter((r) => r !== "owner" || callerRole === "owner");

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
          We email a link that works once and expires after 7 days. People without a Capstan account create one from the link.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3" aria-label="Invite a member">
          <div className="min-w-0 flex-1 basis-56 space-y-1.5">
            <Label htmlFor="invitation-email">Email address to invite</Label>
            <Input id="invitation-email" name="email" type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
          </div>
          <div className="w-40 space-y-1.5">
            <Label htmlFor="invitation-role">Role to grant</Label>
            <Select id="invitation-role" name="role" value={role} onChange={(e) => setRole(e.target.value as TRole)}>
              {roles.map((r) => (
                <option key={r} value={r}>{titleCase(r)}</option>
              ))}
            </Select>
          </div>
          <Button type="submit" disabled={create.isPending}>
            <Mail aria-hidden="true" />
            {create.isPending ? "Sending…" : "Send invitation"}
          </Button>
        </form>
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
        {create.data && !create.isPending && !create.error ? (
          create.data.email_status === "sent" ? (
            <Alert tone="success">Invitation sent to {create.data.email} as {create.data.role}.</Alert>
          ) : (
            <Alert tone="warning" title="The invitation was saved but the email was not sent">
              {create.data.email_error ?? "The mail server did not accept it."} Resend it once the mail server is reachable.
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
        {pending.data && pending.data.items.length === 0 ? <p className="text-sm text-slate-600">No pending invitations.</p> : null}
        {pending.data && pending.data.items.length > 0 ? (
          <Table>
            <TableCaption>Invitations waiting to be accepted</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Email</TableHead>
                <TableHead>Role</TableHead>
                <TableHead>Invited by</TableHead>
                <TableHead>Expires</TableHead>
                <TableHead>Delivery</TableHead>
                <TableHead><span className="sr-only">Actions</span></TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {pending.data.items.map((i) => (
                <TableRow key={i.id}>
                  <TableCell className="font-medium">{i.email}</TableCell>
                  <TableCell>{titleCase(i.role)}</TableCell>
                  <TableCell>{i.invited_by.name ?? i.invited_by.id}</TableCell>
                  <TableCell>{formatDateTime(i.expires_at)}</TableCell>
                  <TableCell>
                    {i.email_status === "sent" ? <Badge tone="success">Sent</Badge>
                      : i.email_status === "failed" ? <Badge tone="danger" title={i.email_error ?? undefined}>Not sent</Badge>
                      : <Badge>Sending</Badge>}
                  </TableCell>
                  <TableCell>
                    <div className="flex flex-wrap justify-end gap-2">
                      <Button size="sm" variant="secondary" disabled={resend.isPending} aria-label={`Resend the invitation to ${i.email}`}
                        onClick={() => { create.reset(); resend.mutate({ ws, invt: i.id }); }}>
                        <RotateCw aria-hidden="true" />
                        Resend
                      </Button>
                      <Button size="sm" variant="secondary" aria-label={`Revoke the invitation to ${i.email}`}
                        onClick={() => { revoke.reset(); setRevoking({ id: i.id, email: i.email }); }}>
                        <X aria-hidden="true" />
                        Revoke
                      </Button>
                    </div>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ) : null}
        <ConfirmDialog
          open={revoking !== null}
          title="Revoke this invitation?"
          description={revoking ? `The link sent to ${revoking.email} stops working at once. You can invite them again later.` : undefined}
          confirmLabel="Revoke invitation"
          pendingLabel="Revoking…"
          pending={revoke.isPending}
          error={revoke.error}
          onConfirm={() => revoking && revoke.mutate({ ws, invt: revoking.id })}
          onClose={() => setRevoking(null)}
        />
      </CardContent>
    </Card>
  );
}
