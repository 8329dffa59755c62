import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { cgroupRel, placeInCgroup, type TCgroupHost } from "./cgroups";
import { RUNSC, runscFlags, writeBundle } from "./gvisor";
import { niceFor, type TLimits } from "./limits";
import { bwrapArgs, type THostIsolation, type TSandboxMounts } from "./sandbox";

/**
 * How each mode starts a command under the deployment's identity and
 * limits (docs/decisions.md "Enforced isolation"):
 *  - rlimits through `prlimit` (an exec, no extra process): RLIMIT_NPROC
 *    (counted per uid, and the uid is the deployment's own; above the pids
 *    cgroup's cap where one applies, so the cgroup refuses), RLIMIT_DATA
 *    when no memory cgroup applies, no core files;
 *  - `nice` when no cpu cgroup weighs it;
 *  - bubblewrap and plain processes are spawned *as* the deployment's uid
 *    (so bubblewrap's user namespace maps to it, not to host root);
 *  - runsc runs as Capstan (it needs to set up the sandbox) and starts the
 *    container's process as the deployment's uid with no capabilities.
 */
export type TIds = { uid: number; gid: number; dedicated: boolean };

export type TSpawnSpec = { file: string; args: string[]; uid?: number; gid?: number };

export function limitWrap(
  argv: string[],
  host: THostIsolation,
  limits: TLimits,
  ids: TIds,
  opts: { cgroups: boolean },
): string[] {
  const out: string[] = [];
  const nice = opts.cgroups ? 0 : niceFor(limits.cpu_weight);
  if (nice > 0) out.push("/usr/bin/nice", "-n", String(nice));
  if (host.prlimit) {
    out.push("/usr/bin/prlimit", "--core=0");
    // RLIMIT_NPROC counts every process of the real uid: only meaningful (and only safe) for a uid of its own. Under a
    // pids cgroup it sits above the cgroup's cap (= the limit), so the cgroup refuses first and counts the refusal in
    // pids.events; the rlimit stays as a backstop should the launcher not be placed in its cgroup.
    if (ids.dedicated) out.push(`--nproc=${opts.cgroups ? nprocAboveCgroup(limits.processes) : limits.processes}`);
    if (!opts.cgroups) out.push(`--data=${limits.memory_mb * 1024 * 1024}`);
    out.push("--");
  }
  return [...out, ...argv];
}

/** RLIMIT_NPROC where a pids cgroup caps the deployment at `processes`: above it, never the one that refuses. */
export const nprocAboveCgroup = (processes: number) => processes * 2 + 128;

const asUser = (ids: TIds) => (ids.dedicated ? { uid: ids.uid, gid: ids.gid } : {});

/** A build step (install, build): bubblewrap or a plain process, as the deployment's uid, with rlimits. */
export function stepSpawn(o: {
  host: THostIsolation;
  limits: TLimits;
  ids: TIds;
  argv: string[];
  network: boolean;
  mounts: TSandboxMounts;
  env: Record<string, string>;
  cwdInside: string;
}): TSpawnSpec {
  const inner =
    o.host.build_sandbox === "bubblewrap"
      ? [
          "/usr/bin/bwrap",
          ...bwrapArgs({
            mounts: o.mounts,
            env: o.env,
            cwd: o.cwdInside,
            argv: o.argv,
            network: o.network,
            persistent: false,
            uid: o.ids.uid,
            gid: o.ids.gid,
          }),
        ]
      : o.argv;
  const argv = limitWrap(inner, o.host, o.limits, o.ids, { cgroups: false });
  return { file: argv[0]!, args: argv.slice(1), ...asUser(o.ids) };
}

/** The launcher's start in bubblewrap or as a plain process. */
export function launcherSpawn(o: {
  host: THostIsolation;
  limits: TLimits;
  ids: TIds;
  launcherArgv: string[];
  cgroups: boolean;
  mounts: TSandboxMounts;
  cwdInside: string;
}): TSpawnSpec {
  const inner =
    o.host.sandbox === "bubblewrap"
      ? [
          "/usr/bin/bwrap",
          ...bwrapArgs({
            mounts: o.mounts,
            env: {},
            cwd: o.cwdInside,
            argv: o.launcherArgv,
            network: false,
            persistent: true,
            uid: o.ids.uid,
            gid: o.ids.gid,
          }),
        ]
      : o.launcherArgv;
  const argv = limitWrap(inner, o.host, o.limits, o.ids, { cgroups: o.cgroups });
  return { file: argv[0]!, args: argv.slice(1), ...asUser(o.ids) };
}

/** The launcher's start in gVisor: writes the OCI bundle, returns the runsc command (run as Capstan). */
export async function gvisorSpawn(o: {
  root: string;
  deploymentId: string;
  bundleDir: string;
  rootfs: string;
  limits: TLimits;
  ids: TIds;
  cgroups: TCgroupHost | null;
  launcherArgv: string[];
  cwdInside: string;
  binds: Array<[string, string, boolean]>;
  pidsMax: number;
  host: THostIsolation;
}): Promise<TSpawnSpec> {
  await writeBundle(o.bundleDir, {
    rootfs: o.rootfs,
    args: o.launcherArgv,
    cwd: o.cwdInside,
    uid: o.ids.uid,
    gid: o.ids.gid,
    binds: o.binds,
    nproc: o.limits.processes,
    hostname: "app",
    cgroup: o.cgroups
      ? {
          path: cgroupRel(o.deploymentId),
          memoryBytes: o.limits.memory_mb * 1024 * 1024,
          pidsMax: o.pidsMax,
          cpuShares: Math.max(2, Math.round((o.limits.cpu_weight * 1024) / 100)),
        }
      : null,
  });
  const argv = [
    RUNSC,
    ...runscFlags(gvisorStateDir(o.root), !!o.cgroups),
    "run",
    "--bundle",
    o.bundleDir,
    o.deploymentId,
  ];
  const nice = o.cgroups ? 0 : niceFor(o.limits.cpu_weight);
  const full = nice > 0 ? ["/usr/bin/nice", "-n", String(nice), ...argv] : argv;
  return { file: full[0]!, args: full.slice(1) };
}

export const gvisorStateDir = (root: string) => path.join(root, ".runsc");
export const gvisorRootfs = (root: string) => path.join(root, ".rootfs");

/** The pid and its live descendants (via /proc children files). */
function tree(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift()!;
    let tids: string[] = [];
    try {
      tids = readFileSync(`/proc/${p}/task/${p}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    } catch {
      continue;
    }
    out.push(p);
    queue.push(...tids.map(Number));
  }
  return out;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

/**
 * Moves a just-spawned launcher (and whatever bubblewrap forked on the way)
 * into the deployment's cgroups, then releases it (the hold file) so the app
 * it starts is born inside them. Gives up after `ms` (the launcher's own
 * hold expires too) and says so.
 */
export async function placeAndRelease(
  cg: TCgroupHost,
  deploymentId: string,
  rootPid: number,
  marker: string,
  holdFile: string,
  ms = 5_000,
): Promise<boolean> {
  const until = Date.now() + ms;
  let placed = false;
  while (Date.now() < until) {
    const pids = tree(rootPid);
    await placeInCgroup(cg, deploymentId, pids);
    // The launcher is node running launcher.mjs with the marker; a wrapper (nice, prlimit) has exec'd away by then.
    if (pids.some((p) => cmdline(p).startsWith(`${process.execPath} `) && cmdline(p).includes(marker))) {
      placed = true;
      break;
    }
    if (!pids.length) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await writeFile(holdFile, "go");
  return placed;
}
