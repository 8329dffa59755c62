"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { Lock } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Input, inputClass } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { CAPABILITY_RULES, type TCapabilityId } from "@/server/domain/source/contract-rules";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmDialog } from "./confirm-dialog";
import { formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { AdminOnly } from "./admin-only";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

export type TCredentialRow = inferRouterOutputs<AppRouter>["credentials"]["list"]["items"][number];

export const CAPABILITY_IDS = Object.keys(CAPABILITY_RULES) as TCapabilityId[];
const SOON_MS = 14 * 86_400_000;
const textareaClass = cn(inputClass, "h-auto min-h-20 py-2 font-mono text-xs");

/** Lines of a textarea, trimmed, empty lines dropped. */
export const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter(Boolean);

/** Revoked, expired, expiring within 14 days, or active: drives the badge and the row highlight. */
export function credentialState(c: Pick<TCredentialRow, "revoked_at" | "expires_at">, now = Date.now()) {
  if (c.revoked_at) return { label: "Revoked", tone: "neutral" as const };
  const left = new Date(c.expires_at).getTime() - now;
  if (left <= 0) return { label: "Expired", tone: "danger" as const };
  if (left < SOON_MS) return { label: `Expires in ${Math.max(1, Math.ceil(left / 86_400_000))} d`, tone: "warning" as const };
  return { label: "Active", tone: "success" as const };
}

/** `datetime-local` value (local time) -> ISO 8601 UTC with Z. */
function localToIso(value: string): string {
  return new Date(value).toISOString();
}
function isoToLocal(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function CreateCredentialForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [provider, setProvider] = useState("");
  const [capability, setCapability] = useState<TCapabilityId>("ai.generate");
  const [actions, setActions] = useState<string[]>(["generate"]);
  const [scope, setScope] = useState("");
  const [expires, setExpires] = useState(() => isoToLocal(new Date(Date.now() + 90 * 86_400_000)));
  const [secret, setSecret] = useState("");
  const create = useMutation(
    trpc.credentials.create.mutationOptions({
      onSuccess: async () => {
        setProvider("");
        setScope("");
        await queryClient.invalidateQueries(trpc.credentials.list.pathFilter());
      },
      // The secret leaves the page once: success or failure, the field is cleared.
      onSettled: () => setSecret(""),
    }),
  );

  function pickCapability(id: TCapabilityId) {
    setCapability(id);
    setActions([...CAPABILITY_RULES[id].actions]);
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ ws, secret, provider: provider.trim(), capability, actions, scope: lines(scope), expires_at: localToIso(expires) });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Add credential</CardTitle>
        <CardDescription>
          The secret is encrypted at rest and is write-only: it is never shown again, not even to you. Bind the credential to a capability
          on the Provider bindings page.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="space-y-4" autoComplete="off">
          <div className="grid gap-3 sm:grid-cols-3">
            <div className="space-y-1.5">
              <Label htmlFor="cred-provider">Provider</Label>
              <Input id="cred-provider" required maxLength={128} placeholder="openai, anthropic, smtp, s3…" value={provider} onChange={(e) => setProvider(e.target.value)} />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="cred-capability">Capability</Label>
              <Select id="cred-capability" value={capability} onChange={(e) => pickCapability(e.target.value as TCapabilityId)}>
                {CAPABILITY_IDS.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </Select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="cred-expires">Expires</Label>
              <Input id="cred-expires" type="datetime-local" required value={expires} onChange={(e) => setExpires(e.target.value)} />
            </div>
          </div>
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-slate-800">Actions</legend>
            <div className="flex flex-wrap gap-4">
              {CAPABILITY_RULES[capability].actions.map((a) => (
                <label key={a} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="size-4"
                    checked={actions.includes(a)}
                    onChange={(e) => setActions((prev) => (e.target.checked ? [...prev, a] : prev.filter((x) => x !== a)))}
                  />
                  <code className="font-mono text-xs">{a}</code>
                </label>
              ))}
            </div>
          </fieldset>
          <div className="grid gap-3 sm:grid-cols-2">
            <div className="space-y-1.5">
              <Label htmlFor="cred-scope">Scope (one per line, optional)</Label>
              <textarea
                id="cred-scope"
                className={textareaClass}
                placeholder={"models/gpt-*\nbucket/assets"}
                value={scope}
                onChange={(e) => setScope(e.target.value)}
              />
              <p className="text-xs text-slate-600">A trailing * covers every binding scope that starts with what precedes it.</p>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="cred-secret">Secret</Label>
              <Input
                id="cred-secret"
                type="password"
                required
                autoComplete="off"
                spellCheck={false}
                maxLength={16384}
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
              />
              <p className="text-xs text-slate-600">API key, SMTP password or access key. Never displayed after you save.</p>
            </div>
          </div>
          <Button type="submit" disabled={create.isPending || !secret || !provider.trim() || actions.length === 0}>
            <Lock aria-hidden="true" />
            {create.isPending ? "Saving…" : "Save credential"}
          </Button>
        </form>
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
        {create.data && !create.isPending && !create.error ? (
          <Alert tone="success">
            Credential <code className="font-mono">{create.data.id}</code> saved. Its secret is stored encrypted and will not be shown again.
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}

function CredentialsTable({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(
    trpc.credentials.list.infiniteQueryOptions({ ws, limit: 50, order: "desc" }, { getNextPageParam: (p) => p.next_cursor ?? undefined }),
  );
  const [confirm, setConfirm] = useState<TCredentialRow | null>(null);
  const revoke = useMutation(
    trpc.credentials.revoke.mutationOptions({
      onSuccess: async () => {
        setConfirm(null);
        await queryClient.invalidateQueries(trpc.credentials.pathFilter());
        await queryClient.invalidateQueries(trpc.bindings.pathFilter());
      },
    }),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <>
      <Card>
        <CardHeader>
          <CardTitle>Credentials</CardTitle>
        </CardHeader>
        <CardContent className="px-0 py-0">
          <QueryStates query={list} what="credentials" empty={rows.length === 0} emptyText="No credentials yet." />
          {rows.length > 0 ? (
            <Table>
              <TableCaption>Credentials of this workspace</TableCaption>
              <TableHeader>
                <TableRow>
                  <TableHead>Provider</TableHead>
                  <TableHead>Capability</TableHead>
                  <TableHead>Actions</TableHead>
                  <TableHead>Scope</TableHead>
                  <TableHead>Expiry</TableHead>
                  <TableHead>
                    <span className="sr-only">Revoke</span>
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {rows.map((c) => {
                  const state = credentialState(c);
                  return (
                    <TableRow key={c.id} className={cn(state.tone === "danger" && "bg-rose-50/60", state.tone === "warning" && "bg-amber-50/60", c.revoked_at && "text-slate-600")}>
                      <TableCell>
                        <div className="font-medium">{c.provider}</div>
                        <code className="font-mono text-xs text-slate-600">{c.id}</code>
                      </TableCell>
                      <TableCell>
                        <code className="font-mono text-xs">{c.capability}</code>
                      </TableCell>
                      <TableCell>
                        <div className="flex max-w-56 flex-wrap gap-1">
                          {c.actions.map((a) => (
                            <Badge key={a}>{a}</Badge>
                          ))}
                        </div>
                      </TableCell>
                      <TableCell className="max-w-56 font-mono text-xs break-words text-slate-600">
                        {c.scope.length ? c.scope.slice(0, 3).join(", ") + (c.scope.length > 3 ? ` +${c.scope.length - 3}` : "") : "—"}
                      </TableCell>
                      <TableCell>
                        <Badge tone={state.tone}>{state.label}</Badge>
                        <div className="pt-1 text-xs text-slate-600">{formatDateTime(c.revoked_at ?? c.expires_at)}</div>
                      </TableCell>
                      <TableCell className="text-right">
                        {c.revoked_at ? null : (
                          <Button
                            variant="danger"
                            size="sm"
                            onClick={() => {
                              revoke.reset();
                              setConfirm(c);
                            }}
                          >
                            Revoke<span className="sr-only"> {c.provider} credential {c.id}</span>
                          </Button>
                        )}
                      </TableCell>
                    </TableRow>
                  );
                })}
              </TableBody>
            </Table>
          ) : null}
          <LoadMore query={list} label="Load more credentials" />
        </CardContent>
      </Card>
      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title="Revoke this credential?"
        description={`${confirm?.provider ?? ""} (${confirm?.capability ?? ""}) stops working at once, its secret is destroyed, and every provider binding that uses it is revoked. This cannot be undone.`}
        confirmLabel="Revoke credential"
        pendingLabel="Revoking…"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => confirm && revoke.mutate({ ws, cred: confirm.id })}
      />
    </>
  );
}

/** Credentials of a workspace: add (secret write-only), list with expiry state, revoke. Owners and admins only. */
export function CredentialsView({ ws }: { ws: string }) {
  return (
    <>
      <PageHeader
        title="Credentials"
        description={
          ws === "ws_platform"
            ? "Platform credentials: usable by every workspace for capabilities whose credential owner is the platform (data.kv)."
            : "Provider secrets this workspace's bindings use. Secrets are write-only."
        }
      />
      <div className="space-y-6">
        <AdminOnly ws={ws} what="see and manage credentials">
          <>
            <CreateCredentialForm ws={ws} />
            <CredentialsTable ws={ws} />
          </>
        </AdminOnly>
      </div>
    </>
  );
}
