"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link2 } from "lucide-react";
import { useMemo, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { CAPABILITY_RULES, isCapabilityId } from "@/server/domain/source/contract-rules";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";
import { buildConfig, buildScope, defaults, type TApiStyle, type TModel } from "./binding-fields";
import { BindingLimits, FieldInput, ProviderConnection } from "./binding-form-sections";
import { credentialState, lines, type TCredentialRow } from "./credentials-view";

/** Create a provider binding: pick a credential; capability, actions and limits follow from it. */
export function CreateBindingForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const own = useQuery(trpc.credentials.list.queryOptions({ ws, limit: 200, order: "desc" }));
  const platform = useQuery(
    trpc.credentials.list.queryOptions({ ws, limit: 200, order: "desc", owner_kind: "platform" }),
  );
  const usable = useMemo(() => {
    const seen = new Map<string, TCredentialRow>();
    for (const c of [...(own.data?.items ?? []), ...(platform.data?.items ?? [])]) {
      if (!c.revoked_at && isCapabilityId(c.capability)) seen.set(c.id, c);
    }
    return [...seen.values()];
  }, [own.data, platform.data]);

  const [credId, setCredId] = useState("");
  const cred = usable.find((c) => c.id === credId);
  const cap = cred && isCapabilityId(cred.capability) ? cred.capability : undefined;
  const offered = cap ? CAPABILITY_RULES[cap].actions.filter((a) => cred!.actions.includes(a)) : [];
  const [actions, setActions] = useState<string[]>([]);
  const [scope, setScope] = useState("");
  const [units, setUnits] = useState("1000000");
  const [fields, setFields] = useState<Record<string, string>>({});
  const [models, setModels] = useState<TModel[]>(["text"]);
  const [apiStyle, setApiStyle] = useState<TApiStyle>("openai");
  const [secure, setSecure] = useState(false);
  const [name, setName] = useState("");

  const create = useMutation(
    trpc.bindings.create.mutationOptions({
      onSuccess: async () => {
        setCredId("");
        await queryClient.invalidateQueries(trpc.bindings.list.pathFilter());
      },
    }),
  );

  function pickCredential(id: string) {
    setCredId(id);
    create.reset();
    const c = usable.find((x) => x.id === id);
    if (!c || !isCapabilityId(c.capability)) return;
    setActions(CAPABILITY_RULES[c.capability].actions.filter((a) => c.actions.includes(a)));
    setFields(defaults(c.capability));
    setScope("");
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!cap || !cred) return;
    create.mutate({
      ws,
      credential_id: cred.id,
      capability: cap,
      actions,
      scope: lines(scope),
      budget: { units: Number(units), unit: "tokens" },
      capability_scope: buildScope(cap, fields, models),
      provider_config: buildConfig(cap, fields, { apiStyle, secure }),
      ...(name.trim() ? { name: name.trim() } : {}),
    });
  }

  const set = (k: string) => (v: string) => setFields((prev) => ({ ...prev, [k]: v }));

  return (
    <Card>
      <CardHeader>
        <CardTitle>Add binding</CardTitle>
        <CardDescription>
          A binding lets this workspace&apos;s apps use a credential for one capability, within the actions, scope and
          limits set here, up to a budget of units.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {own.error || platform.error ? <Alert problem={problemOf(own.error ?? platform.error)} /> : null}
        <form onSubmit={submit} className="space-y-4" noValidate>
          <div className="grid gap-3 sm:grid-cols-3">
            <Field id="bind-cred" label="Credential" className="sm:col-span-2">
              <Select id="bind-cred" value={credId} onChange={(e) => pickCredential(e.target.value)}>
                <option value="">Choose a credential…</option>
                {usable.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.provider} · {c.capability} · {credentialState(c).label}
                    {c.owner_kind === "platform" ? " · platform" : ""} · {c.id}
                  </option>
                ))}
              </Select>
            </Field>
            <Field id="bind-capability" label="Capability">
              <Input id="bind-capability" readOnly value={cap ?? ""} placeholder="from the credential" />
            </Field>
          </div>
          {cap && cred ? (
            <>
              <fieldset className="space-y-2">
                <legend className="text-sm font-medium text-slate-800">
                  Actions (allowed by the capability and the credential)
                </legend>
                <div className="flex flex-wrap gap-4">
                  {offered.map((a) => (
                    <label key={a} className="flex items-center gap-2 text-sm">
                      <input
                        type="checkbox"
                        className="size-4"
                        checked={actions.includes(a)}
                        onChange={(e) => setActions((p) => (e.target.checked ? [...p, a] : p.filter((x) => x !== a)))}
                      />
                      <code className="font-mono text-xs">{a}</code>
                    </label>
                  ))}
                </div>
              </fieldset>
              <TextField
                id="bind-name"
                label="Name (optional)"
                hint="Unique among this workspace's bindings, ignoring case."
                maxLength={100}
                autoComplete="off"
                placeholder={`${cred.provider} ${cap}`}
                value={name}
                onValue={setName}
              />
              <div className="grid gap-3 sm:grid-cols-2">
                <FieldInput
                  id="bind-scope"
                  field={{ key: "scope", label: "Scope (one per line, optional)", kind: "lines" }}
                  value={scope}
                  onChange={setScope}
                />
                <Field id="bind-units" label="Budget (tokens)">
                  <Input id="bind-units" inputMode="numeric" value={units} onChange={(e) => setUnits(e.target.value)} />
                  <p className="text-xs text-slate-600">
                    Credential scope:{" "}
                    <span className="font-mono">
                      {cred.scope.length ? cred.scope.join(", ") : "none (bind with an empty scope)"}
                    </span>
                  </p>
                </Field>
              </div>
              <BindingLimits
                cap={cap}
                fields={fields}
                set={set}
                models={models}
                setModels={setModels}
                apiStyle={apiStyle}
              />
              <ProviderConnection
                cap={cap}
                fields={fields}
                set={set}
                apiStyle={apiStyle}
                setApiStyle={setApiStyle}
                setModels={setModels}
                secure={secure}
                setSecure={setSecure}
              />
            </>
          ) : null}
          <Button type="submit" disabled={!cap || actions.length === 0 || create.isPending}>
            <Link2 aria-hidden="true" />
            {create.isPending ? "Binding…" : "Create binding"}
          </Button>
        </form>
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
        {create.data && !create.isPending && !create.error ? (
          <Alert tone={create.data.status === "ready" ? "success" : "warning"}>
            Binding <code className="font-mono">{create.data.id}</code> is {create.data.status}
            {create.data.failure_reason ? ` (${create.data.failure_reason})` : ""}.
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}
