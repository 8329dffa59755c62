import { rejectCredential, shellQuote } from "./descriptor-edits";
import type { TBuildPlan, TDescriptor, TFinding, TTreeEntry } from "./source.types";

export { findCredential } from "./credential-scan";
export {
  applyDescriptorEdits,
  descriptorHash,
  ZBuildPlan,
  ZDescriptor,
  ZDescriptorConfirmationRequest,
  ZDescriptorEdits,
  ZDescriptorLimits,
  type TDescriptorEdits,
} from "./descriptor-edits";
import { ZDescriptorLimits } from "./descriptor-edits";

/**
 * The repository is neither a node app (root package.json) nor a shell app
 * (root start.sh with a shebang), or its package.json is unusable. Not a
 * spec rejection code: the freeze worker turns it into a failed freeze with a
 * problem document.
 */
export class UnsupportedSource extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedSource";
  }
}

type TPm = "pnpm" | "npm" | "yarn";
type TPackageJson = Record<string, unknown>;

const DEFAULT_PORT = 3000;
const HEALTH = { path: "/", timeout_ms: 5000 } as const;
/** Lockfiles in Railpack's order; npm-shrinkwrap.json and package-lock.json are both npm. */
const LOCKFILES: ReadonlyArray<readonly [string, TPm]> = [
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["package-lock.json", "npm"],
  ["npm-shrinkwrap.json", "npm"],
];
const FROZEN_INSTALL: Record<TPm, string> = {
  pnpm: "pnpm install --frozen-lockfile",
  yarn: "yarn install --frozen-lockfile",
  npm: "npm ci",
};
/** npm lifecycle scripts that run with each step; their text is scanned for credentials too. */
const HOOKS = {
  install: ["preinstall", "install", "postinstall", "prepare"],
  build: ["prebuild", "build", "postbuild"],
  start: ["prestart", "start", "poststart"],
} as const;

const finding = (severity: TFinding["severity"], code: string, message: string): TFinding => ({
  kind: "descriptor",
  severity,
  code,
  message,
});

/**
 * Detects the runtime descriptor of a frozen tree, following Railpack's node
 * provider order. Only regular files at the root count (a symlinked
 * package.json or start.sh is ignored, as the worker never reads through
 * symlinks).
 *
 * Node app (root package.json):
 * - package manager: the `packageManager` field (`pnpm@9.1.0` -> pnpm; an
 *   unknown manager gives a warning `unsupported_package_manager` and is
 *   ignored), else the lockfile. Several lockfiles of different managers give
 *   a warning `multiple_lockfiles` and no guess (packageManager or null); a
 *   lockfile of another manager than packageManager gives a warning
 *   `lockfile_mismatch` (packageManager wins); no lockfile gives an info
 *   `no_lockfile` (packageManager or npm).
 * - install: the frozen form (`npm ci`, `pnpm|yarn install --frozen-lockfile`)
 *   when the chosen manager's own lockfile exists, else `<pm> install`; null
 *   when the manager is null.
 * - scripts run through the manager, or npm when it is undetermined:
 *   `npm run <s>`, `pnpm run <s>`, `yarn <s>`.
 * - start: scripts.start, else `node <main>`, else `node index.js` when
 *   index.js exists, else still `node index.js` with an error finding
 *   `no_start_command`, so the developer can fix it at confirmation.
 * - build: scripts.build or null. Runtime version: engines.node, else the
 *   first line of .nvmrc, else of .node-version (leading `v` stripped), else
 *   null.
 * - port: package.json `config.port`, else `--port N`, `--port=N`, `-p N`,
 *   `PORT=N` or `${PORT:-N}` in the start script, else 3000 (values outside
 *   1..65535 are ignored). env: PORT and NODE_ENV.
 *
 * Shell app (no package.json, root start.sh whose first line is a shebang):
 * runtime shell without version, `bash start.sh` when the shebang names bash,
 * else `sh start.sh`; no install or build; port from `PORT=N` or
 * `${PORT:-N}` in the script, else 3000; env: PORT only.
 *
 * Anything else throws UnsupportedSource. A credential in a command or in the
 * script text a command runs (the start.sh, or the package.json scripts of
 * the step including its pre/post hooks) throws SourceRejection
 * `credential_in_descriptor` naming the descriptor field. Every field set is
 * `detected` in field_sources.
 */
export async function detectDescriptor(
  entries: TTreeEntry[],
  readFile: (path: string) => Promise<string>,
): Promise<{ descriptor: TDescriptor; findings: TFinding[] }> {
  const files = new Set(entries.filter((e) => e.kind === "file").map((e) => e.path));
  if (files.has("package.json")) return detectNode(files, readFile);
  if (files.has("start.sh")) return detectShell(await readFile("start.sh"));
  throw new UnsupportedSource(
    "No package.json or start.sh at the repository root: only node and shell apps are supported",
  );
}

