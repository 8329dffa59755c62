"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableActionsHead, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, type TProblemView } from "@/lib/trpc/client";
import { CAPABILITY_RULES, type TCapabilityId } from "@/server/domain/source/contract-rules";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmDialog } from "./confirm-dialog";
import { RelativeTime } from "./relative-time";
import { RenameButton } from "./rename-dialog";
import { LoadMore } from "./load-more";
import { SecretField } from "./one-time-secret";
import { OverlapField, SecretState } from "./secret-rotation";
import { AdminOnly } from "./admin-only";
import { workspaceHref } from "./nav-config";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

type TIdentity = inferRouterOutputs<AppRouter>["serviceIdentities"]["list"]["items"][number];
type TEnvironment = NonNullable<TIdentity["environment_type"]>;
const ENVIRONMENTS: TEnvironment[] = ["preview", "staging", "production"];
type TSecret = { title: string; clientId: string; secret: string };

/** Capabilities and their actions (spec 2.7), in the order the permission picker shows them. */
const PERMISSION_CAPABILITIES: TCapabilityId[] = ["ai.generate", "storage.object", "data.kv", "email.send"];
const IMMUTABLE_NOTE = "Permissions cannot be changed later: to change them, create a new identity and revoke the old one.";

/** The permission strings of a selection: `<cap>:*` replaces that capability's single actions. */
function permissionsOf(selected: ReadonlySet<string>): string[] {
  return PERMISSION_CAPABILITIES.flatMap((cap) =>
    selected.has(`${cap}:*`) ? [`${cap}:*`] : CAPABILITY_RULES[cap].actions.map((a) => `${cap}:${a}`).filter((p) => selected.has(p)),
  );
}

type TPermissionMode = "all" | "only";

/**
 * "Bridge permissions" of a new identity: every action of the product's
 * contract, or only the ticked ones. Server errors at `/permissions` and
 * `/permissions/<i>` are shown here, naming the permission they concern.
 */
