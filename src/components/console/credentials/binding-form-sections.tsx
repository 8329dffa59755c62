"use client";

import type { Dispatch, SetStateAction } from "react";
import { cn } from "@/components/ui/cn";
import { Input, inputClass } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import type { TCapabilityId } from "@/server/domain/source/contract-rules";
import { Field } from "../shared/field";
import {
  API_STYLES,
  CONFIG_FIELDS,
  SCOPE_FIELDS,
  SECRET_FORMAT,
  type TApiStyle,
  type TField,
  type TModel,
} from "./binding-fields";

/** One binding field: a text or number input, or a textarea for one-value-a-line lists. */
export function FieldInput({
  id,
  field,
  value,
  onChange,
}: {
  id: string;
  field: TField;
  value: string;
  onChange: (v: string) => void;
}) {
  const hintId = field.hint ? `${id}-hint` : undefined;
  return (
    <Field id={id} label={field.label} hint={field.hint}>
      {field.kind === "lines" ? (
        <textarea
          id={id}
          className={cn(inputClass, "h-auto min-h-16 py-2 font-mono text-xs")}
          placeholder={field.placeholder}
          value={value}
          aria-describedby={hintId}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <Input
          id={id}
          inputMode={field.kind === "number" ? "numeric" : undefined}
          placeholder={field.placeholder}
          value={value}
          aria-describedby={hintId}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

type TFieldsProps = {
  cap: TCapabilityId;
  fields: Record<string, string>;
  set: (key: string) => (value: string) => void;
  apiStyle: TApiStyle;
  setModels: Dispatch<SetStateAction<TModel[]>>;
};

/** The capability's limits (and, for ai.generate, which model kinds), which also bound Bridge calls. */
export function BindingLimits({ cap, fields, set, models, setModels, apiStyle }: TFieldsProps & { models: TModel[] }) {
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-medium text-slate-800">Limits for {cap}</legend>
      <p className="text-xs text-slate-600">
        These limits and the actions above also bound Bridge calls: a call outside every ready binding&apos;s scope is
        denied <code className="font-mono">policy_blocked</code>.
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
  );
}

/** Where the provider is reached (no secrets: those are in the credential). */
export function ProviderConnection({
  cap,
  fields,
  set,
  apiStyle,
  setApiStyle,
  setModels,
  secure,
  setSecure,
}: TFieldsProps & { setApiStyle: (s: TApiStyle) => void; secure: boolean; setSecure: (v: boolean) => void }) {
  if (!CONFIG_FIELDS[cap].length) return null;
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-medium text-slate-800">Provider connection</legend>
      {SECRET_FORMAT[cap] ? <p className="text-xs text-slate-600">{SECRET_FORMAT[cap]}</p> : null}
      <div className="grid gap-3 sm:grid-cols-3">
        {cap === "ai.generate" ? (
          <Field id="bind-api-style" label="API style">
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
          </Field>
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
  );
}
