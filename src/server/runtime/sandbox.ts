import { execFile } from "node:child_process";
import { access, constants } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * What this host can enforce for a hosted app, probed once per process:
 * bubblewrap (all namespaces unshared: no network at all, private /tmp, a
 * read-only runtime, only the deployment directory writable) and whether
 * cgroup controllers are writable for resource limits. The local runner is
 * a process runner: it never provides the `isolated-vm` boundary, so
 * `enforced` is always false here; the report says what was enforced.
 */
export type THostIsolation = {
  sandbox: "bubblewrap" | "none";
  /** Why the sandbox is off (absent, refused by the host, or disabled by configuration). */
  sandbox_unavailable_reason: string | null;
  filesystem: boolean;
  network: boolean;
  resource_limits: boolean;
  vm_boundary: false;
  probed_at: string;
};

let probed: Promise<THostIsolation> | null = null;
let probedFor = "";

export function probeHost(mode: "auto" | "bubblewrap" | "none"): Promise<THostIsolation> {
  if (!probed || probedFor !== mode) {
    probedFor = mode;
    probed = doProbe(mode);
  }
  return probed;
}

async function doProbe(mode: "auto" | "bubblewrap" | "none"): Promise<THostIsolation> {
  const base = { vm_boundary: false as const, probed_at: new Date().toISOString(), resource_limits: await cgroupsWritable() };
  if (mode === "none") {
    return { ...base, sandbox: "none", sandbox_unavailable_reason: "disabled by CAPSTAN_RUNNER_SANDBOX=none", filesystem: false, network: false, resource_limits: false };
  }
  const why = await bwrapWorks();
  if (why) {
    if (mode === "bubblewrap") throw new Error(`CAPSTAN_RUNNER_SANDBOX=bubblewrap but bubblewrap cannot run here: ${why}`);
    return { ...base, sandbox: "none", sandbox_unavailable_reason: why, filesystem: false, network: false, resource_limits: false };
  }
  // Resource limits need a delegated cgroup subtree; the local runner does not create one yet.
  return { ...base, sandbox: "bubblewrap", sandbox_unavailable_reason: null, filesystem: true, network: true, resource_limits: false };
}

async function bwrapWorks(): Promise<string | null> {
  try {
    await access("/usr/bin/bwrap", constants.X_OK);
  } catch {
    return "bubblewrap is not installed (apt-get install bubblewrap)";
  }
  try {
    await run("/usr/bin/bwrap", ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--", "/bin/true"], { timeout: 5_000 });
    return null;
  } catch (err) {
    return `bubblewrap is installed but refused to run (${String((err as Error).message).split("\n")[0]}); unprivileged user namespaces may be disabled`;
  }
}

async function cgroupsWritable(): Promise<boolean> {
  try {
    await access("/sys/fs/cgroup/cgroup.subtree_control", constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export function resetHostProbe(): void {
  probed = null;
}

/** Read-only system paths an app's runtime needs (when they exist). */
const SYSTEM_RO = ["/usr", "/etc/ssl", "/etc/ca-certificates", "/etc/alternatives"];
const SYSTEM_LINKS: Array<[string, string]> = [["usr/lib", "/lib"], ["usr/lib64", "/lib64"], ["usr/bin", "/bin"], ["usr/sbin", "/sbin"]];
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
}): string[] {
  // No --new-session: the sandbox is already the leader of its own session with no controlling
  // terminal (spawned detached, stdio not a tty), and staying in that process group lets a
  // stop reach every process of the app with one kill(-pgid).
  const a: string[] = ["--unshare-all", "--clearenv"];
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