function PermissionsField({
  mode, onMode, selected, onSelected, problem, sent,
}: {
  mode: TPermissionMode;
  onMode: (m: TPermissionMode) => void;
  selected: ReadonlySet<string>;
  onSelected: (s: Set<string>) => void;
  problem: TProblemView | null;
  sent: readonly string[];
}) {
  const errors =
    mode === "only" ? (problem?.errors ?? []).filter((e) => e.path === "/permissions" || e.path.startsWith("/permissions/")) : [];
  const toggle = (perm: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(perm);
    else next.delete(perm);
    onSelected(next);
  };
  const radio = (value: TPermissionMode, label: string) => (
    <label className="flex items-center gap-2 text-sm">
      <input type="radio" name="si-permission-mode" className="size-4" value={value} checked={mode === value} onChange={() => onMode(value)} />
      {label}
    </label>
  );
  return (
    <fieldset className="space-y-2" aria-describedby="si-permissions-hint si-permissions-errors">
      <legend className="text-sm font-medium text-slate-800">Bridge permissions</legend>
      <p id="si-permissions-hint" className="text-xs text-slate-600">
        What this identity may call, on top of its product&apos;s contract (an action outside the contract is always denied). {IMMUTABLE_NOTE}
      </p>
      <div className="flex flex-wrap gap-x-6 gap-y-2">
        {radio("all", "All actions in the product's contract")}
        {radio("only", "Only these actions")}
      </div>
      {mode === "only" ? (
        <div className="grid gap-3 rounded-md border border-slate-200 p-3 sm:grid-cols-2 lg:grid-cols-4">
          {PERMISSION_CAPABILITIES.map((cap) => {
            const all = selected.has(`${cap}:*`);
            return (
              <fieldset key={cap} className="space-y-1.5">
                <legend className="font-mono text-xs font-medium text-slate-800">{cap}</legend>
                <label className="flex items-center gap-2 text-sm">
                  <input type="checkbox" className="size-4" checked={all} onChange={(e) => toggle(`${cap}:*`, e.target.checked)} />
                  <span>
                    All actions of this capability{" "}
                    <code className="font-mono text-xs text-slate-600">{cap}:*</code>
                  </span>
                </label>
                {CAPABILITY_RULES[cap].actions.map((a) => (
                  <label key={a} className="flex items-center gap-2 pl-6 text-sm">
                    <input
                      type="checkbox"
                      className="size-4"
                      checked={all || selected.has(`${cap}:${a}`)}
                      disabled={all}
                      onChange={(e) => toggle(`${cap}:${a}`, e.target.checked)}
                    />
                    <code className="font-mono text-xs">
                      <span className="sr-only">{cap}:</span>
                      {a}
                    </code>
                  </label>
                ))}
              </fieldset>
            );
          })}
        </div>
      ) : null}
      {mode === "only" && selected.size === 0 && !errors.length ? (
        <p className="text-xs text-slate-600">Tick at least one action, or allow all actions in the product&apos;s contract.</p>
      ) : null}
      <ul id="si-permissions-errors" className="space-y-0.5 text-xs text-rose-700">
        {errors.map((e, i) => {
          const index = /^\/permissions\/(\d+)/.exec(e.path)?.[1];
          const which = index !== undefined ? sent[Number(index)] : undefined;
          return (
            <li key={`${e.path}-${i}`}>
              {which ? <code className="font-mono">{which}</code> : <code className="font-mono">{e.path}</code>}: {e.message}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}

/** An identity's permissions as chips, or "All contract actions" when it has none (null). */
function PermissionChips({ permissions }: { permissions: string[] | null }) {
  if (!permissions) return <span className="text-xs text-slate-600">All contract actions</span>;
  return (
    <ul className="flex max-w-64 flex-wrap gap-1" aria-label="Bridge permissions">
      {permissions.map((p) => (
        <li key={p}>
          <Badge className="font-mono" title={p.endsWith(":*") ? `Every action of ${p.slice(0, -2)}` : undefined}>
            {p}
          </Badge>
        </li>
      ))}
    </ul>
  );
}

/** The one-time client secret of a new or rotated identity. */
function SecretOnce({ shown, onDone }: { shown: TSecret; onDone: () => void }) {
  return (
    <Alert tone="warning" title={shown.title}>
      <p>
        Copy the client secret now: it will not be shown again, and Capstan keeps only its hash. Store it in your secret manager; anyone
        holding it can call the Bridge as this identity.
      </p>
      <div className="grid gap-3 pt-2 sm:grid-cols-2">
        <SecretField id="si-client-id" label="Client ID" value={shown.clientId} copyLabel="Copy client id" />
        <SecretField id="si-client-secret" label="Client secret" value={shown.secret} copyLabel="Copy client secret" />
      </div>
      <p className="pt-2 text-xs">
        Get a Bridge token: <code className="font-mono">POST /v1/oauth/token</code> with <code className="font-mono">grant_type=client_credentials</code>{" "}
        and the client ID and secret (HTTP Basic). Tokens last 10 minutes.
      </p>
      <Button variant="ghost" onClick={onDone}>
        Done
      </Button>
    </Alert>
  );
}

function CreateIdentityForm({ ws, onSecret }: { ws: string; onSecret: (s: TSecret) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const [name, setName] = useState("");
  const [product, setProduct] = useState("");
  const [environment, setEnvironment] = useState<TEnvironment | "">("");
  const [federate, setFederate] = useState(false);
  const [fed, setFed] = useState({ issuer: "", subject: "", audience: "" });
  const [permissionMode, setPermissionMode] = useState<TPermissionMode>("all");
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [sentPermissions, setSentPermissions] = useState<string[]>([]);
  const create = useMutation(
    trpc.serviceIdentities.create.mutationOptions({
      onSuccess: async (data) => {
        onSecret({ title: `Service identity "${data.name}" created`, clientId: data.client_id, secret: data.client_secret! /* always present outside an idempotent replay */ });
        setName("");
        setFederate(false);
        setFed({ issuer: "", subject: "", audience: "" });
        setPermissionMode("all");
        setSelected(new Set());
        await queryClient.invalidateQueries(trpc.serviceIdentities.list.pathFilter());
      },
    }),
  );
  const problem = problemOf(create.error);
  const invalid = (path: string) => (problem?.errors?.some((e) => e.path === path) ? true : undefined);

  function submit(e: FormEvent) {
    e.preventDefault();
    // "Only these actions" with nothing ticked is sent as [] so the server's 422 says why, next to the control.
    const permissions = permissionMode === "only" ? permissionsOf(selected) : undefined;
    setSentPermissions(permissions ?? []);
    create.mutate({
      ws,
      name: name.trim(),
      product_id: product,
      ...(environment ? { environment_type: environment } : {}),
      ...(federate ? { federation: { issuer: fed.issuer.trim(), subject: fed.subject.trim(), audience: fed.audience.trim() } } : {}),
      ...(permissions ? { permissions } : {}),
    });
  }

  const rows = products.data?.items ?? [];
  return (
    <Card>
      <CardHeader>
        <CardTitle>New service identity</CardTitle>
        <CardDescription>
          A non-human caller of the Bridge, bound to one product (the Bridge checks the contract of its active revision) and optionally to
          one environment. It authenticates with a client secret, or, with federation, by exchanging an OIDC token from your CI or cloud
          (no stored secret).
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="space-y-4" noValidate>
          <div className="grid gap-3 sm:grid-cols-3">
            <div className="space-y-1.5">
              <Label htmlFor="si-name">Name</Label>
              <Input id="si-name" required maxLength={100} autoComplete="off" value={name} aria-invalid={invalid("/name")} onChange={(e) => setName(e.target.value)} />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="si-product">Product</Label>
              <Select id="si-product" required value={product} aria-invalid={invalid("/product_id")} onChange={(e) => setProduct(e.target.value)}>
                <option value="">{products.isPending ? "Loading products…" : rows.length ? "Choose a product" : "No products yet"}</option>
                {rows.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name} · {p.repo_url} ({p.ref})
                  </option>
                ))}
              </Select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="si-env">Environment</Label>
              <Select id="si-env" value={environment} onChange={(e) => setEnvironment(e.target.value as TEnvironment | "")}>
                <option value="">Any environment</option>
                {ENVIRONMENTS.map((env) => (
                  <option key={env} value={env}>
                    {env}
                  </option>
                ))}
              </Select>
            </div>
          </div>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" className="size-4" checked={federate} onChange={(e) => setFederate(e.target.checked)} />
            Allow OIDC token exchange (federation)
          </label>
          {federate ? (
            <fieldset className="grid gap-3 sm:grid-cols-3">
              <legend className="sr-only">Federation</legend>
              {(
                [
                  ["issuer", "Issuer URL", "https://token.actions.githubusercontent.com"],
                  ["subject", "Subject (exact sub claim)", "repo:acme/shop:ref:refs/heads/main"],
                  ["audience", "Audience", "capstan"],
                ] as const
              ).map(([key, label, placeholder]) => (
                <div key={key} className="space-y-1.5">
                  <Label htmlFor={`si-fed-${key}`}>{label}</Label>
                  <Input
                    id={`si-fed-${key}`}
                    required
                    maxLength={key === "issuer" ? 512 : 255}
                    autoComplete="off"
                    placeholder={placeholder}
                    value={fed[key]}
                    aria-invalid={invalid(`/federation/${key}`)}
                    onChange={(e) => setFed({ ...fed, [key]: e.target.value })}
                  />
                </div>
              ))}
            </fieldset>
          ) : null}
          <PermissionsField
            mode={permissionMode}
            onMode={setPermissionMode}
            selected={selected}
            onSelected={setSelected}
            problem={problem}
            sent={sentPermissions}
          />
          <Button type="submit" disabled={create.isPending || !name.trim() || !product}>
            <Plus aria-hidden="true" />
            {create.isPending ? "Creating…" : "Create service identity"}
          </Button>
        </form>
        {problem ? <Alert problem={problem} /> : null}
        {products.error ? <Alert title="Products could not be loaded" problem={problemOf(products.error)} /> : null}
      </CardContent>
    </Card>
  );
}

type TConfirm = { kind: "rotate" | "revoke" | "revoke-previous"; identity: TIdentity } | null;

function IdentitiesCard({ ws, onSecret }: { ws: string; onSecret: (s: TSecret) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(
    trpc.serviceIdentities.list.infiniteQueryOptions({ ws, limit: 50, order: "desc" }, { getNextPageParam: (p) => p.next_cursor ?? undefined }),
  );
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const productName = new Map((products.data?.items ?? []).map((p) => [p.id, p.name]));
  const [confirm, setConfirm] = useState<TConfirm>(null);
  const [overlap, setOverlap] = useState(0);
  const invalidate = () => queryClient.invalidateQueries(trpc.serviceIdentities.list.pathFilter());
  const rotate = useMutation(
    trpc.serviceIdentities.rotateSecret.mutationOptions({
      onSuccess: async (data) => {
        setConfirm(null);
        onSecret({ title: `New client secret for "${data.name}"`, clientId: data.client_id, secret: data.client_secret! /* always present outside an idempotent replay */ });
        await invalidate();
      },
    }),
  );
  const revoke = useMutation(
    trpc.serviceIdentities.revoke.mutationOptions({
      onSuccess: async () => {
        setConfirm(null);
        await invalidate();
      },
    }),
  );
  const revokePrevious = useMutation(
    trpc.serviceIdentities.revokePreviousSecret.mutationOptions({
      onSuccess: async () => {
        setConfirm(null);
        await invalidate();
      },
    }),
  );
  const rename = useMutation(trpc.serviceIdentities.rename.mutationOptions({ onSuccess: () => invalidate() }));
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const rotating = confirm?.kind === "rotate";
  const action = confirm?.kind === "rotate" ? rotate : confirm?.kind === "revoke-previous" ? revokePrevious : revoke;

  return (
    <>
      <Card>
        <CardHeader>
          <CardTitle>Service identities</CardTitle>
          <CardDescription>{IMMUTABLE_NOTE}</CardDescription>
        </CardHeader>
        <CardContent className="px-0 py-0">
          <QueryStates query={list} what="service identities" empty={rows.length === 0} emptyText="No service identities yet." />
          {rows.length > 0 ? (
            <Table>
              <TableCaption>Service identities of this workspace</TableCaption>
              <TableHeader>
                <TableRow>
                  <TableHead>Name</TableHead>
                  <TableHead>Status</TableHead>
                  <TableHead>Scope</TableHead>
                  <TableHead>Bridge permissions</TableHead>
                  <TableHead>Last token</TableHead>
                  <TableActionsHead />
                </TableRow>
              </TableHeader>
              <TableBody>
                {rows.map((si) => (
                  <TableRow key={si.id}>
                    <TableCell>
                      <div className="font-medium break-words">{si.name}</div>
                      <code className="font-mono text-xs text-slate-600">{si.client_id}</code>
                    </TableCell>
                    <TableCell>
                      <div>
                        {si.status === "active" ? <Badge tone="success">Active</Badge> : <Badge tone="danger">Revoked</Badge>}
                        {si.revoked_at ? (
                          <div className="pt-1 text-xs text-slate-600">
                            <RelativeTime iso={si.revoked_at} />
                          </div>
                        ) : null}
                        {si.status === "active" ? (
                          <div className="pt-1 text-xs">
                            <SecretState rotatedAt={si.secret_rotated_at} previousExpiresAt={si.previous_secret_expires_at} />
                          </div>
                        ) : null}
                      </div>
                    </TableCell>
                    <TableCell className="max-w-64 text-xs break-all">
                      <div>
                        <div>
                          Product{" "}
                          {si.product_id ? (
                            <Link href={workspaceHref(ws, `/products/${si.product_id}`)} className="underline underline-offset-2">
                              {productName.get(si.product_id) ?? si.product_id}
                            </Link>
                          ) : (
                            "—"
                          )}
                        </div>
                        <div className="text-slate-600">Environment: {si.environment_type ?? "any"}</div>
                        {si.federation ? (
                          <div className="text-slate-600">
                            OIDC {si.federation.issuer} (sub {si.federation.subject}, aud {si.federation.audience})
                          </div>
                        ) : null}
                      </div>
                    </TableCell>
                    <TableCell>
                      <PermissionChips permissions={si.permissions} />
                    </TableCell>
                    <TableCell className="whitespace-nowrap">
                      <RelativeTime iso={si.last_token_at} />
                    </TableCell>
                    <TableCell sticky>
                      <div className="flex flex-wrap justify-end gap-2 sm:w-44">
                        <RenameButton
                          what="service identity"
                          current={si.name}
                          mutation={{ ...rename, mutate: (name, opts) => rename.mutate({ ws, svc: si.id, name }, opts) }}
                        />
                        {si.status === "active" ? (
                          <>
                            <Button variant="secondary" size="sm" disabled={si.previous_secret_expires_at !== null} title={si.previous_secret_expires_at ? "Revoke the previous secret (or wait until it expires) before rotating again" : undefined} onClick={() => {
                                rotate.reset();
                                setOverlap(0);
                                setConfirm({ kind: "rotate", identity: si });
                              }}>
                              Rotate secret<span className="sr-only"> of {si.name}</span>
                            </Button>
                            {si.previous_secret_expires_at ? (
                              <Button variant="secondary" size="sm" onClick={() => {
                                  revokePrevious.reset();
                                  setConfirm({ kind: "revoke-previous", identity: si });
                                }}>
                                Revoke previous secret<span className="sr-only"> of {si.name}</span>
                              </Button>
                            ) : null}
                            <Button variant="danger" size="sm" onClick={() => {
                                revoke.reset();
                                setConfirm({ kind: "revoke", identity: si });
                              }}>
                              Revoke<span className="sr-only"> {si.name}</span>
                            </Button>
                          </>
                        ) : null}
                      </div>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          ) : null}
          <LoadMore query={list} />
        </CardContent>
      </Card>
      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title={rotating ? "Rotate the client secret?" : confirm?.kind === "revoke-previous" ? "Revoke the previous client secret?" : "Revoke this service identity?"}
        description={
          confirm?.kind === "rotate"
            ? `"${confirm.identity.name}" gets a new secret, shown once. Choose how long the current one keeps working, so running apps can switch without downtime.`
            : confirm?.kind === "revoke-previous"
              ? `The previous secret of "${confirm.identity.name}" stops working now, and so do Bridge tokens obtained with it (within seconds).`
              : `"${confirm?.identity.name ?? ""}" can no longer get tokens, and its existing Bridge tokens stop working within seconds. This cannot be undone.`
        }
        variant={confirm?.kind === "rotate" ? "primary" : "danger"}
        confirmLabel={rotating ? "Rotate secret" : "Revoke"}
        pendingLabel={rotating ? "Rotating…" : "Revoking…"}
        pending={action.isPending}
        disabled={rotate.isPending || revoke.isPending || revokePrevious.isPending}
        error={action.error}
        onConfirm={() => {
          if (!confirm) return;
          if (confirm.kind === "rotate") rotate.mutate({ ws, svc: confirm.identity.id, previous_secret_expires_in: overlap });
          else if (confirm.kind === "revoke-previous") revokePrevious.mutate({ ws, svc: confirm.identity.id });
          else revoke.mutate({ ws, svc: confirm.identity.id });
        }}
      >
        {rotating ? (
          <OverlapField
            id="si-rotate-overlap"
            value={overlap}
            onChange={setOverlap}
            hint={overlap === 0
              ? "The current secret and every Bridge token obtained with it stop working at once."
              : "Until then both secrets get tokens; tokens obtained with the old one live until they expire (10 minutes). You can revoke the old secret early."}
          />
        ) : null}
      </ConfirmDialog>
    </>
  );
}

/** Service identities of a workspace: create (secret shown once), rotate, revoke. Owners and admins only. */
export function ServiceIdentitiesView({ ws }: { ws: string }) {
  const [secret, setSecret] = useState<TSecret | null>(null);
  return (
    <>
      <PageHeader
        title="Service identities"
        description="Machine credentials for calling the Bridge: OAuth client credentials or OIDC token exchange (POST /v1/oauth/token)."
      />
      <div className="space-y-6">
        <AdminOnly ws={ws} what="see and manage service identities">
          <>
            {secret ? <SecretOnce shown={secret} onDone={() => setSecret(null)} /> : null}
            <CreateIdentityForm ws={ws} onSecret={setSecret} />
            <IdentitiesCard ws={ws} onSecret={setSecret} />
          </>
        </AdminOnly>
      </div>
    </>
  );
}
