"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link2 } from "lucide-react";
import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Input, inputClass } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TCapabilityScope, TProviderConfig } from "@/server/domain/credentials/bindings.contract";
import { CAPABILITY_RULES, isCapabilityId, type TCapabilityId } from "@/server/domain/source/contract-rules";
import { credentialState, lines, type TCredentialRow } from "./credentials-view";

type TField = { key: string; label: string; kind: "text" | "number" | "lines"; placeholder?: string; defaultValue?: string; hint?: string };

/** capability_scope.scope (and ai.generate's provider model names) per capability, as form fields. */
const SCOPE_FIELDS: Record<TCapabilityId, TField[]> = {
  "ai.generate": [
    { key: "max_tokens_per_call", label: "Max tokens per call", kind: "number", defaultValue: "4096" },
    { key: "model_text", label: "Provider model for text", kind: "text", placeholder: "gpt-4o-mini" },
    { key: "model_embedding", label: "Provider model for embeddings", kind: "text", placeholder: "text-embedding-3-small" },
  ],
  "storage.object": [
    { key: "prefix", label: "Key prefix", kind: "text", defaultValue: "/" },
    { key: "max_object_bytes", label: "Max object bytes", kind: "number", defaultValue: "10485760" },
  ],
  "data.kv": [
    { key: "prefix", label: "Key prefix", kind: "text", defaultValue: "/" },
    { key: "max_value_bytes", label: "Max value bytes (≤ 65536)", kind: "number", defaultValue: "65536" },
    { key: "max_keys", label: "Max keys (≤ 100000)", kind: "number", defaultValue: "10000" },
  ],
  "email.send": [
    { key: "from_addresses", label: "From addresses (one per line)", kind: "lines", placeholder: "noreply@example.com" },
    { key: "recipient_domains", label: "Recipient domains (one per line, * for any)", kind: "lines", defaultValue: "*" },
    { key: "max_recipients", label: "Max recipients (≤ 50)", kind: "number", defaultValue: "10" },
    { key: "max_message_bytes", label: "Max message bytes (≤ 1048576)", kind: "number", defaultValue: "1048576" },
  ],
};

/** Optional provider connection settings per capability (no secrets here: those are in the credential). */
const CONFIG_FIELDS: Record<TCapabilityId, TField[]> = {
  "ai.generate": [
    { key: "base_url", label: "Base URL", kind: "text", placeholder: "https://api.openai.com/v1", hint: "Needed for Bridge calls: a binding without one is skipped." },
  ],
  "storage.object": [
    {
      key: "endpoint", label: "Endpoint", kind: "text", placeholder: "https://s3.eu-west-1.amazonaws.com",
      hint: "S3-compatible endpoint (AWS S3, MinIO, R2…). Needed for Bridge calls, with the bucket.",
    },
    { key: "bucket", label: "Bucket", kind: "text", hint: "Objects are stored under <product_id>/<key>." },
    { key: "region", label: "Region (optional)", kind: "text", placeholder: "us-east-1", hint: "Defaults to us-east-1." },
  ],
  "data.kv": [],
  "email.send": [
    { key: "host", label: "SMTP host (optional)", kind: "text", placeholder: "smtp.example.com" },
    { key: "port", label: "SMTP port (optional)", kind: "number", placeholder: "587" },
  ],
};

const defaults = (cap: TCapabilityId) =>
  Object.fromEntries([...SCOPE_FIELDS[cap], ...CONFIG_FIELDS[cap]].map((f) => [f.key, f.defaultValue ?? ""]));

type TModel = "text" | "embedding";

function buildScope(cap: TCapabilityId, f: Record<string, string>, models: TModel[]): TCapabilityScope {
  const num = (k: string) => (f[k]?.trim() ? Number(f[k]) : Number.NaN);
  switch (cap) {
    case "ai.generate":
      return {
        id: cap,
        scope: { models, max_tokens_per_call: num("max_tokens_per_call") },
        provider_models: Object.fromEntries(models.map((m) => [m, f[`model_${m}`]?.trim() ?? ""])),
      };
    case "storage.object":
      return { id: cap, scope: { prefix: f.prefix ?? "", max_object_bytes: num("max_object_bytes") } };
    case "data.kv":
      return { id: cap, scope: { prefix: f.prefix ?? "", max_value_bytes: num("max_value_bytes"), max_keys: num("max_keys") } };
    case "email.send":
      return {
        id: cap,
        scope: {
          from_addresses: lines(f.from_addresses ?? ""), recipient_domains: lines(f.recipient_domains ?? ""),
          max_recipients: num("max_recipients"), max_message_bytes: num("max_message_bytes"),
        },
      };
  }
}

