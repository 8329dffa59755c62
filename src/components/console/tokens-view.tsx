"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
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
import { ConfirmDialog } from "./confirm-dialog";
import { formatDateTime } from "./format";
import { OneTimeSecret } from "./one-time-secret";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

const EXPIRY_OPTIONS = [
  { label: "1 hour", seconds: 3600 },
  { label: "1 day", seconds: 86_400 },
  { label: "30 days", seconds: 30 * 86_400 },
  { label: "90 days", seconds: 90 * 86_400 },
] as const;

type TTokenRow = { id: string; name: string; expires_at: string; revoked_at: string | null; last_used_at: string | null; created_at: string };

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
          Tokens authenticate scripts against the REST API as you (<code className="font-mono">Authorization: Bearer …</code>); your
          role in each workspace applies.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <div className="min-w-64 flex-1 space-y-1.5">
            <Label htmlFor="token-name">Token name</Label>
            <Input
              id="token-name"
              name="name"
              required
              maxLength={100}
              autoComplete="off"
              placeholder="e.g. deploy script"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="w-40 space-y-1.5">
            <Label htmlFor="token-expiry">Expires after</Label>
            <Select id="token-expiry" name="ttl_seconds" value={ttl} onChange={(e) => setTtl(Number(e.target.value))}>
              {EXPIRY_OPTIONS.map((o) => (
                <option key={o.seconds} value={o.seconds}>
                  {o.label}
                </option>
              ))}
            </Select>
          </div>
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
  const [confirming, setConfirming] = useState<TTokenRow | null>(null);
  const revoke = useMutation(
    trpc.identity.tokens.revoke.mutationOptions({
      onSuccess: async () => {
        setConfirming(null);
        await queryClient.invalidateQueries(trpc.identity.tokens.list.pathFilter());
      },
    }),
  );
  const [now] = useState(() => Date.now());

  return (
    <>
      <PageHeader title="API tokens" description="Personal tokens for the REST API. They belong to you, not to a workspace." />
      <div className="space-y-6">
        <CreateTokenForm />
        <Card>
          <CardHeader>
            <CardTitle>Your tokens</CardTitle>
          </CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={tokens} what="tokens" empty={tokens.data?.length === 0} emptyText="You have no API tokens yet." />
            {tokens.data && tokens.data.length > 0 ? (
              <Table>
                <TableCaption>Your API tokens</TableCaption>
                <TableHeader>
                  <TableRow>
                    <TableHead>Name</TableHead>
                    <TableHead>Created</TableHead>
                    <TableHead>Expires</TableHead>
                    <TableHead>Last used</TableHead>
                    <TableHead>Status</TableHead>
                    <TableHead>
                      <span className="sr-only">Actions</span>
                    </TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {tokens.data.map((t) => (
                    <TableRow key={t.id}>
                      <TableCell className="font-medium">{t.name}</TableCell>
                      <TableCell>{formatDateTime(t.created_at)}</TableCell>
                      <TableCell>{formatDateTime(t.expires_at)}</TableCell>
                      <TableCell>{formatDateTime(t.last_used_at)}</TableCell>
                      <TableCell>
                        <TokenStatus token={t} now={now} />
                      </TableCell>
                      <TableCell className="text-right">
                        {t.revoked_at ? null : (
                          <Button
                            variant="secondary"
                            size="sm"
                            onClick={() => {
                              revoke.reset();
                              setConfirming(t);
                            }}
                          >
                            Revoke<span className="sr-only"> token {t.name}</span>
                          </Button>
                        )}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            ) : null}
          </CardContent>
        </Card>
      </div>

      <ConfirmDialog
        open={confirming !== null}
        onClose={() => setConfirming(null)}
        title={`Revoke token "${confirming?.name ?? ""}"?`}
        description="Scripts using it get 401 Unauthorized from their next request. This cannot be undone."
        confirmLabel="Revoke token"
        pendingLabel="Revoking…"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => confirming && revoke.mutate({ id: confirming.id })}
      />
    </>
  );
}
