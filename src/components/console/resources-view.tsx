"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { Database, Link2, Unlink } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmDialog } from "./confirm-dialog";
import { formatBytes, formatDateTime } from "./format";
import { LoadMore } from "./load-more";
import { hasRole } from "./nav-config";
import { OneTimeSecret } from "./one-time-secret";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

type TResource = inferRouterOutputs<AppRouter>["managedResources"]["list"]["items"][number];
type TEnv = "preview" | "staging" | "production";

const STATUS = {
  provisioning: { label: "Provisioning", tone: "info" },
  available: { label: "Available", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  deletion_scheduled: { label: "Deletion scheduled", tone: "warning" },
  deleting: { label: "Being destroyed", tone: "warning" },
  deleted: { label: "Deleted", tone: "neutral" },
} as const;

const KIND = { postgres: "PostgreSQL database", object_bucket: "Object bucket" } as const;

/** The worker is about to change it: provisioning, being destroyed, or a deletion that is (nearly) due. */
const busy = (r: TResource) =>
  r.status === "provisioning" || r.status === "deleting" || (r.status === "deletion_scheduled" && r.deletion !== null && Date.parse(r.deletion.destroy_after) <= Date.now() + 60_000);

/** What deleting destroys, in words, for the confirmation. */
function whatIsLost(r: TResource): string {
  return r.kind === "postgres"
    ? `the database ${r.connection?.database ?? r.name}, every table and row in it, and its login role`
    : `the bucket ${r.name} and every object in it (${formatBytes(r.size_bytes)} at the last measurement)`;
}

function useProducts(ws: string) {
  const trpc = useTRPC();
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 100, order: "desc" }));
  return products.data?.items ?? [];
}

function ProductOptions({ ws }: { ws: string }) {
  return useProducts(ws).map((p) => (
    <option key={p.id} value={p.id}>
      {p.repo_url ? `${p.repo_url.replace(/^[a-z]+:\/\//, "")} (${p.id})` : p.id}
    </option>
  ));
}

/** Product, environment and variable: the attachment fields of create and reattach. */
function AttachFields({ ws, idPrefix, product, setProduct, env, setEnv, envVar, setEnvVar, optional }: {
  ws: string; idPrefix: string; product: string; setProduct: (v: string) => void; env: string; setEnv: (v: string) => void;
  envVar: string; setEnvVar: (v: string) => void; optional: boolean;
}) {
  return (
    <>
      <div className="space-y-1.5">
        <Label htmlFor={`${idPrefix}-product`}>{optional ? "Attach to product" : "Product"}</Label>
        <Select id={`${idPrefix}-product`} value={product} onChange={(e) => setProduct(e.target.value)} required={!optional}>
          {optional ? <option value="">Not attached yet</option> : <option value="">Choose a product</option>}
          <ProductOptions ws={ws} />
        </Select>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={`${idPrefix}-env`}>Environments</Label>
        <Select id={`${idPrefix}-env`} value={env} onChange={(e) => setEnv(e.target.value)} disabled={!product}>
          <option value="">All</option>
          <option value="production">production only</option>
          <option value="staging">staging only</option>
          <option value="preview">preview only</option>
        </Select>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={`${idPrefix}-var`}>Variable (optional)</Label>
        <Input id={`${idPrefix}-var`} value={envVar} onChange={(e) => setEnvVar(e.target.value.toUpperCase())} placeholder="DATABASE_URL / BUCKET_URL" maxLength={64} spellCheck={false} disabled={!product} />
      </div>
    </>
  );
}

const attachInput = (product: string, env: string, envVar: string) => ({
  product_id: product, ...(env ? { environment_type: env as TEnv } : {}), ...(envVar.trim() ? { env_var: envVar.trim() } : {}),
});

function CreateResourceForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<"postgres" | "object_bucket">("postgres");
  const [name, setName] = useState("");
  const [product, setProduct] = useState("");
  const [env, setEnv] = useState("");
  const [envVar, setEnvVar] = useState("");
  const [secret, setSecret] = useState<{ name: string; url: string } | null>(null);
  const create = useMutation(
    trpc.managedResources.create.mutationOptions({
      onSuccess: async (r) => {
        setName("");
        if (r.secret) setSecret({ name: r.name, url: r.secret.url });
        await queryClient.invalidateQueries(trpc.managedResources.pathFilter());
      },
    }),
  );
  function submit(e: FormEvent) {
    e.preventDefault();
    setSecret(null);
    create.mutate({ ws, kind, name: name.trim(), ...(product ? { attach: attachInput(product, env, envVar) } : {}) });
  }
  return (
    <Card>
      <CardHeader>
        <CardTitle>Create a resource</CardTitle>
        <CardDescription>
          A PostgreSQL database (with its own login role) or an object bucket, created by Capstan. Deployments of the product it is attached to receive
          its settings as an environment variable: nobody copies a password by hand. Detaching never deletes data.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-3 sm:items-end" autoComplete="off">
          <div className="space-y-1.5">
            <Label htmlFor="mres-kind">Kind</Label>
            <Select id="mres-kind" value={kind} onChange={(e) => setKind(e.target.value as "postgres" | "object_bucket")}>
              <option value="postgres">PostgreSQL database</option>
              <option value="object_bucket">Object bucket</option>
            </Select>
          </div>
          <div className="space-y-1.5 sm:col-span-2">
            <Label htmlFor="mres-name">Name</Label>
            <Input id="mres-name" required maxLength={63} pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?" placeholder="main-db" value={name} onChange={(e) => setName(e.target.value)} spellCheck={false} />
          </div>
          <AttachFields ws={ws} idPrefix="mres-create" product={product} setProduct={setProduct} env={env} setEnv={setEnv} envVar={envVar} setEnvVar={setEnvVar} optional />
          <div className="sm:col-span-3">
            <Button type="submit" disabled={create.isPending || !name.trim()}>
              <Database aria-hidden="true" />
              {create.isPending ? "Creating…" : "Create resource"}
            </Button>
          </div>
        </form>
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
        {secret ? (
          <OneTimeSecret
            title={`Connection URL of ${secret.name}`}
            warning="This password is shown once and never again. Deployments receive it automatically; copy it only if you need to connect yourself."
            label="Connection URL"
            value={secret.url}
            copyLabel="Copy connection URL"
            onDone={() => setSecret(null)}
          />
        ) : null}
      </CardContent>
    </Card>
  );
}