function buildConfig(cap: TCapabilityId, f: Record<string, string>, extra: { apiStyle: string; secure: boolean }): TProviderConfig | undefined {
  const out: Record<string, unknown> = {};
  for (const field of CONFIG_FIELDS[cap]) {
    const v = f[field.key]?.trim();
    if (v) out[field.key] = field.kind === "number" ? Number(v) : v;
  }
  if (cap === "ai.generate" && extra.apiStyle) out.api_style = extra.apiStyle;
  if (cap === "email.send" && out.host) out.secure = extra.secure;
  return Object.keys(out).length ? (out) : undefined;
}

function FieldInput({ id, field, value, onChange }: { id: string; field: TField; value: string; onChange: (v: string) => void }) {
  const hintId = field.hint ? `${id}-hint` : undefined;
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>{field.label}</Label>
      {field.kind === "lines" ? (
        <textarea id={id} className={cn(inputClass, "h-auto min-h-16 py-2 font-mono text-xs")} placeholder={field.placeholder} value={value} aria-describedby={hintId} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <Input id={id} inputMode={field.kind === "number" ? "numeric" : undefined} placeholder={field.placeholder} value={value} aria-describedby={hintId} onChange={(e) => onChange(e.target.value)} />
      )}
      {field.hint ? <p id={hintId} className="text-xs text-slate-600">{field.hint}</p> : null}
    </div>
  );
}

/** What each ai.generate API style calls, and the base URL it expects. */
const API_STYLES = {
  openai: {
    label: "OpenAI-compatible",
    placeholder: "https://api.openai.com/v1",
    hint: "POST {base_url}/chat/completions and /embeddings with a Bearer key (OpenAI, Azure, Mistral, vLLM, Ollama…).",
  },
  anthropic: {
    label: "Anthropic Messages",
    placeholder: "https://api.anthropic.com/v1",
    hint: "POST {base_url}/messages with x-api-key. Text only: embedding calls go to another binding.",
  },
} as const;
type TApiStyle = keyof typeof API_STYLES;

/** The credential secret each capability's provider expects (the credential holds it; nothing secret is entered here). */
const SECRET_FORMAT: Partial<Record<TCapabilityId, ReactNode>> = {
  "storage.object": (
    <>
      The credential&apos;s secret must be <code className="font-mono">ACCESS_KEY_ID:SECRET_ACCESS_KEY</code> (optionally{" "}
      <code className="font-mono">:SESSION_TOKEN</code>) of a key allowed to use the bucket.
    </>
  ),
  "email.send": (
    <>
      The credential&apos;s secret is the SMTP password, or <code className="font-mono">username:password</code> (without a username, the
      from address signs in).
    </>
  ),
};

