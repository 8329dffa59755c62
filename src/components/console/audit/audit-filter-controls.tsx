"use client";

import { Filter, X } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { cn, focusRing } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { Field } from "../shared/field";
import { localToIso } from "../shared/url-filters";

export const FILTERS = {
  action: "Action",
  actor_id: "Actor",
  target_id: "Target",
  correlation_id: "Correlation",
  since: "Since",
  until: "Until",
} as const;
export type TFilterKey = keyof typeof FILTERS;
export const FILTER_KEYS = Object.keys(FILTERS) as TFilterKey[];

export function AddFilterForm({
  actions,
  onAdd,
}: {
  actions: readonly string[];
  onAdd: (key: TFilterKey, value: string) => void;
}) {
  const [key, setKey] = useState<TFilterKey>("action");
  const [value, setValue] = useState("");
  const isTime = key === "since" || key === "until";

  function submit(e: FormEvent) {
    e.preventDefault();
    const v = key === "action" ? value || actions[0] || "" : isTime ? localToIso(value) : value.trim();
    if (!v) return;
    onAdd(key, v);
    setValue("");
  }

  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3" aria-label="Add a filter">
      <Field id="audit-filter-field" label="Filter by" className="w-40">
        <Select
          id="audit-filter-field"
          value={key}
          onChange={(e) => {
            setKey(e.target.value as TFilterKey);
            setValue("");
          }}
        >
          {FILTER_KEYS.map((k) => (
            <option key={k} value={k}>
              {FILTERS[k]}
            </option>
          ))}
        </Select>
      </Field>
      <Field
        id="audit-filter-value"
        label={<>{key === "action" ? "Action" : isTime ? `${FILTERS[key]} (your local time)` : `${FILTERS[key]} id`}</>}
        className="min-w-64 flex-1"
      >
        {key === "action" ? (
          <Select id="audit-filter-value" value={value || actions[0]} onChange={(e) => setValue(e.target.value)}>
            {actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </Select>
        ) : (
          <Input
            id="audit-filter-value"
            type={isTime ? "datetime-local" : "text"}
            step={isTime ? 1 : undefined}
            required
            autoComplete="off"
            spellCheck={false}
            placeholder={
              key === "actor_id"
                ? "usr_… or svc_…"
                : key === "correlation_id"
                  ? "evt_…"
                  : key === "target_id"
                    ? "an id"
                    : undefined
            }
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        )}
      </Field>
      <Button type="submit" variant="secondary">
        <Filter aria-hidden="true" />
        Add filter
      </Button>
    </form>
  );
}

export function FilterChips({
  active,
  onRemove,
  onClear,
  nameOf,
}: {
  active: [TFilterKey, string][];
  onRemove: (key: TFilterKey) => void;
  onClear: () => void;
  /** A person's, service identity's or product's name for an actor or target id, when known. */
  nameOf: (id: string) => string | null;
}) {
  if (!active.length)
    return <p className="text-sm text-slate-600">No filters: showing every record you may see, newest first.</p>;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <ul aria-label="Active filters" className="flex flex-wrap gap-2">
        {active.map(([k, v]) => (
          <li
            key={k}
            className="inline-flex items-center gap-1 rounded-full bg-slate-100 py-0.5 pr-1 pl-3 text-xs text-slate-800 ring-1 ring-slate-200 ring-inset"
          >
            <span>
              {FILTERS[k]}: {(k === "actor_id" || k === "target_id") && nameOf(v) ? <>{nameOf(v)} </> : null}
              <code className="font-mono">{v}</code>
            </span>
            <button
              type="button"
              onClick={() => onRemove(k)}
              aria-label={`Remove filter ${FILTERS[k]} ${v}`}
              className={cn("rounded-full p-0.5 text-slate-600 hover:bg-slate-200 hover:text-slate-900", focusRing)}
            >
              <X aria-hidden="true" className="size-3.5" />
            </button>
          </li>
        ))}
      </ul>
      {active.length > 1 ? (
        <Button variant="link" size="sm" onClick={onClear}>
          Clear all
        </Button>
      ) : null}
    </div>
  );
}
