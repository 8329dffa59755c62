"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterInputs } from "@trpc/server";
import { CheckCheck } from "lucide-react";
import Link from "next/link";
import { useState, type FormEvent, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button, buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn, focusRing } from "@/components/ui/cn";
import { CopyButton } from "@/components/ui/copy-button";
import { Input, inputClass } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly, type TProblemView } from "@/lib/trpc/client";
import type { TCapabilityContract, TRevision } from "@/server/domain/source/source.contract";
import type { TContractRejectionReason, TDescriptor } from "@/server/domain/source/source.types";
import type { AppRouter } from "@/server/trpc/root";
import { formatDateTime, formatUnits } from "./format";
import { hasRole, workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { ContractStatusBadge, DescriptorStatusBadge } from "./product-view";
import { FreezeProgress, idLinkClass, stillFreezing } from "./products-view";

type TConfirmInput = inferRouterInputs<AppRouter>["source"]["confirmDescriptor"];
type TEdits = NonNullable<TConfirmInput["edits"]>;
type TFieldSource = "detected" | "developer";

/* ------------------------------------------------------------------------------------------------
 * Field sources: `field_sources` maps a descriptor field (dotted path, e.g. `build_plan.start.command`)
 * to `detected` or `developer`. A field without its own entry inherits the nearest parent's; a
 * parent shown as one row is `developer` as soon as any field below it is.
 * ---------------------------------------------------------------------------------------------- */

function sourceOf(sources: Record<string, TFieldSource>, key: string): TFieldSource | undefined {
  const below = Object.entries(sources).filter(([k]) => k.startsWith(`${key}.`) || k.startsWith(`${key}[`));
  if (below.some(([, v]) => v === "developer")) return "developer";
  for (let k = key; k; k = k.includes(".") ? k.slice(0, k.lastIndexOf(".")) : "") {
    if (sources[k]) return sources[k];
  }
  return below[0]?.[1];
}

function SourceBadge({ source }: { source: TFieldSource | undefined }) {
  if (!source) return null;
  return source === "developer" ? (
    <Badge tone="info" title="Set by a developer when the descriptor was confirmed">
      developer
    </Badge>
  ) : (
    <Badge title="Detected from the repository">detected</Badge>
  );
}

function Field({ label, source, children }: { label: string; source?: TFieldSource; children: ReactNode }) {
  return (
    <div className="min-w-0 space-y-1">
      <dt className="flex items-center gap-2 text-slate-500">
        {label}
        <SourceBadge source={source} />
      </dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

const Code = ({ children }: { children: ReactNode }) => <code className="font-mono text-xs break-all">{children}</code>;
const None = ({ children = "none" }: { children?: ReactNode }) => <span className="text-slate-500">{children}</span>;

/** A command line as a shell would read it: arguments with spaces or quotes are single-quoted. */
function commandLine(command: string, args: string[]): string {
  const quote = (s: string) => (s === "" || /[\s'"\\$`]/.test(s) ? `'${s.replace(/'/g, `'\\''`)}'` : s);
  return [command, ...args.map(quote)].join(" ");
}

/* ------------------------------------------------------------------------------------------------
 * The descriptor, as a summary
 * ---------------------------------------------------------------------------------------------- */

function DescriptorSummary({ descriptor }: { descriptor: TDescriptor }) {
  const fs = descriptor.field_sources;
  const bp = descriptor.build_plan;
  return (
    <div className="space-y-5">
      <section aria-labelledby="descriptor-run" className="space-y-3">
        <h3 id="descriptor-run" className="text-sm font-semibold text-slate-700">
          Runtime and entrypoint
        </h3>
        <dl className="grid gap-4 text-sm sm:grid-cols-2">
          <Field label="Runtime" source={sourceOf(fs, "runtime.kind")}>
            {descriptor.runtime.kind}
          </Field>
          <Field label="Runtime version" source={sourceOf(fs, "runtime.version")}>
            {descriptor.runtime.version ? <Code>{descriptor.runtime.version}</Code> : <None>any version</None>}
          </Field>
          <Field label="Entrypoint" source={sourceOf(fs, "entrypoint")}>
            <Code>{commandLine(descriptor.entrypoint.command, descriptor.entrypoint.args)}</Code>
          </Field>
          <Field label="Ports" source={sourceOf(fs, "ports")}>
            {descriptor.ports.length ? descriptor.ports.map((p) => `${p.port} (${p.protocol})`).join(", ") : <None />}
          </Field>
        </dl>
      </section>
      {bp ? (
        <section aria-labelledby="descriptor-build" className="space-y-3">
          <h3 id="descriptor-build" className="text-sm font-semibold text-slate-700">
            Build plan
          </h3>
          <dl className="grid gap-4 text-sm sm:grid-cols-2">
            <Field label="Package manager" source={sourceOf(fs, "build_plan.install.package_manager")}>
              {bp.install.package_manager ?? <None />}
            </Field>
            <Field label="Install command" source={sourceOf(fs, "build_plan.install.command")}>
              {bp.install.command ? <Code>{bp.install.command}</Code> : <None />}
            </Field>
            <Field label="Build command" source={sourceOf(fs, "build_plan.build.command")}>
              {bp.build.command ? <Code>{bp.build.command}</Code> : <None />}
            </Field>
            <Field label="Start command" source={sourceOf(fs, "build_plan.start.command")}>
              <Code>{bp.start.command}</Code>
            </Field>
            <Field label="Port" source={sourceOf(fs, "build_plan.port")}>
              {bp.port}
            </Field>
            <Field label="Health check" source={sourceOf(fs, "build_plan.health.path")}>
              <Code>{bp.health.path}</Code> <span className="text-slate-500">(timeout {formatUnits(bp.health.timeout_ms)} ms)</span>
            </Field>
            <Field label="Working directory" source={sourceOf(fs, "build_plan.workdir")}>
              <Code>{bp.workdir}</Code>
            </Field>
            <Field label="Environment" source={sourceOf(fs, "build_plan.env")}>
              {bp.env.length ? bp.env.join(", ") : <None />}
            </Field>
          </dl>
        </section>
      ) : (
        <p className="text-sm text-slate-600">No build plan was detected: the entrypoint is run as it is.</p>
      )}
    </div>
  );
}

function Findings({ findings }: { findings: TRevision["findings"] }) {
  if (!findings.length) return null;
  return (
    <section aria-labelledby="descriptor-findings" className="space-y-2">
      <h3 id="descriptor-findings" className="text-sm font-semibold text-slate-700">
        Findings
      </h3>
      <ul className="space-y-2">
        {findings.map((f, i) => (
          <li key={`${f.code}-${i}`}>
            <Alert tone={f.severity === "error" ? "danger" : f.severity === "info" ? "info" : "warning"}>
              <p>{f.message}</p>
              <p className="text-xs opacity-75">
                <code className="font-mono">{f.code}</code> · {f.kind}
              </p>
            </Alert>
          </li>
        ))}
      </ul>
    </section>
  );
}

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

function ConfirmForm({ ws, revision, descriptor, canApprove }: { ws: string; revision: TRevision; descriptor: TDescriptor; canApprove: boolean }) {
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
          <p id="edit-empty-hint" className="text-xs text-slate-500">
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
              <p id="edit-runtime-hint" className="text-xs text-slate-500">
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
            <p id="edit-ports-hint" className="text-xs text-slate-500">
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
            <p id="edit-args-hint" className="text-xs text-slate-500">
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
            <p id="approve-widening-hint" className="text-xs text-slate-500">
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

/* ------------------------------------------------------------------------------------------------
 * Capability contract
 * ---------------------------------------------------------------------------------------------- */

const CONTRACT_REASON: Record<TContractRejectionReason, string> = {
  unknown_capability: "capabilities.json names a capability the platform does not offer (only ai.generate, storage.object, data.kv and email.send exist).",
  unknown_action: "capabilities.json asks for an action its capability does not have.",
  scope_invalid: "A capability's scope is missing a field or has a value outside what is allowed.",
  scope_widened: "The contract asks for more than the product's current contract, and the widening was not approved.",
  owner_not_supported: "A capability names a credential owner it does not support (data.kv is owned by the platform; the others by the workspace).",
  contract_too_large: "capabilities.json is too large (more than 64 KiB or more than 32 capabilities).",
};

function scopeValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(scopeValue).join(", ");
  if (typeof v === "number") return formatUnits(v);
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

function ContractTable({ contract }: { contract: TCapabilityContract }) {
  return (
    <div className="space-y-3">
      <dl className="grid gap-x-6 gap-y-2 px-5 pt-4 text-sm sm:grid-cols-2">
        <div className="min-w-0">
          <dt className="text-slate-500">Contract hash</dt>
          <dd>
            <Code>{contract.contract_hash}</Code>
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Ready since</dt>
          <dd>{formatDateTime(contract.confirmed_at)}</dd>
        </div>
      </dl>
      {contract.capabilities.length === 0 ? (
        <p className="px-5 pb-4 text-sm text-slate-600">This revision asks for no capabilities.</p>
      ) : (
        <Table>
          <TableCaption>Capabilities this revision may use</TableCaption>
          <TableHeader>
            <TableRow>
              <TableHead>Capability</TableHead>
              <TableHead>Required</TableHead>
              <TableHead>Actions</TableHead>
              <TableHead>Scope</TableHead>
              <TableHead>Credential owner</TableHead>
              <TableHead>Provider policy</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {contract.capabilities.map((c) => (
              <TableRow key={c.id} className="align-top">
                <TableHead scope="row" className="py-3 font-mono text-xs font-medium tracking-normal text-slate-900 normal-case">
                  {c.id}
                </TableHead>
                <TableCell>{c.required ? "Yes" : "No"}</TableCell>
                <TableCell>
                  <ul className="flex flex-wrap gap-1">
                    {c.actions.map((a) => (
                      <li key={a}>
                        <Badge>{a}</Badge>
                      </li>
                    ))}
                  </ul>
                </TableCell>
                <TableCell>
                  <ul className="space-y-0.5 text-xs">
                    {Object.entries(c.scope).map(([k, v]) => (
                      <li key={k}>
                        <span className="font-mono text-slate-500">{k}</span>: <span className="break-all">{scopeValue(v)}</span>
                      </li>
                    ))}
                  </ul>
                </TableCell>
                <TableCell>{c.credential_owner}</TableCell>
                <TableCell>
                  <ul className="space-y-0.5 text-xs">
                    <li>
                      <span className="text-slate-500">allow</span>: {c.provider.allow.length ? c.provider.allow.join(", ") : "none"}
                    </li>
                    {c.provider.prefer ? (
                      <li>
                        <span className="text-slate-500">prefer</span>: {c.provider.prefer}
                      </li>
                    ) : null}
                    <li>
                      <span className="text-slate-500">fallback</span>: {c.provider.fallback === "listed" ? "to the other allowed providers" : "none"}
                    </li>
                  </ul>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </div>
  );
}

function ContractRejected({ reason }: { reason: TContractRejectionReason }) {
  return (
    <Alert tone="danger" title="The capability contract was rejected">
      <p>{CONTRACT_REASON[reason] ?? "The contract in capabilities.json is not valid."}</p>
      <p className="text-xs opacity-75">
        Reason: <code className="font-mono">{reason}</code>. Fix capabilities.json at the repository root and freeze the product again.
      </p>
    </Alert>
  );
}

function ContractCard({ ws, revision }: { ws: string; revision: TRevision }) {
  const trpc = useTRPC();
  const rejected = revision.capability_contract?.status === "rejected" ? revision.capability_contract.reason : null;
  const ready = !rejected && revision.descriptor_status === "confirmed";
  const contract = useQuery(trpc.source.capabilityContract.queryOptions({ workspace_id: ws, revision_id: revision.id }, { enabled: ready }));
  const data = contract.data;

  return (
    <Card>
      <CardHeader>
        <CardTitle>Capability contract</CardTitle>
        <CardDescription>What this revision may ask of the platform, read from capabilities.json at the repository root.</CardDescription>
      </CardHeader>
      <CardContent className={ready && data && !("capability_contract" in data) ? "px-0 py-0" : undefined}>
        {rejected ? <ContractRejected reason={rejected} /> : null}
        {!rejected && revision.descriptor_status === "detected" ? (
          <Alert>The capability contract becomes ready when the descriptor is confirmed.</Alert>
        ) : null}
        {!rejected && revision.descriptor_status === "pending" ? (
          <p className="text-sm text-slate-600">The contract is read once the source is frozen.</p>
        ) : null}
        {!rejected && revision.descriptor_status === "unavailable" ? (
          <p className="text-sm text-slate-600">There is no contract: the source freeze did not produce a revision that can run.</p>
        ) : null}
        {ready && contract.isPending ? <Loading what="capability contract" /> : null}
        {ready && contract.error ? <Alert problem={problemOf(contract.error)} /> : null}
        {ready && data ? "capability_contract" in data ? <ContractRejected reason={data.capability_contract.reason} /> : <ContractTable contract={data} /> : null}
      </CardContent>
    </Card>
  );
}

/* ------------------------------------------------------------------------------------------------
 * Page
 * ---------------------------------------------------------------------------------------------- */

/** A revision: its source, the detected runtime descriptor (edit and confirm) and its capability contract. */
export function RevisionView({ ws, rev }: { ws: string; rev: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const revision = useQuery(
    trpc.source.getRevision.queryOptions({ ws, rev }, { refetchInterval: (q) => (q.state.data && stillFreezing(q.state.data) ? 1000 : false) }),
  );
  const role = workspace.data?.role;
  const canConfirm = role === undefined || hasRole(role, "developer");
  const canApprove = hasRole(role, "admin");

  if (revision.error) {
    return (
      <>
        <PageHeader title="Revision" />
        <Alert problem={problemOf(revision.error)} />
      </>
    );
  }
  if (!revision.data) return <Loading what="revision" />;
  const r = revision.data;
  const d = r.descriptor;

  return (
    <>
      <PageHeader
        title="Revision"
        description={<code className="font-mono text-xs">{r.id}</code>}
        actions={
          <Link href={workspaceHref(ws, `/products/${r.product_id}`)} className={buttonVariants({ variant: "secondary", size: "sm" })}>
            Open product
          </Link>
        }
      />
      <div className="space-y-6">
        <Card>
          <CardContent>
            <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
              <div className="space-y-1 sm:col-span-2 lg:col-span-3">
                <dt className="text-slate-500">Revision id</dt>
                <dd className="flex flex-wrap items-center gap-2">
                  <code className="font-mono break-all">{r.id}</code>
                  <CopyButton value={r.id} size="sm" label="Copy id" />
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-500">Descriptor</dt>
                <dd>
                  <DescriptorStatusBadge status={r.descriptor_status} />
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-500">Capability contract</dt>
                <dd>
                  <ContractStatusBadge revision={r} />
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-500">Created</dt>
                <dd>{formatDateTime(r.created_at)}</dd>
              </div>
              <div className="min-w-0 space-y-1">
                <dt className="text-slate-500">Commit</dt>
                <dd>{r.commit_sha ? <Code>{r.commit_sha}</Code> : <None>not yet known</None>}</dd>
              </div>
              <div className="min-w-0 space-y-1">
                <dt className="text-slate-500">Snapshot</dt>
                <dd>
                  {r.snapshot ? (
                    <>
                      {formatUnits(r.snapshot.size_bytes)} bytes, sha256 <Code>{r.snapshot.sha256.slice(0, 12)}…</Code>
                    </>
                  ) : (
                    <None>not yet taken</None>
                  )}
                </dd>
              </div>
              <div className="min-w-0 space-y-1">
                <dt className="text-slate-500">Product</dt>
                <dd>
                  <Link href={workspaceHref(ws, `/products/${r.product_id}`)} className={idLinkClass}>
                    {r.product_id}
                  </Link>
                </dd>
              </div>
              {r.confirmed_by ? (
                <>
                  <div className="min-w-0 space-y-1">
                    <dt className="text-slate-500">Confirmed by</dt>
                    <dd>
                      <Code>{r.confirmed_by}</Code>
                    </dd>
                  </div>
                  <div className="min-w-0 space-y-1 sm:col-span-2">
                    <dt className="text-slate-500">Descriptor hash</dt>
                    <dd>{r.descriptor_hash ? <Code>{r.descriptor_hash}</Code> : <None />}</dd>
                  </div>
                </>
              ) : null}
            </dl>
          </CardContent>
        </Card>

        {r.descriptor_status === "pending" || r.descriptor_status === "unavailable" ? (
          <FreezeProgress ws={ws} frz={r.source_freeze_id} showProductLink={false} />
        ) : null}

        {d ? (
          <Card>
            <CardHeader>
              <CardTitle>Runtime descriptor</CardTitle>
              <CardDescription>
                How Capstan builds and runs this revision. Each field says whether it was detected from the repository or set by a developer.
              </CardDescription>
            </CardHeader>
            <CardContent className="space-y-5">
              <DescriptorSummary descriptor={d} />
              <Findings findings={r.findings} />
            </CardContent>
          </Card>
        ) : null}

        {d && r.descriptor_status === "detected" ? (
          <Card>
            <CardHeader>
              <CardTitle>Review and confirm</CardTitle>
              <CardDescription>
                Correct what was detected wrongly, then confirm. Only the fields you change are sent; confirming makes the capability contract
                ready.
              </CardDescription>
            </CardHeader>
            <CardContent className="space-y-3">
              {canConfirm ? (
                <ConfirmForm key={r.id} ws={ws} revision={r} descriptor={d} canApprove={canApprove} />
              ) : (
                <Alert>Only developers, admins and owners can confirm the descriptor. You are {role}.</Alert>
              )}
            </CardContent>
          </Card>
        ) : null}
        {r.descriptor_status === "confirmed" ? (
          <Alert tone="success" title="Descriptor confirmed">
            Confirmed{r.confirmed_by ? ` by ${r.confirmed_by}` : ""} on {formatDateTime(r.updated_at)}.
          </Alert>
        ) : null}

        <ContractCard ws={ws} revision={r} />
      </div>
    </>
  );
}
