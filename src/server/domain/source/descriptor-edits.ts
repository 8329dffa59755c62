import { z } from "zod";
import { canonicalJson } from "@/server/platform/canonical-json";
import { sha256Hex } from "@/server/platform/crypto";
import { findCredential } from "./credential-scan";
import { SourceRejection, type TBuildPlan, type TDescriptor } from "./source.types";

/** Spec 2.5 runtime descriptor (response validation). Ports follow spec 8 (1..65535). */
const ZRuntime = z.object({ kind: z.enum(["node", "shell"]), version: z.string().nullable() });
const zPort = z.number().int().min(1).max(65535);

export const ZBuildPlan = z.object({
  runtime: ZRuntime,
  workdir: z.string().startsWith("/"),
  install: z.object({ package_manager: z.enum(["pnpm", "npm", "yarn"]).nullable(), command: z.string().nullable() }),
  build: z.object({ command: z.string().nullable() }),
  start: z.object({ command: z.string() }),
  port: zPort,
  health: z.object({ path: z.string().startsWith("/"), timeout_ms: z.number().int().positive() }),
  env: z.array(z.enum(["PORT", "NODE_ENV"])),
});

/**
 * Resource limits a descriptor may ask for (our extension; docs/decisions.md
 * "Enforced isolation"): each at most the workspace plan's, checked when a
 * deployment is requested. Absent fields take the plan's value.
 */
const zLimit = (max: number) => z.number().int().min(1).max(max);
export const ZDescriptorLimits = z.strictObject({
  memory_mb: zLimit(1_048_576).optional(),
  processes: zLimit(1_000_000).optional(),
  cpu_weight: zLimit(10_000).optional(),
  disk_mb: zLimit(16_777_216).optional(),
});

export const ZDescriptor = z
  .object({
    runtime: ZRuntime,
    entrypoint: z.object({ command: z.string(), args: z.array(z.string()) }),
    ports: z.array(z.object({ port: zPort, protocol: z.literal("http") })),
    field_sources: z.record(z.string(), z.enum(["detected", "developer"])),
    build_plan: ZBuildPlan.optional(),
    limits: ZDescriptorLimits.optional(),
  })
  .meta({ id: "Descriptor" });

/** Spec 2.6 `edits`: every object strict, every part optional. */
export const ZDescriptorEdits = z.strictObject({
  build_plan: z
    .strictObject({
      install: z.strictObject({ command: z.string().nullable() }).optional(),
      build: z.strictObject({ command: z.string().nullable() }).optional(),
      start: z.strictObject({ command: z.string() }).optional(),
      health: z.strictObject({ path: z.string().startsWith("/") }).optional(),
    })
    .optional(),
  runtime: z.strictObject({ kind: z.literal("node"), version: z.string().min(1) }).optional(),
  entrypoint: z.strictObject({ command: z.string().min(1), args: z.array(z.string()) }).optional(),
  ports: z.array(z.strictObject({ port: zPort, protocol: z.literal("http") })).optional(),
  /** Our extension: resource limits for the app (each at most the plan's; merged over detected ones). */
  limits: ZDescriptorLimits.optional(),
});
export type TDescriptorEdits = z.infer<typeof ZDescriptorEdits>;

/**
 * Spec 2.6 descriptor confirmation request. `approve_widening` is our
 * extension (design "Source intake"): an owner/admin accepts a contract that
 * asks for more than the product's current one.
 */
export const ZDescriptorConfirmationRequest = z
  .strictObject({ edits: ZDescriptorEdits.optional(), approve_widening: z.boolean().optional() })
  .meta({ id: "DescriptorConfirmationRequest" });

/** sha256 of the RFC 8785 canonical JSON of the descriptor (field_sources included). */
export function descriptorHash(descriptor: TDescriptor): string {
  return sha256Hex(canonicalJson(descriptor));
}

/** Throws `credential_in_descriptor` naming `field` when `text` looks like a credential. */
export function rejectCredential(field: string, text: string | null | undefined): void {
  if (text == null) return;
  const kind = findCredential(text);
  if (kind) {
    throw new SourceRejection(
      "credential_in_descriptor",
      `The descriptor field ${field} contains what looks like ${kind}; pass secrets as environment variables or credentials, not in commands`,
      { field },
    );
  }
}

