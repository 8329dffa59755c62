import { execFile } from "node:child_process";
import { access, constants, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { probeCgroups, resetCgroupProbe, type TCgroupHost } from "./cgroups";
import { runscWorks } from "./gvisor";
import { ensureTraversable, isRoot } from "./identity";
import { logger } from "@/server/platform/logger";

const run = promisify(execFile);

/**
 * What this host can enforce for a hosted app, probed once per process
 * (docs/decisions.md "Enforced isolation"):
 *  - `gvisor`: the app runs in gVisor (runsc), whose user-space kernel
 *    serves its system calls: a kernel boundary, no network at all, a
 *    read-only root; the only mode that counts as `isolated-vm` enforced;
 *  - `bubblewrap`: namespaces (no network at all, private /tmp, read-only
 *    runtime, only the deployment directory writable) on the host kernel;
 *  - `none`: a plain process (still under its own uid and limits).
 * `auto` takes the strongest that works; a named mode refuses to run without it.
 * Install and build steps run under bubblewrap when it works (install needs
 * the network for dependencies), else as plain processes.
 */
export type TSandboxMode = "gvisor" | "bubblewrap" | "none";

export type THostIsolation = {
  sandbox: TSandboxMode;
  /** Why a stronger sandbox was not used (absent, refused by the host, or disabled by configuration); null when the strongest ran. */
  sandbox_unavailable_reason: string | null;
  /** Where install and build run. */
  build_sandbox: "bubblewrap" | "none";
  kernel_boundary: boolean;
  filesystem: boolean;
  network: boolean;
  vm_boundary: false;
  /** Host facilities the limits use. */
  cgroups: TCgroupHost | null;
  tmpfs: boolean;
  prlimit: boolean;
  dedicated_uid: boolean;
  probed_at: string;
};

let probed: Promise<THostIsolation> | null = null;
let probedFor = "";

export function probeHost(mode: "auto" | TSandboxMode, workDir: string): Promise<THostIsolation> {
  const key = `${mode}:${workDir}`;
  if (!probed || probedFor !== key) {
    probedFor = key;
    probed = doProbe(mode, workDir);
    probed.catch(() => (probed = null));
  }
  return probed;
}

async function doProbe(mode: "auto" | TSandboxMode, workDir: string): Promise<THostIsolation> {
  await mkdir(workDir, { recursive: true, mode: 0o711 });
  const cgroups = await probeCgroups();
  const root = isRoot();
  if (root) {
    const changed = await ensureTraversable(workDir);
    if (changed.length)
      logger.info("runtime.runner_dir_traversable", {
        directories: changed,
        why: "the deployments' own uids must reach their directories (o+x only)",
      });
  }
  const base = {
    vm_boundary: false as const,
    probed_at: new Date().toISOString(),
    cgroups,
    dedicated_uid: root,
    tmpfs: root && (await tmpfsWorks(workDir)),
    prlimit: await executable(PRLIMIT),
  };
  const bwrapWhy = mode === "none" || mode === "gvisor" ? null : await bwrapWorks();
  const build_sandbox =
    mode === "none"
      ? ("none" as const)
      : (mode === "gvisor" ? await bwrapWorks() : bwrapWhy)
        ? ("none" as const)
        : ("bubblewrap" as const);
  if (mode === "none") {
    return {
      ...base,
      sandbox: "none",
      build_sandbox,
      sandbox_unavailable_reason: "disabled by CAPSTAN_RUNNER_SANDBOX=none",
      kernel_boundary: false,
      filesystem: false,
      network: false,
    };
  }
  let gvisorWhy: string | null = null;
  if (mode === "auto" || mode === "gvisor") {
    const uid = root ? PROBE_UID : (process.getuid?.() ?? 0);
    gvisorWhy = await runscWorks(workDir, false, uid, uid);
    if (!gvisorWhy)
      return {
        ...base,
        sandbox: "gvisor",
        build_sandbox,
        sandbox_unavailable_reason: null,
        kernel_boundary: true,
        filesystem: true,
        network: true,
      };
    if (mode === "gvisor") throw new Error(`CAPSTAN_RUNNER_SANDBOX=gvisor but gVisor cannot run here: ${gvisorWhy}`);
  }
  const why = mode === "bubblewrap" ? await bwrapWorks() : bwrapWhy;
  if (why) {
    if (mode === "bubblewrap")
      throw new Error(`CAPSTAN_RUNNER_SANDBOX=bubblewrap but bubblewrap cannot run here: ${why}`);
    return {
      ...base,
      sandbox: "none",
      build_sandbox: "none",
      sandbox_unavailable_reason: [gvisorWhy, why].filter(Boolean).join("; "),
      kernel_boundary: false,
      filesystem: false,
      network: false,
    };
  }
  return {
    ...base,
    sandbox: "bubblewrap",
    build_sandbox: "bubblewrap",
    kernel_boundary: false,
    filesystem: true,
    network: true,
    sandbox_unavailable_reason: mode === "auto" ? gvisorWhy : null,
  };
}

/** `nobody`: the probes only run /bin/true, never as host root. */
const PROBE_UID = 65_534;
const PRLIMIT = "/usr/bin/prlimit";

async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function bwrapWorks(): Promise<string | null> {
  if (!(await executable("/usr/bin/bwrap"))) return "bubblewrap is not installed (apt-get install bubblewrap)";
  try {
    const opts = isRoot() ? { uid: PROBE_UID, gid: PROBE_UID } : {};
    await run(
      "/usr/bin/bwrap",
      [
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--ro-bind",
        "/",
        "/",
        "--",
        "/bin/true",
      ],
      { timeout: 5_000, cwd: "/", ...opts },
    );
    return null;
  } catch (err) {
    return `bubblewrap is installed but refused to run (${String((err as Error).message).split("\n")[0]}); unprivileged user namespaces may be disabled`;
  }
}

/** Can we mount a size-capped tmpfs (the disk limit)? Only as root; tried once on a scratch directory. */
async function tmpfsWorks(workDir: string): Promise<boolean> {
  const dir = path.join(workDir, `.tmpfs-probe-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true });
    await run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", dir], { timeout: 5_000 });
    await run("/usr/bin/umount", [dir], { timeout: 5_000 });
    return true;
  } catch {
    return false;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

export function resetHostProbe(): void {
  probed = null;
  resetCgroupProbe();
}

/** Read-only system paths an app's runtime needs (when they exist). */
const SYSTEM_RO = ["/usr", "/etc/ssl", "/etc/ca-certificates", "/etc/alternatives"];
const SYSTEM_LINKS: Array<[string, string]> = [
  ["usr/lib", "/lib"],
  ["usr/lib64", "/lib64"],
  ["usr/bin", "/bin"],
  ["usr/sbin", "/sbin"],
];
/** Only the install step may reach the network (it fetches dependencies); it needs name resolution. */
const NET_RO = ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf"];

export type TSandboxMounts = {
  /** Host directory -> path inside the sandbox, writable. */
  writable: Array<[string, string]>;
  /** Host file or directory -> path inside, read-only. */
  readonly: Array<[string, string]>;
};

/**
 * The bwrap argument vector for one command. Everything is unshared
 * (user, pid, ipc, uts, cgroup, network); `--share-net` only for steps that
 * must fetch (install). The environment is cleared and set from `env`.
 * --die-with-parent is deliberately absent for the long-running start step
 * (`persistent`): the app outlives a restart of Capstan and is adopted by
 * the reconciler; stopping kills its whole process group.
 */
export function bwrapArgs(opts: {
  mounts: TSandboxMounts;
  env: Record<string, string>;
  cwd: string;
  argv: string[];
  network: boolean;
  persistent: boolean;
  /** The app's uid/gid inside (the same as on the host: bwrap runs as that user, so the mapping is never host root). */
  uid: number;
  gid: number;
}): string[] {
  // No --new-session: the sandbox is already the leader of its own session with no controlling
  // terminal (spawned detached, stdio not a tty), and staying in that process group lets a
  // stop reach every process of the app with one kill(-pgid).
  // A user namespace of the deployment's own (unprivileged) uid, no capabilities, and no further
  // user namespaces inside: raw sockets, mount and unshare all fail.
  const a: string[] = [
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--uid",
    String(opts.uid),
    "--gid",
    String(opts.gid),
    "--cap-drop",
    "ALL",
    "--clearenv",
  ];
  if (opts.network) a.push("--share-net");
  if (!opts.persistent) a.push("--die-with-parent");
  const nodePrefix = path.dirname(path.dirname(process.execPath));
  const ro = new Set(SYSTEM_RO);
  if (!nodePrefix.startsWith("/usr")) ro.add(nodePrefix);
  for (const p of ro) a.push("--ro-bind-try", p, p);
  for (const [target, link] of SYSTEM_LINKS) a.push("--symlink", target, link);
  if (opts.network) for (const p of NET_RO) a.push("--ro-bind-try", p, p);
  a.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  for (const [host, inside] of opts.mounts.readonly) a.push("--ro-bind", host, inside);
  for (const [host, inside] of opts.mounts.writable) a.push("--bind", host, inside);
  for (const [k, v] of Object.entries(opts.env)) a.push("--setenv", k, v);
  a.push("--chdir", opts.cwd, "--", ...opts.argv);
  return a;
}
