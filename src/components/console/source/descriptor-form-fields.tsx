"use client";

import type { ComponentProps } from "react";
import { cn, focusRing } from "@/components/ui/cn";
import { Input, inputClass } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Field } from "../shared/field";
import type { TDraft } from "./descriptor-edits";

type TFieldsProps = {
  draft: TDraft;
  set: (k: keyof TDraft) => (e: { target: { value: string } }) => void;
  /** Whether the client-side check flagged the field with this label. */
  invalid: (label: string) => true | undefined;
};

/** One descriptor field: a monospace input bound to the draft, flagged when the check refused it. */
function DraftInput({
  id,
  k,
  label,
  hint,
  draft,
  set,
  invalid,
  ...input
}: TFieldsProps & { id: string; k: keyof TDraft; label: string; hint?: string } & ComponentProps<typeof Input>) {
  return (
    <Field id={id} label={label} hint={hint}>
      <Input
        id={id}
        autoComplete="off"
        className="font-mono text-xs"
        value={draft[k]}
        onChange={set(k)}
        aria-invalid={invalid(label)}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...input}
      />
    </Field>
  );
}

/** Install, build, start and health check: only for descriptors with a build plan. */
export function BuildPlanFields(props: TFieldsProps) {
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-semibold text-slate-700">Build plan</legend>
      <div className="grid gap-3 sm:grid-cols-2">
        <DraftInput
          {...props}
          id="edit-install"
          name="install"
          k="install"
          label="Install command"
          aria-describedby="edit-empty-hint"
        />
        <DraftInput
          {...props}
          id="edit-build"
          name="build"
          k="build"
          label="Build command"
          aria-describedby="edit-empty-hint"
        />
        <DraftInput {...props} id="edit-start" name="start" k="start" label="Start command" />
        <DraftInput
          {...props}
          id="edit-health"
          name="health"
          k="health"
          label="Health check path"
          placeholder="/healthz"
        />
      </div>
      <p id="edit-empty-hint" className="text-xs text-slate-600">
        Leave the install or build command empty to skip that step. The start command and the entrypoint describe the
        same process: changing only one of them updates the other.
      </p>
    </fieldset>
  );
}

/** Runtime version (node only), ports, and the entrypoint's command and arguments. */
export function RuntimeFields({ nodeRuntime, ...props }: TFieldsProps & { nodeRuntime: boolean }) {
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-semibold text-slate-700">Runtime and entrypoint</legend>
      <div className="grid gap-3 sm:grid-cols-2">
        <DraftInput
          {...props}
          id="edit-runtime-version"
          name="runtime_version"
          k="runtimeVersion"
          label="Runtime version"
          placeholder="e.g. 22"
          disabled={!nodeRuntime}
          hint={nodeRuntime ? undefined : "Only node runtimes take a version."}
        />
        <DraftInput
          {...props}
          id="edit-ports"
          name="ports"
          k="ports"
          label="Ports"
          inputMode="numeric"
          placeholder="3000"
          hint="HTTP ports, separated by commas."
        />
        <DraftInput
          {...props}
          id="edit-entry-command"
          name="entrypoint_command"
          k="entryCommand"
          label="Entrypoint command"
        />
        <Field id="edit-entry-args" label="Entrypoint arguments" hint="One argument per line.">
          <textarea
            id="edit-entry-args"
            name="entrypoint_args"
            rows={3}
            spellCheck={false}
            className={cn(inputClass, "h-auto min-h-20 py-2 font-mono text-xs")}
            value={props.draft.entryArgs}
            onChange={props.set("entryArgs")}
            aria-describedby="edit-entry-args-hint"
          />
        </Field>
      </div>
    </fieldset>
  );
}

/** The owner's or admin's consent to a contract that asks for more than the product's current one. */
export function ApproveWidening({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <div className="flex items-start gap-2">
      <input
        id="approve-widening"
        name="approve_widening"
        type="checkbox"
        className={cn("mt-0.5 size-4 rounded border-slate-300 accent-slate-900", focusRing)}
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby="approve-widening-hint"
      />
      <div className="space-y-0.5">
        <Label htmlFor="approve-widening">Approve widening</Label>
        <p id="approve-widening-hint" className="text-xs text-slate-600">
          Allow this revision&apos;s capability contract to ask for more than the product&apos;s current contract.
        </p>
      </div>
    </div>
  );
}