/** Create a provider binding: pick a credential; capability, actions and limits follow from it. */
export function CreateBindingForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const own = useQuery(trpc.credentials.list.queryOptions({ ws, limit: 200, order: "desc" }));
  const platform = useQuery(trpc.credentials.list.queryOptions({ ws, limit: 200, order: "desc", owner_kind: "platform" }));
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
      ws, credential_id: cred.id, capability: cap, actions, scope: lines(scope),
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
          A binding lets this workspace&apos;s apps use a credential for one capability, within the actions, scope and limits set here,
          up to a budget of units.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {own.error || platform.error ? <Alert problem={problemOf(own.error ?? platform.error)} /> : null}
        <form onSubmit={submit} className="space-y-4" noValidate>
          <div className="grid gap-3 sm:grid-cols-3">
            <div className="space-y-1.5 sm:col-span-2">
              <Label htmlFor="bind-cred">Credential</Label>
              <Select id="bind-cred" value={credId} onChange={(e) => pickCredential(e.target.value)}>
                <option value="">Choose a credential…</option>
                {usable.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.provider} · {c.capability} · {credentialState(c).label}
                    {c.owner_kind === "platform" ? " · platform" : ""} · {c.id}
                  </option>
                ))}
              </Select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="bind-capability">Capability</Label>
              <Input id="bind-capability" readOnly value={cap ?? ""} placeholder="from the credential" />
            </div>
          </div>
          {cap && cred ? (
            <>
              <fieldset className="space-y-2">
                <legend className="text-sm font-medium text-slate-800">Actions (allowed by the capability and the credential)</legend>
                <div className="flex flex-wrap gap-4">
                  {offered.map((a) => (
                    <label key={a} className="flex items-center gap-2 text-sm">
                      <input type="checkbox" className="size-4" checked={actions.includes(a)} onChange={(e) => setActions((p) => (e.target.checked ? [...p, a] : p.filter((x) => x !== a)))} />
                      <code className="font-mono text-xs">{a}</code>
                    </label>
                  ))}
                </div>
              </fieldset>
              <div className="space-y-1.5">
                <Label htmlFor="bind-name">Name (optional)</Label>
                <Input
                  id="bind-name"
                  maxLength={100}
                  autoComplete="off"
                  placeholder={`${cred.provider} ${cap}`}
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                />
                <p className="text-xs text-slate-600">Unique among this workspace&apos;s bindings, ignoring case.</p>
              </div>
              <div className="grid gap-3 sm:grid-cols-2">
                <FieldInput id="bind-scope" field={{ key: "scope", label: "Scope (one per line, optional)", kind: "lines" }} value={scope} onChange={setScope} />
                <div className="space-y-1.5">
                  <Label htmlFor="bind-units">Budget (tokens)</Label>
                  <Input id="bind-units" inputMode="numeric" value={units} onChange={(e) => setUnits(e.target.value)} />
                  <p className="text-xs text-slate-600">
                    Credential scope: <span className="font-mono">{cred.scope.length ? cred.scope.join(", ") : "none (bind with an empty scope)"}</span>
                  </p>
                </div>
              </div>
              <fieldset className="space-y-3">
                <legend className="text-sm font-medium text-slate-800">Limits for {cap}</legend>
                <p className="text-xs text-slate-600">
                  These limits and the actions above also bound Bridge calls: a call outside every ready binding&apos;s scope is denied{" "}
                  <code className="font-mono">policy_blocked</code>.
                </p>
                {cap === "ai.generate" ? (
                  <div className="flex flex-wrap gap-4">
                    {(["text", "embedding"] as const).map((m) => {
                      // The Anthropic Messages API has no embeddings (the server refuses such a scope).
                      const unavailable = m === "embedding" && apiStyle === "anthropic";
                      return (
                        <label key={m} className={cn("flex items-center gap-2 text-sm", unavailable && "text-slate-600")}>
                          <input
                            type="checkbox"
                            className="size-4"
                            checked={models.includes(m)}
                            disabled={unavailable}
                            onChange={(e) => setModels((p) => (e.target.checked ? [...p, m] : p.filter((x) => x !== m)))}
                          />
                          {m} models{unavailable ? " (not with Anthropic Messages)" : ""}
                        </label>
                      );
                    })}
                  </div>
                ) : null}
                <div className="grid gap-3 sm:grid-cols-2">
                  {SCOPE_FIELDS[cap]
                    .filter((f) => !f.key.startsWith("model_") || models.includes(f.key.slice(6) as TModel))
                    .map((f) => (
                      <FieldInput key={f.key} id={`bind-${f.key}`} field={f} value={fields[f.key] ?? ""} onChange={set(f.key)} />
                    ))}
                </div>
              </fieldset>
              {CONFIG_FIELDS[cap].length ? (
                <fieldset className="space-y-3">
                  <legend className="text-sm font-medium text-slate-800">Provider connection</legend>
                  {SECRET_FORMAT[cap] ? <p className="text-xs text-slate-600">{SECRET_FORMAT[cap]}</p> : null}
                  <div className="grid gap-3 sm:grid-cols-3">
                    {cap === "ai.generate" ? (
                      <div className="space-y-1.5">
                        <Label htmlFor="bind-api-style">API style</Label>
                        <Select
                          id="bind-api-style"
                          value={apiStyle}
                          aria-describedby="bind-api-style-hint"
                          onChange={(e) => {
                            const style = e.target.value as TApiStyle;
                            setApiStyle(style);
                            if (style === "anthropic") setModels((p) => p.filter((x) => x !== "embedding"));
                          }}
                        >
                          {(Object.keys(API_STYLES) as TApiStyle[]).map((style) => (
                            <option key={style} value={style}>
                              {API_STYLES[style].label}
                            </option>
                          ))}
                        </Select>
                        <p id="bind-api-style-hint" className="text-xs text-slate-600">
                          {API_STYLES[apiStyle].hint}
                        </p>
                      </div>
                    ) : null}
                    {CONFIG_FIELDS[cap].map((f) => (
                      <FieldInput
                        key={f.key}
                        id={`bind-${f.key}`}
                        field={f.key === "base_url" ? { ...f, placeholder: API_STYLES[apiStyle].placeholder } : f}
                        value={fields[f.key] ?? ""}
                        onChange={set(f.key)}
                      />
                    ))}
                    {cap === "email.send" ? (
                      <label className="flex items-center gap-2 self-end pb-2 text-sm">
                        <input type="checkbox" className="size-4" checked={secure} onChange={(e) => setSecure(e.target.checked)} />
                        Implicit TLS (port 465)
                      </label>
                    ) : null}
                  </div>
                </fieldset>
              ) : null}
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
