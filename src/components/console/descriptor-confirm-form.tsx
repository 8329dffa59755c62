"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterInputs } from "@trpc/server";
import { CheckCheck } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { cn, focusRing } from "@/components/ui/cn";
import { Input, inputClass } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { problemOf, useTRPC, type TProblemView } from "@/lib/trpc/client";
import type { TRevision } from "@/server/domain/source/source.contract";
import type { TDescriptor } from "@/server/domain/source/source.types";
import type { AppRouter } from "@/server/trpc/root";

type TConfirmInput = inferRouterInputs<AppRouter>["source"]["confirmDescriptor"];
type TEdits = NonNullable<TConfirmInput["edits"]>;

/* ------------------------------------------------------------------------------------------------
 * Edit and confirm (spec 2.6): only the fields the user changed are sent.
 * ---------------------------------------------------------------------------------------------- */

type TDraft = {
  install: string;
  build: string;
  start: string;
  health: string;
  runtimeVersion: string;
  entryCommand: string;
  entryArgs: string;
  ports: string;
};

function draftOf(d: TDescriptor): TDraft {
  return {
    install: d.build_plan?.install.command ?? "",
    build: d.build_plan?.build.command ?? "",
    start: d.build_plan?.start.command ?? "",
    health: d.build_plan?.health.path ?? "",
    runtimeVersion: d.runtime.version ?? "",
    entryCommand: d.entrypoint.command,
    entryArgs: d.entrypoint.args.join("\n"),
    ports: d.ports.map((p) => p.port).join(", "),
  };
}

const FIELD_LABEL: Record<keyof TDraft, string> = {
  install: "Install command",
  build: "Build command",
  start: "Start command",
  health: "Health check path",
  runtimeVersion: "Runtime version",
  entryCommand: "Entrypoint command",
  entryArgs: "Entrypoint arguments",
  ports: "Ports",
};

const argsOf = (raw: string) =>
  raw
    .split("\n")
    .map((a) => a.trim())
    .filter((a) => a !== "");

/** The spec 2.6 `edits` for what differs from the detected descriptor, or the field errors. */
function buildEdits(d: TDescriptor, initial: TDraft, draft: TDraft): { edits: TEdits; changed: string[] } | { problem: TProblemView } {
  const errors: { path: string; message: string }[] = [];
  const edits: TEdits = {};
  const changed: string[] = [];
  const differs = (k: keyof TDraft) => draft[k].trim() !== initial[k].trim();

  if (d.build_plan) {
    const bp: NonNullable<TEdits["build_plan"]> = {};
    if (differs("install")) bp.install = { command: draft.install.trim() || null };
    if (differs("build")) bp.build = { command: draft.build.trim() || null };
    if (differs("start")) {
      if (!draft.start.trim()) errors.push({ path: "Start command", message: "enter the command that starts the app" });
      else bp.start = { command: draft.start.trim() };
    }
    if (differs("health")) {
      if (!draft.health.trim().startsWith("/")) errors.push({ path: "Health check path", message: "must start with /" });
      else bp.health = { path: draft.health.trim() };
    }
    if (Object.keys(bp).length) edits.build_plan = bp;
  }
  if (differs("runtimeVersion")) {
    if (d.runtime.kind !== "node") errors.push({ path: "Runtime version", message: "only node runtimes take a version" });
    else if (!draft.runtimeVersion.trim()) errors.push({ path: "Runtime version", message: "enter a version, e.g. 20 or 22.x" });
    else edits.runtime = { kind: "node", version: draft.runtimeVersion.trim() };
  }
  if (differs("entryCommand") || argsOf(draft.entryArgs).join("\n") !== argsOf(initial.entryArgs).join("\n")) {
    if (!draft.entryCommand.trim()) errors.push({ path: "Entrypoint command", message: "enter the command to run" });
    else edits.entrypoint = { command: draft.entryCommand.trim(), args: argsOf(draft.entryArgs) };
  }
  if (differs("ports")) {
    const parts = draft.ports.split(/[\s,]+/).filter(Boolean);
    const ports = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
    const bad = parts.filter((_, i) => !Number.isInteger(ports[i]) || ports[i]! < 1 || ports[i]! > 65535);
    if (bad.length) errors.push({ path: "Ports", message: `not a port number from 1 to 65535: ${bad.join(", ")}` });
    else edits.ports = ports.map((port) => ({ port, protocol: "http" as const }));
  }
  if (errors.length) return { problem: { title: "Check the highlighted fields", detail: "Some edits are not valid.", errors } };

  for (const k of Object.keys(FIELD_LABEL) as (keyof TDraft)[]) {
    if (k === "entryArgs" ? argsOf(draft.entryArgs).join("\n") !== argsOf(initial.entryArgs).join("\n") : differs(k)) changed.push(FIELD_LABEL[k]);
  }
  return { edits, changed };
}

