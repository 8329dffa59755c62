import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import type { TRevision } from "@/server/domain/source/source.contract";
import type { TDescriptor } from "@/server/domain/source/source.types";
import { formatUnits } from "../shared/format";

/** A revision's runtime descriptor as a read-only summary, with where each field came from, and its findings. */
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
      <dt className="flex items-center gap-2 text-slate-600">
        {label}
        <SourceBadge source={source} />
      </dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

export const Code = ({ children }: { children: ReactNode }) => (
  <code className="font-mono text-xs break-all">{children}</code>
);
export const None = ({ children = "none" }: { children?: ReactNode }) => (
  <span className="text-slate-600">{children}</span>
);

/** A command line as a shell would read it: arguments with spaces or quotes are single-quoted. */
function commandLine(command: string, args: string[]): string {
  const quote = (s: string) => (s === "" || /[\s'"\\$`]/.test(s) ? `'${s.replace(/'/g, `'\\''`)}'` : s);
  return [command, ...args.map(quote)].join(" ");
}

/* ------------------------------------------------------------------------------------------------
 * The descriptor, as a summary
 * ---------------------------------------------------------------------------------------------- */

export function DescriptorSummary({ descriptor }: { descriptor: TDescriptor }) {
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
              <Code>{bp.health.path}</Code>{" "}
              <span className="text-slate-600">(timeout {formatUnits(bp.health.timeout_ms)} ms)</span>
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

export function DescriptorFindings({ findings }: { findings: TRevision["findings"] }) {
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
