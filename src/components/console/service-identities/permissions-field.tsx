"use client";

import { Badge } from "@/components/ui/badge";
import type { TProblemView } from "@/lib/trpc/client";
import { CAPABILITY_RULES, type TCapabilityId } from "@/server/domain/source/contract-rules";

export const IMMUTABLE_NOTE =
  "Permissions cannot be changed later: to change them, create a new identity and revoke the old one.";

/** Capabilities and their actions (spec 2.7), in the order the permission picker shows them. */
const PERMISSION_CAPABILITIES: TCapabilityId[] = ["ai.generate", "storage.object", "data.kv", "email.send"];

/** The permission strings of a selection: `<cap>:*` replaces that capability's single actions. */
export function permissionsOf(selected: ReadonlySet<string>): string[] {
  return PERMISSION_CAPABILITIES.flatMap((cap) =>
    selected.has(`${cap}:*`)
      ? [`${cap}:*`]
      : CAPABILITY_RULES[cap].actions.map((a) => `${cap}:${a}`).filter((p) => selected.has(p)),
  );
}

export type TPermissionMode = "all" | "only";

/**
 * "Bridge permissions" of a new identity: every action of the product's
 * contract, or only the ticked ones. Server errors at `/permissions` and
 * `/permissions/<i>` are shown here, naming the permission they concern.
 */
export function PermissionsField({
  mode,
  onMode,
  selected,
  onSelected,
  problem,
  sent,
}: {
  mode: TPermissionMode;
  onMode: (m: TPermissionMode) => void;
  selected: ReadonlySet<string>;
  onSelected: (s: Set<string>) => void;
  problem: TProblemView | null;
  sent: readonly string[];
}) {
  const errors =
    mode === "only"
      ? (problem?.errors ?? []).filter((e) => e.path === "/permissions" || e.path.startsWith("/permissions/"))
      : [];
  const toggle = (perm: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(perm);
    else next.delete(perm);
    onSelected(next);
  };
  const radio = (value: TPermissionMode, label: string) => (
    <label className="flex items-center gap-2 text-sm">
      <input
        type="radio"
        name="si-permission-mode"
        className="size-4"
        value={value}
        checked={mode === value}
        onChange={() => onMode(value)}
      />
      {label}
    </label>
  );
  return (
    <fieldset className="space-y-2" aria-describedby="si-permissions-hint si-permissions-errors">
      <legend className="text-sm font-medium text-slate-800">Bridge permissions</legend>
      <p id="si-permissions-hint" className="text-xs text-slate-600">
        What this identity may call, on top of its product&apos;s contract (an action outside the contract is always
        denied). {IMMUTABLE_NOTE}
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
                  <input
                    type="checkbox"
                    className="size-4"
                    checked={all}
                    onChange={(e) => toggle(`${cap}:*`, e.target.checked)}
                  />
                  <span>
                    All actions of this capability <code className="font-mono text-xs text-slate-600">{cap}:*</code>
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
        <p className="text-xs text-slate-600">
          Tick at least one action, or allow all actions in the product&apos;s contract.
        </p>
      ) : null}
      <ul id="si-permissions-errors" className="space-y-0.5 text-xs text-rose-700">
        {errors.map((e, i) => {
          const index = /^\/permissions\/(\d+)/.exec(e.path)?.[1];
          const which = index !== undefined ? sent[Number(index)] : undefined;
          return (
            <li key={`${e.path}-${i}`}>
              {which ? <code className="font-mono">{which}</code> : <code className="font-mono">{e.path}</code>}:{" "}
              {e.message}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}

/** An identity's permissions as chips, or "All contract actions" when it has none (null). */
export function PermissionChips({ permissions }: { permissions: string[] | null }) {
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
