"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { PermissionsField, permissionsOf, type TPermissionMode } from "./permissions-field";
import { ENVIRONMENTS, type TEnvironment, type TIdentitySecret } from "./service-identity-secret";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";

/** "New service identity": name, product, environment, optional federation and the Bridge permissions. */
export function CreateIdentityForm({ ws, onSecret }: { ws: string; onSecret: (s: TIdentitySecret) => void }) {
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
        onSecret({
          title: `Service identity "${data.name}" created`,
          clientId: data.client_id,
          secret: data.client_secret! /* always present outside an idempotent replay */,
        });
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
      ...(federate
        ? { federation: { issuer: fed.issuer.trim(), subject: fed.subject.trim(), audience: fed.audience.trim() } }
        : {}),
      ...(permissions ? { permissions } : {}),
    });
  }

  const rows = products.data?.items ?? [];
  return (
    <Card>
      <CardHeader>
        <CardTitle>New service identity</CardTitle>
        <CardDescription>
          A non-human caller of the Bridge, bound to one product (the Bridge checks the contract of its active revision)
          and optionally to one environment. It authenticates with a client secret, or, with federation, by exchanging
          an OIDC token from your CI or cloud (no stored secret).
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="space-y-4" noValidate>
          <div className="grid gap-3 sm:grid-cols-3">
            <TextField
              id="si-name"
              label="Name"
              required
              maxLength={100}
              autoComplete="off"
              value={name}
              aria-invalid={invalid("/name")}
              onValue={setName}
            />
            <Field id="si-product" label="Product">
              <Select
                id="si-product"
                required
                value={product}
                aria-invalid={invalid("/product_id")}
                onChange={(e) => setProduct(e.target.value)}
              >
                <option value="">
                  {products.isPending ? "Loading products…" : rows.length ? "Choose a product" : "No products yet"}
                </option>
                {rows.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name} · {p.repo_url} ({p.ref})
                  </option>
                ))}
              </Select>
            </Field>
            <Field id="si-env" label="Environment">
              <Select
                id="si-env"
                value={environment}
                onChange={(e) => setEnvironment(e.target.value as TEnvironment | "")}
              >
                <option value="">Any environment</option>
                {ENVIRONMENTS.map((env) => (
                  <option key={env} value={env}>
                    {env}
                  </option>
                ))}
              </Select>
            </Field>
          </div>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              className="size-4"
              checked={federate}
              onChange={(e) => setFederate(e.target.checked)}
            />
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
                <TextField
                  key={key}
                  id={`si-fed-${key}`}
                  label={label}
                  required
                  maxLength={key === "issuer" ? 512 : 255}
                  autoComplete="off"
                  placeholder={placeholder}
                  value={fed[key]}
                  aria-invalid={invalid(`/federation/${key}`)}
                  onValue={(v) => setFed({ ...fed, [key]: v })}
                />
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