/** `/edits/build_plan/start/command` -> "Start command" (or the dotted field when we have no label). */
function editFieldLabel(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const dotted = path.replace(/^\/(edits\/)?/, "").replace(/\//g, ".");
  const labels: Record<string, string> = {
    "build_plan.install.command": "Install command",
    "build_plan.build.command": "Build command",
    "build_plan.start.command": "Start command",
    "build_plan.health.path": "Health check path",
    "runtime.version": "Runtime version",
    "entrypoint.command": "Entrypoint command",
    entrypoint: "Entrypoint",
  };
  const label = labels[dotted] ?? (dotted.startsWith("entrypoint.args") ? "Entrypoint arguments" : undefined);
  return label ? `${label} (${dotted})` : dotted;
}

/** Words for the 409/422 answers of descriptor:confirm; the problem document follows them. */
function confirmFailure(problem: TProblemView | null, canApprove: boolean): { title: string; sentence?: string } {
  switch (problem?.reason) {
    case "scope_widened":
      return {
        title: "The capability contract asks for more than the product's current contract",
        sentence: canApprove
          ? "If the app really needs more, tick “Approve widening” and confirm again; otherwise narrow capabilities.json and freeze again."
          : "An owner or admin of this workspace must approve the widening.",
      };
    case "credential_in_descriptor": {
      const field = editFieldLabel(problem.errors?.[0]?.path);
      return {
        title: "A field looks like it contains a credential",
        sentence: `${field ? `${field}: ` : ""}secrets do not belong in the descriptor. Read them from the environment at run time instead.`,
      };
    }
    case "already_confirmed":
      return { title: "This revision is already confirmed" };
    case "freeze_pending":
      return { title: "The source is still being frozen", sentence: "Wait for the freeze to finish, then confirm." };
    case "descriptor_unavailable":
      return { title: "There is no descriptor to confirm" };
    case "role_required":
      return { title: "Only owners and admins can approve a widening" };
    default:
      return { title: "The descriptor was not confirmed" };
  }
}

const textareaClass = cn(inputClass, "h-auto min-h-20 py-2 font-mono text-xs");

export function DescriptorConfirmForm({ ws, revision, descriptor, canApprove }: { ws: string; revision: TRevision; descriptor: TDescriptor; canApprove: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [initial] = useState(() => draftOf(descriptor));
  const [draft, setDraft] = useState<TDraft>(initial);
  const [approve, setApprove] = useState(false);
  const [clientProblem, setClientProblem] = useState<TProblemView | null>(null);
  const confirm = useMutation(
    trpc.source.confirmDescriptor.mutationOptions({
      onSuccess: async () => {
        await Promise.all([
          queryClient.invalidateQueries(trpc.source.getRevision.pathFilter()),
          queryClient.invalidateQueries(trpc.source.listRevisions.pathFilter()),
          queryClient.invalidateQueries(trpc.source.capabilityContract.pathFilter()),
        ]);
      },
    }),
  );
  const preview = buildEdits(descriptor, initial, draft);
  const changed = "changed" in preview ? preview.changed : [];
  const bp = descriptor.build_plan;
  const nodeRuntime = descriptor.runtime.kind === "node";

  function set<K extends keyof TDraft>(k: K) {
    return (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    confirm.reset();
    const built = buildEdits(descriptor, initial, draft);
    if ("problem" in built) {
      setClientProblem(built.problem);
      return;
    }
    setClientProblem(null);
    const input: TConfirmInput = { ws, prod: revision.product_id, rev: revision.id };
    if (Object.keys(built.edits).length) input.edits = built.edits;
    if (canApprove && approve) input.approve_widening = true;
    confirm.mutate(input);
  }

  const serverProblem = problemOf(confirm.error);
  const failure = serverProblem ? confirmFailure(serverProblem, canApprove) : null;
  const invalid = (label: string) => (clientProblem?.errors?.some((e) => e.path === label) ? true : undefined);

  return (
    <form onSubmit={submit} className="space-y-5" noValidate>
      {bp ? (
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold text-slate-700">Build plan</legend>
          <div className="grid gap-3 sm:grid-cols-2">
            <div className="space-y-1.5">
              <Label htmlFor="edit-install">Install command</Label>
              <Input id="edit-install" name="install" autoComplete="off" className="font-mono text-xs" value={draft.install} onChange={set("install")} aria-describedby="edit-empty-hint" />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="edit-build">Build command</Label>
              <Input id="edit-build" name="build" autoComplete="off" className="font-mono text-xs" value={draft.build} onChange={set("build")} aria-describedby="edit-empty-hint" />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="edit-start">Start command</Label>
              <Input id="edit-start" name="start" autoComplete="off" className="font-mono text-xs" value={draft.start} onChange={set("start")} aria-invalid={invalid("Start command")} />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="edit-health">Health check path</Label>
              <Input id="edit-health" name="health" autoComplete="off" className="font-mono text-xs" placeholder="/healthz" value={draft.health} onChange={set("health")} aria-invalid={invalid("Health check path")} />
            </div>
          </div>
          <p id="edit-empty-hint" className="text-xs text-slate-600">
            Leave the install or build command empty to skip that step. The start command and the entrypoint describe the same process:
            changing only one of them updates the other.
          </p>
        </fieldset>
      ) : null}
      <fieldset className="space-y-3">
        <legend className="text-sm font-semibold text-slate-700">Runtime and entrypoint</legend>
        <div className="grid gap-3 sm:grid-cols-2">
          <div className="space-y-1.5">
            <Label htmlFor="edit-runtime-version">Runtime version</Label>
            <Input
              id="edit-runtime-version"
              name="runtime_version"
              autoComplete="off"
              className="font-mono text-xs"
              placeholder="e.g. 22"
              value={draft.runtimeVersion}
              disabled={!nodeRuntime}
              onChange={set("runtimeVersion")}
              aria-invalid={invalid("Runtime version")}
              aria-describedby={nodeRuntime ? undefined : "edit-runtime-hint"}
            />
            {nodeRuntime ? null : (
              <p id="edit-runtime-hint" className="text-xs text-slate-600">
                Only node runtimes take a version.
              </p>
            )}
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="edit-ports">Ports</Label>
            <Input
              id="edit-ports"
              name="ports"
              autoComplete="off"
              inputMode="numeric"
              className="font-mono text-xs"
              placeholder="3000"
              value={draft.ports}
              onChange={set("ports")}
              aria-invalid={invalid("Ports")}
              aria-describedby="edit-ports-hint"
            />
            <p id="edit-ports-hint" className="text-xs text-slate-600">
              HTTP ports, separated by commas.
            </p>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="edit-entry-command">Entrypoint command</Label>
            <Input id="edit-entry-command" name="entrypoint_command" autoComplete="off" className="font-mono text-xs" value={draft.entryCommand} onChange={set("entryCommand")} aria-invalid={invalid("Entrypoint command")} />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="edit-entry-args">Entrypoint arguments</Label>
            <textarea
              id="edit-entry-args"
              name="entrypoint_args"
              rows={3}
              spellCheck={false}
              className={textareaClass}
              value={draft.entryArgs}
              onChange={set("entryArgs")}
              aria-describedby="edit-args-hint"
            />
            <p id="edit-args-hint" className="text-xs text-slate-600">
              One argument per line.
            </p>
          </div>
        </div>
      </fieldset>

      {canApprove ? (
        <div className="flex items-start gap-2">
          <input
            id="approve-widening"
            name="approve_widening"
            type="checkbox"
            className={cn("mt-0.5 size-4 rounded border-slate-300 accent-slate-900", focusRing)}
            checked={approve}
            onChange={(e) => setApprove(e.target.checked)}
            aria-describedby="approve-widening-hint"
          />
          <div className="space-y-0.5">
            <Label htmlFor="approve-widening">Approve widening</Label>
            <p id="approve-widening-hint" className="text-xs text-slate-600">
              Allow this revision&apos;s capability contract to ask for more than the product&apos;s current contract.
            </p>
          </div>
        </div>
      ) : null}

      <p className="text-sm text-slate-600" aria-live="polite">
        {changed.length ? `You changed: ${changed.join(", ")}. These fields become “developer”.` : "No changes: the detected descriptor is confirmed as it is."}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={confirm.isPending}>
          <CheckCheck aria-hidden="true" />
          {confirm.isPending ? "Confirming…" : "Confirm descriptor"}
        </Button>
        <Button
          variant="secondary"
          disabled={confirm.isPending || changed.length === 0}
          onClick={() => {
            setDraft(initial);
            setClientProblem(null);
          }}
        >
          Undo changes
        </Button>
      </div>
      {clientProblem ? <Alert problem={clientProblem} /> : null}
      {serverProblem && failure ? (
        <Alert title={failure.title} problem={serverProblem}>
          {failure.sentence ? <p>{failure.sentence}</p> : null}
        </Alert>
      ) : null}
    </form>
  );
}