async function detectNode(files: Set<string>, readFile: (path: string) => Promise<string>) {
  const pkg = parsePackageJson(await readFile("package.json"));
  const findings: TFinding[] = [];
  const scripts = stringMap(pkg.scripts);

  const pm = choosePackageManager(pkg, files, findings);
  const lockfileOfPm = LOCKFILES.some(([file, m]) => m === pm && files.has(file));
  const install = pm === null ? null : lockfileOfPm ? FROZEN_INSTALL[pm] : `${pm} install`;
  const runner: TPm = pm ?? "npm";
  const runArgs = (name: string) => (runner === "yarn" ? [name] : ["run", name]);

  let entrypoint: TDescriptor["entrypoint"];
  if (scripts.start) entrypoint = { command: runner, args: runArgs("start") };
  else if (typeof pkg.main === "string" && pkg.main.trim()) entrypoint = { command: "node", args: [pkg.main.trim()] };
  else {
    entrypoint = { command: "node", args: ["index.js"] };
    if (!files.has("index.js")) {
      findings.push(
        finding(
          "error",
          "no_start_command",
          "No start command found: package.json has no scripts.start or main and there is no index.js; `node index.js` is a placeholder, set the start command when confirming the descriptor",
        ),
      );
    }
  }
  const start = [entrypoint.command, ...entrypoint.args].map(shellQuote).join(" ");
  const build = scripts.build ? [runner, ...runArgs("build")].join(" ") : null;

  const hookText = (step: keyof typeof HOOKS) =>
    HOOKS[step]
      .map((h) => scripts[h])
      .filter(Boolean)
      .join("\n");
  rejectCredential("build_plan.install.command", [install, pm ? hookText("install") : ""].join("\n"));
  rejectCredential("build_plan.build.command", build && [build, hookText("build")].join("\n"));
  rejectCredential("build_plan.start.command", [start, scripts.start ? hookText("start") : ""].join("\n"));
  rejectCredential("entrypoint.command", entrypoint.command);
  entrypoint.args.forEach((a, i) => rejectCredential(`entrypoint.args.${i}`, a));

  const version = await nodeVersion(pkg, files, readFile);
  const port = configPort(pkg) ?? portIn(scripts.start ?? "", true) ?? DEFAULT_PORT;
  const plan: TBuildPlan = {
    runtime: { kind: "node", version },
    workdir: "/",
    install: { package_manager: pm, command: install },
    build: { command: build },
    start: { command: start },
    port,
    health: { ...HEALTH },
    env: ["PORT", "NODE_ENV"],
  };
  const descriptor = describe(entrypoint, plan);
  const limits = declaredLimits(pkg, findings);
  if (limits) {
    descriptor.limits = limits;
    descriptor.field_sources.limits = "detected";
  }
  return { descriptor, findings };
}

/**
 * package.json `capstan.limits` ({memory_mb, processes, cpu_weight, disk_mb},
 * positive integers): what the app asks for. A malformed value is a warning
 * and ignored (the plan's value applies).
 */
function declaredLimits(pkg: TPackageJson, findings: TFinding[]): TDescriptor["limits"] | null {
  const capstan = pkg.capstan;
  if (!capstan || typeof capstan !== "object" || Array.isArray(capstan)) return null;
  const raw = (capstan as Record<string, unknown>).limits;
  if (raw === undefined) return null;
  const parsed = ZDescriptorLimits.safeParse(raw);
  if (!parsed.success) {
    findings.push(
      finding(
        "warning",
        "limits_invalid",
        `package.json capstan.limits is ignored: ${parsed.error.issues.map((i) => `${i.path.join(".") || "limits"}: ${i.message}`).join("; ")}`,
      ),
    );
    return null;
  }
  return Object.keys(parsed.data).length ? parsed.data : null;
}

function detectShell(script: string) {
  const firstLine = script.split(/\r?\n/, 1)[0] ?? "";
  if (!firstLine.startsWith("#!")) {
    throw new UnsupportedSource(
      "start.sh at the repository root has no shebang line (#!): add `#!/bin/sh` or add a package.json",
    );
  }
  const shell = /\bbash\b/.test(firstLine) ? "bash" : "sh";
  const entrypoint = { command: shell, args: ["start.sh"] };
  const start = `${shell} start.sh`;
  rejectCredential("build_plan.start.command", `${start}\n${script}`);
  const plan: TBuildPlan = {
    runtime: { kind: "shell", version: null },
    workdir: "/",
    install: { package_manager: null, command: null },
    build: { command: null },
    start: { command: start },
    port: portIn(script, false) ?? DEFAULT_PORT,
    health: { ...HEALTH },
    env: ["PORT"],
  };
  return { descriptor: describe(entrypoint, plan), findings: [] as TFinding[] };
}

