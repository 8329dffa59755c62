import { createHash } from "node:crypto";
import { CAPABILITY_RULES, isCapabilityId } from "@/server/domain/source/contract-rules";
import type { TDescriptor } from "@/server/domain/source/source.types";
import { unifiedDiff } from "./unified-diff";

/**
 * Deterministic fix rules: a finding plus the frozen files it concerns in,
 * a concrete proposal out (a patch with pre-image hashes and post-images,
 * or a descriptor edit), or null when no rule covers the finding.
 */
export type TFindingRef = { id: string | null; check: string | null; code: string; message: string };
/** One file of a source patch: its pre-image hash (null: the patch creates it) and its post-image. */
export type TFileChange = { path: string; before_sha256: string | null; after: string };
export type TProposal =
  | {
      rule: "missing_start_script" | "capabilities_schema";
      kind: "source_patch";
      summary: string;
      diff: string;
      files: TFileChange[];
    }
  | {
      rule: "health_path_not_found" | "wrong_port";
      kind: "descriptor_edit";
      summary: string;
      edits: Record<string, unknown>;
    };

export type TFixInput = {
  finding: TFindingRef;
  descriptor: TDescriptor | null;
  /** Contract rejection of the revision, if any. */
  contractRejection: { reason?: string } | null;
  /** Regular files of the frozen snapshot by path: JSON and JavaScript files with content, others by name (""). */
  files: Map<string, string>;
};

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/**
 * The finding codes that carry each rule's symptom, as data: a rule is tried
 * from every one of them (the rule still reads the frozen files and proposes
 * nothing unless its cause is there). The deployment's own findings
 * (`start_exited`, `health_check_failed`...) are copied into the evaluation,
 * so the specific finding works as well as the `deployment_failed` wrapper.
 * - missing_start_script: the app cannot be started or stays down
 *   (`npm start` without a script exits at once: start_exited);
 * - wrong_port: nothing answers on PORT (no health answer, an unreachable
 *   surface, a smoke request without an answer; a privileged or taken literal
 *   port makes the app exit);
 * - health_path_not_found: the health path answers 404 (a health check
 *   finding only when its message shows the 404);
 * - capabilities_schema: the contract was rejected for an unknown capability or action.
 */
export const RULE_SYMPTOMS = {
  missing_start_script: [
    "no_start_command",
    "deployment_failed",
    "deployment_blocked",
    "start_failed",
    "start_exited",
    "process_exited",
    "health_check_failed",
    "surface_unreachable",
    "smoke_runtime_error",
    "app_crashed",
  ],
  wrong_port: [
    "health_check_failed",
    "deployment_failed",
    "start_exited",
    "process_exited",
    "surface_unreachable",
    "smoke_runtime_error",
    "smoke_timeout",
    "app_crashed",
  ],
  health_path_not_found: ["health_path_not_found", "health_check_failed", "deployment_failed"],
  capabilities_schema: ["contract_rejected"],
} as const satisfies Record<TProposal["rule"], readonly string[]>;
const carries = (rule: keyof typeof RULE_SYMPTOMS, code: string) =>
  (RULE_SYMPTOMS[rule] as readonly string[]).includes(code);
const ENTRY_CANDIDATES = ["server.js", "index.js", "app.js", "main.js"];

function patch(path: string, before: string, after: string): { diff: string; files: TFileChange[] } {
  return { diff: unifiedDiff(path, before, after), files: [{ path, before_sha256: sha(before), after }] };
}

/** Re-serialises JSON in the file's own indentation (none, or the first indented line's). */
function stringifyLike(original: string, value: unknown): string {
  const indent = /\n([ \t]+)"/.exec(original)?.[1];
  return JSON.stringify(value, null, indent) + (original.endsWith("\n") ? "\n" : "");
}

function missingStartScript(input: TFixInput): TProposal | null {
  if (!carries("missing_start_script", input.finding.code)) return null;
  const text = input.files.get("package.json");
  if (text === undefined) return null;
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  const scripts = (pkg.scripts && typeof pkg.scripts === "object" ? pkg.scripts : {}) as Record<string, unknown>;
  if (typeof scripts.start === "string" && scripts.start.trim()) return null;
  const main = typeof pkg.main === "string" && input.files.has(pkg.main.trim()) ? pkg.main.trim() : null;
  const entry = main ?? ENTRY_CANDIDATES.find((f) => input.files.has(f));
  if (!entry) return null;
  const after = stringifyLike(text, { ...pkg, scripts: { ...scripts, start: `node ${entry}` } });
  return {
    rule: "missing_start_script",
    kind: "source_patch",
    summary: `package.json has no start script: add "start": "node ${entry}" (${main ? "its main file" : "the entry file found at the root"}).`,
    ...patch("package.json", text, after),
  };
}