function ReattachForm({ ws, r, onDone }: { ws: string; r: TResource; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [product, setProduct] = useState("");
  const [env, setEnv] = useState("");
  const [envVar, setEnvVar] = useState("");
  const reattach = useMutation(
    trpc.managedResources.reattach.mutationOptions({
      onSuccess: async () => {
        onDone();
        await queryClient.invalidateQueries(trpc.managedResources.pathFilter());
      },
    }),
  );
  return (
    <form
      className="grid gap-2 pt-2 sm:grid-cols-3 sm:items-end"
      onSubmit={(e) => { e.preventDefault(); reattach.mutate({ ws, mres: r.id, ...attachInput(product, env, envVar) }); }}
    >
      <AttachFields ws={ws} idPrefix={`mres-${r.id}`} product={product} setProduct={setProduct} env={env} setEnv={setEnv} envVar={envVar} setEnvVar={setEnvVar} optional={false} />
      <div className="flex gap-2 sm:col-span-3">
        <Button type="submit" size="sm" disabled={reattach.isPending || !product}>
          {reattach.isPending ? "Attaching…" : r.status === "deletion_scheduled" ? "Restore and attach" : "Attach"}
        </Button>
        <Button type="button" size="sm" variant="secondary" onClick={onDone}>Cancel</Button>
      </div>
      {reattach.error ? <Alert className="sm:col-span-3" problem={problemOf(reattach.error)} /> : null}
    </form>
  );
}

function ResourceRow({ ws, r, canWrite, onDetach, onDelete }: { ws: string; r: TResource; canWrite: boolean; onDetach: (r: TResource) => void; onDelete: (r: TResource) => void }) {
  const [attaching, setAttaching] = useState(false);
  const status = STATUS[r.status];
  const gone = r.status === "deleted" || r.status === "deleting";
  return (
    <TableRow className="align-top">
      <TableCell className="min-w-56">
        <div className="font-medium">{r.name}</div>
        <div className="text-xs text-slate-600">{KIND[r.kind]} · <code className="font-mono">{r.id}</code></div>
        {r.connection?.database ? <div className="text-xs text-slate-600">database <code className="font-mono">{r.connection.database}</code></div> : null}
        <div className="pt-1 text-xs text-slate-600">Size: {formatBytes(r.size_bytes)} of {formatBytes(r.limits.max_size_bytes)} ({r.size_measured_at ? `measured ${formatDateTime(r.size_measured_at)}` : "not measured yet"})</div>
      </TableCell>
      <TableCell className="min-w-48">
        <Badge tone={status.tone}>{status.label}</Badge>
        {r.failure ? <p className="pt-2 text-sm text-rose-800">{r.failure.message}</p> : null}
        {r.deletion ? <p className="pt-2 text-sm text-amber-900">Destroyed after {formatDateTime(r.deletion.destroy_after)}. Attach it again before then to restore it.</p> : null}
      </TableCell>
      <TableCell className="min-w-64">
        {r.attachment ? (
          <div className="text-sm">
            <code className="font-mono">{r.attachment.env_var}</code> of{" "}
            <Link className="underline" href={`/console/w/${ws}/products/${r.attachment.product_id}`}>{r.attachment.product_id}</Link>
            {r.attachment.environment_type ? ` (${r.attachment.environment_type} only)` : " (all environments)"}
          </div>
        ) : <div className="text-sm text-slate-600">Not attached</div>}
        {r.used_by.length ? (
          <ul className="pt-1 text-xs text-slate-700">
            {r.used_by.map((u) => (
              <li key={u.deployment_id}>
                Used by <Link className="underline" href={`/console/w/${ws}/deployments/${u.deployment_id}`}>{u.deployment_id}</Link> ({u.environment_type})
              </li>
            ))}
          </ul>
        ) : null}
        {attaching ? <ReattachForm ws={ws} r={r} onDone={() => setAttaching(false)} /> : null}
      </TableCell>
      <TableCell className="text-right whitespace-nowrap">
        {canWrite && !gone ? (
          <div className="flex flex-col items-end gap-2">
            {r.attachment ? (
              <Button size="sm" variant="secondary" onClick={() => onDetach(r)}>
                <Unlink aria-hidden="true" />Detach<span className="sr-only"> {r.name}</span>
              </Button>
            ) : !attaching ? (
              <Button size="sm" variant="secondary" onClick={() => setAttaching(true)}>
                <Link2 aria-hidden="true" />{r.status === "deletion_scheduled" ? "Restore" : "Attach"}<span className="sr-only"> {r.name}</span>
              </Button>
            ) : null}
            {r.status !== "deletion_scheduled" ? (
              <Button size="sm" variant="danger" disabled={Boolean(r.attachment)} title={r.attachment ? "Detach it first: an attached resource cannot be deleted" : undefined} onClick={() => onDelete(r)}>
                Delete<span className="sr-only"> {r.name}</span>
              </Button>
            ) : null}
          </div>
        ) : null}
      </TableCell>
    </TableRow>
  );
}

/** Managed resources: create, attach, status, size, which deployments use each; detach, reattach/restore and delete with confirmations naming what is lost. */
export function ResourcesView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const canWrite = hasRole(workspace.data?.role, "admin");
  const isOwner = hasRole(workspace.data?.role, "owner");
  const list = useInfiniteQuery(
    trpc.managedResources.list.infiniteQueryOptions({ ws, limit: 50, order: "desc" }, {
      getNextPageParam: (p) => p.next_cursor ?? undefined,
      // The worker provisions and destroys within seconds: keep the page current meanwhile.
      refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some(busy)) ? 2_000 : false),
    }),
  );
  const [detach, setDetach] = useState<TResource | null>(null);
  const [remove, setRemove] = useState<TResource | null>(null);
  const [skipGrace, setSkipGrace] = useState(false);
  const invalidate = () => queryClient.invalidateQueries(trpc.managedResources.pathFilter());
  const detachMut = useMutation(trpc.managedResources.detach.mutationOptions({ onSuccess: async () => { setDetach(null); await invalidate(); } }));
  const deleteMut = useMutation(trpc.managedResources.delete.mutationOptions({ onSuccess: async () => { setRemove(null); await invalidate(); } }));
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader title="Resources" description="Databases and buckets Capstan manages for your products, attached, detached and reattached without losing data." />
      <div className="space-y-6">
        {canWrite ? <CreateResourceForm ws={ws} /> : null}
        <Card>
          <CardHeader>
            <CardTitle>Resources</CardTitle>
          </CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={list} what="resources" empty={rows.length === 0} emptyText="No managed resources yet." />
            {rows.length > 0 ? (
              <Table>
                <TableCaption>Managed resources of this workspace</TableCaption>
                <TableHeader>
                  <TableRow>
                    <TableHead>Resource</TableHead>
                    <TableHead>Status</TableHead>
                    <TableHead>Attached to</TableHead>
                    <TableHead><span className="sr-only">Actions</span></TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((r) => (
                    <ResourceRow key={r.id} ws={ws} r={r} canWrite={canWrite}
                      onDetach={(x) => { detachMut.reset(); setDetach(x); }}
                      onDelete={(x) => { deleteMut.reset(); setSkipGrace(false); setRemove(x); }} />
                  ))}
                </TableBody>
              </Table>
            ) : null}
            <LoadMore query={list} label="Load more resources" />
          </CardContent>
        </Card>
      </div>
      <ConfirmDialog
        open={detach !== null}
        onClose={() => setDetach(null)}
        title={`Detach ${detach?.name ?? ""}?`}
        description={`New deployments of ${detach?.attachment?.product_id ?? ""} will not receive ${detach?.attachment?.env_var ?? ""}, and running ones${detach?.used_by.length ? ` (${detach.used_by.map((u) => u.deployment_id).join(", ")})` : ""} lose new connections to it at once. The data is kept: attach it again at any time.`}
        confirmLabel="Detach"
        pendingLabel="Detaching…"
        pending={detachMut.isPending}
        error={detachMut.error}
        onConfirm={() => detach && detachMut.mutate({ ws, mres: detach.id })}
      />
      <ConfirmDialog
        open={remove !== null}
        onClose={() => setRemove(null)}
        title={`Delete ${remove?.name ?? ""}?`}
        description={remove ? `This destroys ${whatIsLost(remove)}. ${skipGrace ? "It happens within seconds and cannot be undone." : "It happens after the grace period; until then, attaching it again restores it."}` : ""}
        confirmLabel={skipGrace ? "Destroy now" : "Schedule deletion"}
        pendingLabel="Deleting…"
        pending={deleteMut.isPending}
        error={deleteMut.error}
        onConfirm={() => remove && deleteMut.mutate({ ws, mres: remove.id, ...(skipGrace ? { skip_grace_period: "true" as const } : {}) })}
      >
        {isOwner ? (
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={skipGrace} onChange={(e) => setSkipGrace(e.target.checked)} />
            Skip the grace period (owners only): destroy at once, with no way back
          </label>
        ) : null}
      </ConfirmDialog>
    </>
  );
}