function describe(entrypoint: TDescriptor["entrypoint"], plan: TBuildPlan): TDescriptor {
  const field_sources: TDescriptor["field_sources"] = {
    runtime: "detected",
    entrypoint: "detected",
    ports: "detected",
  };
  for (const k of Object.keys(plan)) field_sources[`build_plan.${k}`] = "detected";
  return {
    runtime: { ...plan.runtime },
    entrypoint,
    ports: [{ port: plan.port, protocol: "http" }],
    field_sources,
    build_plan: plan,
  };
}

function parsePackageJson(text: string): TPackageJson {
  let pkg: unknown;
  try {
    pkg = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new UnsupportedSource(`package.json is not valid JSON (${(err as Error).message})`);
  }
  if (pkg === null || typeof pkg !== "object" || Array.isArray(pkg))
    throw new UnsupportedSource("package.json is not a JSON object");
  return pkg as TPackageJson;
}

/** The string-valued members of an object (package.json `scripts`); anything else is empty. */
function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === "object" && !Array.isArray(v)) {
    for (const [k, s] of Object.entries(v)) if (typeof s === "string" && s.trim()) out[k] = s;
  }
  return out;
}

function choosePackageManager(pkg: TPackageJson, files: Set<string>, findings: TFinding[]): TPm | null {
  let declared: TPm | null = null;
  if (typeof pkg.packageManager === "string") {
    const name = pkg.packageManager.trim().split("@")[0];
    if (name === "pnpm" || name === "npm" || name === "yarn") declared = name;
    else
      findings.push(
        finding(
          "warning",
          "unsupported_package_manager",
          `packageManager "${pkg.packageManager}" is not pnpm, npm or yarn; it is ignored`,
        ),
      );
  }
  const present = LOCKFILES.filter(([file]) => files.has(file));
  const managers = [...new Set(present.map(([, m]) => m))];
  const names = present.map(([file]) => file).join(", ");
  if (managers.length > 1) {
    findings.push(
      finding(
        "warning",
        "multiple_lockfiles",
        `Several lockfiles found (${names})${declared ? `; using packageManager (${declared})` : "; the package manager is not guessed, set the install command when confirming the descriptor"}`,
      ),
    );
  }
  if (declared && managers.length > 0 && !managers.includes(declared)) {
    findings.push(
      finding(
        "warning",
        "lockfile_mismatch",
        `packageManager says ${declared} but the lockfile is ${names}; using ${declared}`,
      ),
    );
  }
  if (managers.length === 0) {
    findings.push(
      finding(
        "info",
        "no_lockfile",
        `No lockfile found; dependencies are installed without one (${declared ?? "npm"} install)`,
      ),
    );
    return declared ?? "npm";
  }
  if (managers.length > 1) return declared;
  return declared ?? managers[0]!;
}

async function nodeVersion(
  pkg: TPackageJson,
  files: Set<string>,
  readFile: (path: string) => Promise<string>,
): Promise<string | null> {
  const engines = pkg.engines;
  if (engines && typeof engines === "object" && !Array.isArray(engines)) {
    const node = (engines as Record<string, unknown>).node;
    if (typeof node === "string" && node.trim()) return node.trim();
  }
  for (const file of [".nvmrc", ".node-version"]) {
    if (!files.has(file)) continue;
    const line = (await readFile(file))
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l && !l.startsWith("#"));
    if (line) return line.replace(/^v(?=\d)/, "");
  }
  return null;
}

function validPort(v: unknown): number | null {
  const n = typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v;
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535 ? n : null;
}

function configPort(pkg: TPackageJson): number | null {
  const config = pkg.config;
  if (!config || typeof config !== "object" || Array.isArray(config)) return null;
  return validPort((config as Record<string, unknown>).port);
}

/** The first port named in a script: PORT=N and ${PORT:-N}, and for start scripts also --port N, --port=N, -p N. */
function portIn(script: string, flags: boolean): number | null {
  const patterns = [/\bPORT=["']?(\d+)/, /\$\{PORT:-(\d+)\}/];
  if (flags) patterns.push(/(?:^|\s)--port[=\s]+(\d+)/, /(?:^|\s)-p\s+(\d+)/);
  let best: { at: number; port: number } | null = null;
  for (const re of patterns) {
    const m = re.exec(script);
    const port = m ? validPort(m[1]) : null;
    if (m && port !== null && (!best || m.index < best.at)) best = { at: m.index, port };
  }
  return best?.port ?? null;
}
