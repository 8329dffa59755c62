"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Database } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";
import { OneTimeSecret } from "../shared/one-time-secret";
import type { TResource } from "./resource-row";

type TEnv = "preview" | "staging" | "production";

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

/** The attachment a create or reattach form is filling in: product, environment and variable. */
type TAttach = { product: string; env: string; envVar: string };
const NO_ATTACH: TAttach = { product: "", env: "", envVar: "" };

/** Product, environment and variable: the attachment fields of create and reattach. */
function AttachFields({
  ws,
  idPrefix,
  value: { product, env, envVar },
  onChange,
  optional,
}: {
  ws: string;
  idPrefix: string;
  value: TAttach;
  onChange: (value: TAttach) => void;
  optional: boolean;
}) {
  const set = (part: Partial<TAttach>) => onChange({ product, env, envVar, ...part });
  return (
    <>
      <Field id={`${idPrefix}-product`} label={optional ? "Attach to product" : "Product"}>
        <Select
          id={`${idPrefix}-product`}
          value={product}
          onChange={(e) => set({ product: e.target.value })}
          required={!optional}
        >
          {optional ? <option value="">Not attached yet</option> : <option value="">Choose a product</option>}
          <ProductOptions ws={ws} />
        </Select>
      </Field>
      <Field id={`${idPrefix}-env`} label="Environments">
        <Select id={`${idPrefix}-env`} value={env} onChange={(e) => set({ env: e.target.value })} disabled={!product}>
          <option value="">All</option>
          <option value="production">production only</option>
          <option value="staging">staging only</option>
          <option value="preview">preview only</option>
        </Select>
      </Field>
      <TextField
        id={`${idPrefix}-var`}
        label="Variable (optional)"
        value={envVar}
        onValue={(v) => set({ envVar: v.toUpperCase() })}
        placeholder="DATABASE_URL / BUCKET_URL"
        maxLength={64}
        spellCheck={false}
        disabled={!product}
      />
    </>
  );
}

const attachInput = ({ product, env, envVar }: TAttach) => ({
  product_id: product,
  ...(env ? { environment_type: env as TEnv } : {}),
  ...(envVar.trim() ? { env_var: envVar.trim() } : {}),
});

export function CreateResourceForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<"postgres" | "object_bucket">("postgres");
  const [name, setName] = useState("");
  const [attach, setAttach] = useState(NO_ATTACH);
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
    create.mutate({ ws, kind, name: name.trim(), ...(attach.product ? { attach: attachInput(attach) } : {}) });
  }
  return (
    <SectionCard
      title="Create a resource"
      description="A PostgreSQL database (with its own login role) or an object bucket, created by Capstan. Deployments of the product it is attached to receive its settings as an environment variable: nobody copies a password by hand. Detaching never deletes data."
      contentClassName="space-y-4"
    >
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-3 sm:items-end" autoComplete="off">
        <Field id="mres-kind" label="Kind">
          <Select id="mres-kind" value={kind} onChange={(e) => setKind(e.target.value as "postgres" | "object_bucket")}>
            <option value="postgres">PostgreSQL database</option>
            <option value="object_bucket">Object bucket</option>
          </Select>
        </Field>
        <TextField
          id="mres-name"
          label="Name"
          className="sm:col-span-2"
          required
          maxLength={63}
          pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?"
          placeholder="main-db"
          value={name}
          onValue={setName}
          spellCheck={false}
        />
        <AttachFields ws={ws} idPrefix="mres-create" value={attach} onChange={setAttach} optional />
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
    </SectionCard>
  );
}

export function ReattachForm({ ws, r, onDone }: { ws: string; r: TResource; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [attach, setAttach] = useState(NO_ATTACH);
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
      onSubmit={(e) => {
        e.preventDefault();
        reattach.mutate({ ws, mres: r.id, ...attachInput(attach) });
      }}
    >
      <AttachFields ws={ws} idPrefix={`mres-${r.id}`} value={attach} onChange={setAttach} optional={false} />
      <div className="flex gap-2 sm:col-span-3">
        <Button type="submit" size="sm" disabled={reattach.isPending || !attach.product}>
          {reattach.isPending ? "Attaching…" : r.status === "deletion_scheduled" ? "Restore and attach" : "Attach"}
        </Button>
        <Button type="button" size="sm" variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
      {reattach.error ? <Alert className="sm:col-span-3" problem={problemOf(reattach.error)} /> : null}
    </form>
  );
}
