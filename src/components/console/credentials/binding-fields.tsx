import type { ReactNode } from "react";
import type { TCapabilityScope, TProviderConfig } from "@/server/domain/credentials/bindings.contract";
import type { TCapabilityId } from "@/server/domain/source/contract-rules";
import { lines } from "./credentials-view";

/* What the binding form asks per capability, and how its answers become the binding's scope and provider config. */

export type TField = {
  key: string;
  label: string;
  kind: "text" | "number" | "lines";
  placeholder?: string;
  defaultValue?: string;
  hint?: string;
};

/** capability_scope.scope (and ai.generate's provider model names) per capability, as form fields. */
export const SCOPE_FIELDS: Record<TCapabilityId, TField[]> = {
  "ai.generate": [
    { key: "max_tokens_per_call", label: "Max tokens per call", kind: "number", defaultValue: "4096" },
    { key: "model_text", label: "Provider model for text", kind: "text", placeholder: "gpt-4o-mini" },
    {
      key: "model_embedding",
      label: "Provider model for embeddings",
      kind: "text",
      placeholder: "text-embedding-3-small",
    },
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
    {
      key: "from_addresses",
      label: "From addresses (one per line)",
      kind: "lines",
      placeholder: "noreply@example.com",
    },
    {
      key: "recipient_domains",
      label: "Recipient domains (one per line, * for any)",
      kind: "lines",
      defaultValue: "*",
    },
    { key: "max_recipients", label: "Max recipients (≤ 50)", kind: "number", defaultValue: "10" },
    { key: "max_message_bytes", label: "Max message bytes (≤ 1048576)", kind: "number", defaultValue: "1048576" },
  ],
};

/** Optional provider connection settings per capability (no secrets here: those are in the credential). */
export const CONFIG_FIELDS: Record<TCapabilityId, TField[]> = {
  "ai.generate": [
    {
      key: "base_url",
      label: "Base URL",
      kind: "text",
      placeholder: "https://api.openai.com/v1",
      hint: "Needed for Bridge calls: a binding without one is skipped.",
    },
  ],
  "storage.object": [
    {
      key: "endpoint",
      label: "Endpoint",
      kind: "text",
      placeholder: "https://s3.eu-west-1.amazonaws.com",
      hint: "S3-compatible endpoint (AWS S3, MinIO, R2…). Needed for Bridge calls, with the bucket.",
    },
    { key: "bucket", label: "Bucket", kind: "text", hint: "Objects are stored under <product_id>/<key>." },
    {
      key: "region",
      label: "Region (optional)",
      kind: "text",
      placeholder: "us-east-1",
      hint: "Defaults to us-east-1.",
    },
  ],
  "data.kv": [],
  "email.send": [
    { key: "host", label: "SMTP host (optional)", kind: "text", placeholder: "smtp.example.com" },
    { key: "port", label: "SMTP port (optional)", kind: "number", placeholder: "587" },
  ],
};

export const defaults = (cap: TCapabilityId) =>
  Object.fromEntries([...SCOPE_FIELDS[cap], ...CONFIG_FIELDS[cap]].map((f) => [f.key, f.defaultValue ?? ""]));

export type TModel = "text" | "embedding";

export function buildScope(cap: TCapabilityId, f: Record<string, string>, models: TModel[]): TCapabilityScope {
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
      return {
        id: cap,
        scope: { prefix: f.prefix ?? "", max_value_bytes: num("max_value_bytes"), max_keys: num("max_keys") },
      };
    case "email.send":
      return {
        id: cap,
        scope: {
          from_addresses: lines(f.from_addresses ?? ""),
          recipient_domains: lines(f.recipient_domains ?? ""),
          max_recipients: num("max_recipients"),
          max_message_bytes: num("max_message_bytes"),
        },
      };
  }
}

export function buildConfig(
  cap: TCapabilityId,
  f: Record<string, string>,
  extra: { apiStyle: string; secure: boolean },
): TProviderConfig | undefined {
  const out: Record<string, unknown> = {};
  for (const field of CONFIG_FIELDS[cap]) {
    const v = f[field.key]?.trim();
    if (v) out[field.key] = field.kind === "number" ? Number(v) : v;
  }
  if (cap === "ai.generate" && extra.apiStyle) out.api_style = extra.apiStyle;
  if (cap === "email.send" && out.host) out.secure = extra.secure;
  return Object.keys(out).length ? out : undefined;
}

/** What each ai.generate API style calls, and the base URL it expects. */
export const API_STYLES = {
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
export type TApiStyle = keyof typeof API_STYLES;

/** The credential secret each capability's provider expects (the credential holds it; nothing secret is entered here). */
export const SECRET_FORMAT: Partial<Record<TCapabilityId, ReactNode>> = {
  "storage.object": (
    <>
      The credential&apos;s secret must be <code className="font-mono">ACCESS_KEY_ID:SECRET_ACCESS_KEY</code>{" "}
      (optionally <code className="font-mono">:SESSION_TOKEN</code>) of a key allowed to use the bucket.
    </>
  ),
  "email.send": (
    <>
      The credential&apos;s secret is the SMTP password, or <code className="font-mono">username:password</code>{" "}
      (without a username, the from address signs in).
    </>
  ),
};
