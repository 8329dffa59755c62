import type { inferRouterInputs } from "@trpc/server";
import type { TProblemView } from "@/lib/trpc/client";
import type { TDescriptor } from "@/server/domain/source/source.types";
import type { AppRouter } from "@/server/trpc/root";

export type TConfirmInput = inferRouterInputs<AppRouter>["source"]["confirmDescriptor"];
type TEdits = NonNullable<TConfirmInput["edits"]>;

/* ------------------------------------------------------------------------------------------------
 * Edit and confirm (spec 2.6): only the fields the user changed are sent.
 * ---------------------------------------------------------------------------------------------- */

export type TDraft = {
  install: string;
  build: string;
  start: string;
  health: string;
  runtimeVersion: string;
  entryCommand: string;
  entryArgs: string;
  ports: string;
};

export function draftOf(d: TDescriptor): TDraft {
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
export function buildEdits(
  d: TDescriptor,
  initial: TDraft,
  draft: TDraft,
): { edits: TEdits; changed: string[] } | { problem: TProblemView } {
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
      if (!draft.health.trim().startsWith("/"))
        errors.push({ path: "Health check path", message: "must start with /" });
      else bp.health = { path: draft.health.trim() };
    }
    if (Object.keys(bp).length) edits.build_plan = bp;
  }
  if (differs("runtimeVersion")) {
    if (d.runtime.kind !== "node")
      errors.push({ path: "Runtime version", message: "only node runtimes take a version" });
    else if (!draft.runtimeVersion.trim())
      errors.push({ path: "Runtime version", message: "enter a version, e.g. 20 or 22.x" });
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
  if (errors.length)
    return { problem: { title: "Check the highlighted fields", detail: "Some edits are not valid.", errors } };

  for (const k of Object.keys(FIELD_LABEL) as (keyof TDraft)[]) {
    if (k === "entryArgs" ? argsOf(draft.entryArgs).join("\n") !== argsOf(initial.entryArgs).join("\n") : differs(k))
      changed.push(FIELD_LABEL[k]);
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
export function confirmFailure(
  problem: TProblemView | null,
  canApprove: boolean,
): { title: string; sentence?: string } {
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