function healthPathNotFound(input: TFixInput): TProposal | null {
  const plan = input.descriptor?.build_plan;
  if (!plan || plan.health.path === "/") return null;
  const code = input.finding.code;
  const is404 =
    code === "health_path_not_found" ||
    (carries("health_path_not_found", code) && /\b404\b/.test(input.finding.message));
  if (!is404) return null;
  return {
    rule: "health_path_not_found",
    kind: "descriptor_edit",
    summary: `The health path ${plan.health.path} answers 404: check "/" instead (build_plan.health.path).`,
    edits: { build_plan: { health: { path: "/" } } },
  };
}

/** The file the app starts from: `node <file>` in scripts.start, else main, else the usual root names. */
function entryFile(files: Map<string, string>): string | null {
  try {
    const pkg = JSON.parse(files.get("package.json") ?? "{}") as { scripts?: Record<string, unknown>; main?: unknown };
    const start =
      typeof pkg.scripts?.start === "string"
        ? /^node\s+(\S+\.[cm]?js)\b/.exec(pkg.scripts.start.trim())?.[1]
        : undefined;
    if (start && files.has(start.replace(/^\.\//, ""))) return start.replace(/^\.\//, "");
    if (typeof pkg.main === "string" && files.has(pkg.main.trim())) return pkg.main.trim();
  } catch {
    // Not JSON: fall back to the usual names.
  }
  return ENTRY_CANDIDATES.find((f) => files.has(f)) ?? null;
}

function wrongPort(input: TFixInput): TProposal | null {
  const plan = input.descriptor?.build_plan;
  if (!plan || !carries("wrong_port", input.finding.code)) return null;
  const entry = entryFile(input.files);
  const source = entry ? input.files.get(entry) : undefined;
  if (!source || /process\.env\.PORT|process\.env\[["']PORT["']\]/.test(source)) return null;
  const port = Number(/\.listen\(\s*(\d{2,5})\s*[,)]/.exec(source)?.[1]);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || port === plan.port) return null;
  return {
    rule: "wrong_port",
    kind: "descriptor_edit",
    summary: `${entry} listens on port ${port} (not PORT), but the build plan expects ${plan.port}: set the port to ${port}.`,
    edits: { ports: [{ port, protocol: "http" }] },
  };
}

function capabilitiesSchema(input: TFixInput): TProposal | null {
  const reason = input.contractRejection?.reason;
  if (
    !carries("capabilities_schema", input.finding.code) ||
    (reason !== "unknown_action" && reason !== "unknown_capability")
  )
    return null;
  const text = input.files.get("capabilities.json");
  if (text === undefined) return null;
  let doc: { capabilities?: unknown };
  try {
    doc = JSON.parse(text) as { capabilities?: unknown };
  } catch {
    return null;
  }
  if (!Array.isArray(doc.capabilities)) return null;
  const dropped: string[] = [];
  const kept = doc.capabilities.flatMap((c: Record<string, unknown>) => {
    if (!c || typeof c !== "object" || !isCapabilityId(c.id)) {
      dropped.push(`capability ${JSON.stringify(c?.id)}`);
      return [];
    }
    const known = CAPABILITY_RULES[c.id].actions;
    const actions = Array.isArray(c.actions) ? c.actions : [];
    const ok = actions.filter((a) => known.includes(a as string));
    for (const a of actions) if (!known.includes(a as string)) dropped.push(`action ${JSON.stringify(a)} of ${c.id}`);
    return ok.length ? [{ ...c, actions: ok }] : (dropped.push(`capability ${c.id} (no known action left)`), []);
  });
  if (!dropped.length) return null;
  const after = stringifyLike(text, { ...doc, capabilities: kept });
  return {
    rule: "capabilities_schema",
    kind: "source_patch",
    summary: `capabilities.json names what the platform does not offer: drop ${dropped.join(", ")}.`,
    ...patch("capabilities.json", text, after),
  };
}

export function proposeFix(input: TFixInput): TProposal | null {
  return missingStartScript(input) ?? wrongPort(input) ?? healthPathNotFound(input) ?? capabilitiesSchema(input);
}
