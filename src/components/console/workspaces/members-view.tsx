"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UserPlus } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TRole } from "@/server/domain/identity/workspace-access.service";
import { formatDate } from "../shared/format";
import { InvitationsSection } from "../invitations/invitations-card";
import { hasRole } from "../shell/nav-config";
import { PageHeader } from "../shared/page-header";
import { Person } from "../shared/person";
import type { TColumn } from "../shared/resource-table";
import { RoleSelect } from "../shared/role-select";
import { TableCard } from "../shared/table-card";
import { RoleGuide } from "./role-guide";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";

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
    <SectionCard
      title="Add an existing account"
      description="Adds someone who already has a Capstan account at once, without an email. Adding an existing member changes their role."
      contentClassName="space-y-3"
    >
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
        <TextField
          id="member-email"
          label="Email"
          className="min-w-64 flex-1"
          name="email"
          type="email"
          required
          autoComplete="off"
          value={email}
          onValue={setEmail}
        />
        <Field id="member-role" label="Role" className="w-40">
          <RoleSelect id="member-role" name="role" value={role} onRole={setRole} />
        </Field>
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
    </SectionCard>
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
  const columns: TColumn<(typeof rows)[number]>[] = [
    {
      key: "person",
      label: "Person",
      cell: (m) => <Person id={m.user_id} person={{ id: m.user_id, name: m.name, email: m.email, member: true }} />,
    },
    {
      key: "role",
      label: "Role",
      cell: (m) => {
        const pending = putMember.isPending && putMember.variables?.usr === m.user_id;
        return (
          <RoleSelect
            aria-label={`Role for ${m.email}`}
            className="h-8 w-36"
            value={pending && putMember.variables ? putMember.variables.role : m.role}
            disabled={!canManage || pending}
            onRole={(role) => {
              putMember.reset();
              putMember.mutate({ ws, usr: m.user_id, role });
            }}
          />
        );
      },
    },
    { key: "since", label: "Member since", priority: 2, cell: (m) => formatDate(m.created_at) },
  ];

  return (
    <>
      <PageHeader
        title="Members"
        description={
          workspace.data
            ? `People with access to ${workspace.data.name} and their roles.`
            : "People with access to this workspace."
        }
      />
      <div className="space-y-6">
        {workspace.data && !canManage ? (
          <Alert>Only owners and admins can add members or change roles. You are {workspace.data.role}.</Alert>
        ) : null}
        {canManage && workspace.data ? <InvitationsSection ws={ws} callerRole={workspace.data.role} /> : null}
        {canManage ? <AddMemberForm ws={ws} /> : null}

        <TableCard
          title="Current members"
          notice={
            putMember.error ? (
              <Alert title="The role was not changed" problem={problemOf(putMember.error)} />
            ) : putMember.isSuccess ? (
              <Alert tone="success">
                {putMember.data.email} is now {putMember.data.role}.
              </Alert>
            ) : null
          }
          query={members}
          what="members"
          emptyText="No members."
          loadMoreLabel="Load more members"
          caption="Members of this workspace"
          columns={columns}
          rows={rows}
        />
        <RoleGuide />
      </div>
    </>
  );
}