const SAFE_WORD = /^[A-Za-z0-9_./@%+=:,-]+$/;
/** POSIX shell quoting of one word (single quotes unless the word is plain). */
export function shellQuote(word: string): string {
  return SAFE_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function managerOf(command: string | null): TBuildPlan["install"]["package_manager"] {
  const first = command?.trim().split(/\s+/)[0];
  return first === "pnpm" || first === "npm" || first === "yarn" ? first : null;
}

/** A build plan for a descriptor stored without one (detection always writes one). */
function planFrom(d: TDescriptor): TBuildPlan {
  return {
    runtime: { ...d.runtime },
    workdir: "/",
    install: { package_manager: null, command: null },
    build: { command: null },
    start: { command: [d.entrypoint.command, ...d.entrypoint.args].map(shellQuote).join(" ") },
    port: d.ports[0]?.port ?? 3000,
    health: { path: "/", timeout_ms: 5000 },
    env: ["PORT", "NODE_ENV"],
  };
}

/**
 * Applies spec 2.6 edits and returns a new descriptor; the input is not
 * modified. Every edited field becomes `developer` in field_sources, under the
 * keys detection uses ("runtime", "entrypoint", "ports", "build_plan.install",
 * "build_plan.build", "build_plan.start", "build_plan.health", ...).
 *
 * The descriptor holds some facts twice, and an edit keeps the copies in step:
 * - `runtime` also sets `build_plan.runtime`;
 * - `ports` also sets `build_plan.port` to the first port (an empty list
 *   leaves `build_plan.port` alone);
 * - `build_plan.start.command` alone also sets the entrypoint to
 *   `sh -c <command>`; `entrypoint` alone also sets `build_plan.start.command`
 *   to the shell-quoted argv; both edited are taken as given;
 * - `build_plan.install.command` also sets `install.package_manager` from its
 *   first word (pnpm, npm or yarn; otherwise, or for a null command, null);
 * - `build_plan.health.path` keeps the detected `timeout_ms`.
 * Every edited string is checked for credentials first, so a refusal changes
 * nothing; the rejection's `detail.field` is the edit's path with dots
 * (e.g. `build_plan.start.command`, `entrypoint.args.1`).
 */
export function applyDescriptorEdits(descriptor: TDescriptor, edits: TDescriptorEdits): TDescriptor {
  const bp = edits.build_plan ?? {};
  rejectCredential("build_plan.install.command", bp.install?.command);
  rejectCredential("build_plan.build.command", bp.build?.command);
  rejectCredential("build_plan.start.command", bp.start?.command);
  rejectCredential("build_plan.health.path", bp.health?.path);
  rejectCredential("runtime.version", edits.runtime?.version);
  rejectCredential("entrypoint.command", edits.entrypoint?.command);
  edits.entrypoint?.args.forEach((arg, i) => rejectCredential(`entrypoint.args.${i}`, arg));

  const out = structuredClone(descriptor);
  const sources: TDescriptor["field_sources"] = { ...out.field_sources };
  if (!out.build_plan) {
    out.build_plan = planFrom(out);
    for (const k of ["runtime", "workdir", "install", "build", "start", "port", "health", "env"])
      sources[`build_plan.${k}`] ??= "detected";
  }
  const plan = out.build_plan;
  const mark = (...keys: string[]) => keys.forEach((k) => (sources[k] = "developer"));

  if (bp.install) {
    plan.install = { package_manager: managerOf(bp.install.command), command: bp.install.command };
    mark("build_plan.install");
  }
  if (bp.build) {
    plan.build = { command: bp.build.command };
    mark("build_plan.build");
  }
  if (bp.health) {
    plan.health = { ...plan.health, path: bp.health.path };
    mark("build_plan.health");
  }
  if (edits.runtime) {
    out.runtime = { kind: edits.runtime.kind, version: edits.runtime.version };
    plan.runtime = { ...out.runtime };
    mark("runtime", "build_plan.runtime");
  }
  if (edits.ports) {
    out.ports = edits.ports.map((p) => ({ port: p.port, protocol: p.protocol }));
    mark("ports");
    if (edits.ports[0]) {
      plan.port = edits.ports[0].port;
      mark("build_plan.port");
    }
  }
  if (bp.start || edits.entrypoint) {
    const entry = edits.entrypoint ?? { command: "sh", args: ["-c", bp.start!.command] };
    out.entrypoint = { command: entry.command, args: [...entry.args] };
    plan.start = { command: bp.start?.command ?? [entry.command, ...entry.args].map(shellQuote).join(" ") };
    mark("entrypoint", "build_plan.start");
  }
  if (edits.limits) {
    out.limits = { ...out.limits, ...edits.limits };
    mark("limits");
  }
  out.field_sources = sources;
  return out;
}
