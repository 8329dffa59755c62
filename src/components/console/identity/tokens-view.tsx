"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { ConfirmAction } from "../shared/confirm-action";
import { formatDateTime } from "../shared/format";
import { OneTimeSecret } from "../shared/one-time-secret";
import { PageHeader } from "../shared/page-header";
import { actionsColumn, type TColumn } from "../shared/resource-table";
import { TableCard } from "../shared/table-card";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";

const EXPIRY_OPTIONS = [
  { label: "1 hour", seconds: 3600 },
  { label: "1 day", seconds: 86_400 },
  { label: "30 days", seconds: 30 * 86_400 },
  { label: "90 days", seconds: 90 * 86_400 },
] as const;

type TTokenRow = {
  id: string;
  name: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
};

function CreateTokenForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [ttl, setTtl] = useState<number>(30 * 86_400);
  const create = useMutation(
    trpc.identity.tokens.create.mutationOptions({
      onSuccess: async () => {
        setName("");
        await queryClient.invalidateQueries(trpc.identity.tokens.list.pathFilter());
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name, ttl_seconds: ttl });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Create token</CardTitle>
        <CardDescription>
          Tokens authenticate scripts against the REST API as you (
          <code className="font-mono">Authorization: Bearer …</code>); your role in each workspace applies.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <TextField
            id="token-name"
            label="Token name"
            className="min-w-64 flex-1"
            name="name"
            required
            maxLength={100}
            autoComplete="off"
            placeholder="e.g. deploy script"
            value={name}
            onValue={setName}
          />
          <Field id="token-expiry" label="Expires after" className="w-40">
            <Select id="token-expiry" name="ttl_seconds" value={ttl} onChange={(e) => setTtl(Number(e.target.value))}>
              {EXPIRY_OPTIONS.map((o) => (
                <option key={o.seconds} value={o.seconds}>
                  {o.label}
                </option>
              ))}
            </Select>
          </Field>
          <Button type="submit" disabled={create.isPending}>
            <KeyRound aria-hidden="true" />
            {create.isPending ? "Creating…" : "Create token"}
          </Button>
        </form>
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
        {create.data ? (
          <OneTimeSecret
            title={`Token "${create.data.name}" created`}
            warning="Copy it now: it will not be shown again. Anyone holding it can act as you through the API."
            id="new-token"
            label="New API token"
            value={create.data.token}
            copyLabel="Copy token"
            onDone={() => create.reset()}
          />
        ) : null}
      </CardContent>
    </Card>
  );
}

function TokenStatus({ token, now }: { token: TTokenRow; now: number }) {
  if (token.revoked_at) return <Badge tone="danger">Revoked {formatDateTime(token.revoked_at)}</Badge>;
  if (new Date(token.expires_at).getTime() <= now) return <Badge tone="warning">Expired</Badge>;
  return <Badge tone="success">Active</Badge>;
}

/** The caller's personal API tokens: create (secret shown once), list and revoke. */
export function TokensView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.identity.tokens.list.queryOptions());
  const [now] = useState(() => Date.now());
  const columns: TColumn<TTokenRow>[] = [
    { key: "name", label: "Name", rowHeader: true, cell: (t) => t.name },
    { key: "created", label: "Created", priority: 3, cell: (t) => formatDateTime(t.created_at) },
    { key: "expires", label: "Expires", priority: 2, cell: (t) => formatDateTime(t.expires_at) },
    { key: "last-used", label: "Last used", priority: 2, cell: (t) => formatDateTime(t.last_used_at) },
    { key: "status", label: "Status", cell: (t) => <TokenStatus token={t} now={now} /> },
    actionsColumn((t) =>
      t.revoked_at ? null : (
        <ConfirmAction
          mutation={trpc.identity.tokens.revoke.mutationOptions()}
          variables={{ id: t.id }}
          onDone={() => queryClient.invalidateQueries(trpc.identity.tokens.list.pathFilter())}
          label="Revoke"
          srLabel={`token ${t.name}`}
          variant="secondary"
          confirmVariant="danger"
          title={`Revoke token "${t.name}"?`}
          description="Scripts using it get 401 Unauthorized from their next request. This cannot be undone."
          confirmLabel="Revoke token"
          pendingLabel="Revoking…"
        />
      ),
    ),
  ];

  return (
    <>
      <PageHeader
        title="API tokens"
        description="Personal tokens for the REST API and the capstan CLI (capstan login --token …). They belong to you, not to a workspace."
      />
      <div className="space-y-6">
        <CreateTokenForm />
        <TableCard
          title="Your tokens"
          query={tokens}
          what="tokens"
          emptyText="You have no API tokens yet."
          caption="Your API tokens"
          columns={columns}
        />
      </div>
    </>
  );
}
