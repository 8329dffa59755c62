"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UserPlus } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TRole } from "@/server/domain/identity/access.service";
import { formatDate, ROLE_OPTIONS, titleCase } from "./format";
import { LoadMore } from "./load-more";
import { InvitationsSection } from "./invitations-card";
import { hasRole } from "./nav-config";
import { PageHeader } from "./page-header";
import { Person } from "./person";
import { QueryStates } from "./query-states";
import { RoleGuide } from "./role-guide";

function AddMemberForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<TRole>("developer");
  const add = useMutation(
    trpc.workspaces.addMember.mutationOptions({
      onSuccess: async () => {
        setEmail("");
        await queryClient.invalidateQueries(trpc.workspaces.members.pathFilter());
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    add.mutate({ ws, email, role });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Add an existing account</CardTitle>
        <CardDescription>Adds someone who already has a Capstan account at once, without an email. Adding an existing member changes their role.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <div className="min-w-64 flex-1 space-y-1.5">
            <Label htmlFor="member-email">Email</Label>
            <Input
              id="member-email"
              name="email"
              type="email"
              required
              autoComplete="off"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </div>
          <div className="w-40 space-y-1.5">
            <Label htmlFor="member-role">Role</Label>
            <Select id="member-role" name="role" value={role} onChange={(e) => setRole(e.target.value as TRole)}>
              {ROLE_OPTIONS.map((r) => (
                <option key={r} value={r}>
                  {titleCase(r)}
                </option>
              ))}
            </Select>
          </div>
          <Button type="submit" disabled={add.isPending}>
            <UserPlus aria-hidden="true" />
            {add.isPending ? "Adding…" : "Add member"}
          </Button>
        </form>
        {add.error ? <Alert problem={problemOf(add.error)} /> : null}
        {add.data && !add.isPending && !add.error ? (
          <Alert tone="success">
            {add.data.email} is now {add.data.role} of this workspace.
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** Members table with per-row role change, and the add-member form for admins. */
export function MembersView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const members = useInfiniteQuery(
    trpc.workspaces.members.infiniteQueryOptions(
      { ws, limit: 100, order: "asc" },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const putMember = useMutation(
    trpc.workspaces.putMember.mutationOptions({
      onSettled: () => queryClient.invalidateQueries(trpc.workspaces.members.pathFilter()),
    }),
  );
  const canManage = hasRole(workspace.data?.role, "admin");
  const rows = members.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <>
      <PageHeader
        title="Members"
        description={workspace.data ? `People with access to ${workspace.data.name} and their roles.` : "People with access to this workspace."}
      />
      <div className="space-y-6">
        {workspace.data && !canManage ? (
          <Alert>Only owners and admins can add members or change roles. You are {workspace.data.role}.</Alert>
        ) : null}
        {canManage && workspace.data ? <InvitationsSection ws={ws} callerRole={workspace.data.role} /> : null}
        {canManage ? <AddMemberForm ws={ws} /> : null}

        <Card>
          <CardHeader>
            <CardTitle>Current members</CardTitle>
          </CardHeader>
          <CardContent className="space-y-3 px-0 py-0">
            {putMember.error ? (
              <div className="px-5 pt-4">
                <Alert title="The role was not changed" problem={problemOf(putMember.error)} />
              </div>
            ) : null}
            {putMember.isSuccess ? (
              <div className="px-5 pt-4">
                <Alert tone="success">
                  {putMember.data.email} is now {putMember.data.role}.
                </Alert>
              </div>
            ) : null}
            <QueryStates query={members} what="members" />
            {members.data ? (
              <Table>
                <TableCaption>Members of this workspace</TableCaption>
                <TableHeader>
                  <TableRow>
                    <TableHead>Person</TableHead>
                    <TableHead>Role</TableHead>
                    <TableHead>Member since</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((m) => {
                    const pending = putMember.isPending && putMember.variables?.usr === m.user_id;
                    return (
                      <TableRow key={m.id}>
                        <TableCell>
                          <Person id={m.user_id} person={{ id: m.user_id, name: m.name, email: m.email, member: true }} />
                        </TableCell>
                        <TableCell>
                          <Select
                            aria-label={`Role for ${m.email}`}
                            className="h-8 w-36"
                            value={pending && putMember.variables ? putMember.variables.role : m.role}
                            disabled={!canManage || pending}
                            onChange={(e) => {
                              putMember.reset();
                              putMember.mutate({ ws, usr: m.user_id, role: e.target.value as TRole });
                            }}
                          >
                            {ROLE_OPTIONS.map((r) => (
                              <option key={r} value={r}>
                                {titleCase(r)}
                              </option>
                            ))}
                          </Select>
                        </TableCell>
                        <TableCell>{formatDate(m.created_at)}</TableCell>
                      </TableRow>
                    );
                  })}
                </TableBody>
              </Table>
            ) : null}
            <LoadMore query={members} label="Load more members" className="px-5 pb-4" />
          </CardContent>
        </Card>
        <RoleGuide />
      </div>
    </>
  );
}
