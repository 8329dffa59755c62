import { spawn } from "node:child_process";
import { chown, open, writeFile } from "node:fs/promises";
import path from "node:path";
import type { TCgroupHost } from "./cgroups";
import { ensureRootfs } from "./gvisor";
import type { TAppIdentity } from "./identity";
import type { THostIsolation, TSandboxMounts } from "./sandbox";
import { gvisorRootfs, gvisorSpawn, launcherSpawn, type TSpawnSpec } from "./start";
import type { TDeploySpec } from "./runner";

/**
 * The start of a deployment (local-deploy.ts runs it after the build): the launch file the launcher reads (the app's
 * command, environment, ports, sockets and log, as seen from inside the sandbox), the command that starts the
 * launcher under the host's sandbox (a gVisor bundle, or bubblewrap, or a plain process), and the detached process.
 */
export const SANDBOX_APP = "/app";
export const SANDBOX_RUN = "/capstan/run";
const SANDBOX_LOG = "/capstan/log";
const SANDBOX_LAUNCHER = "/capstan/launcher.mjs";
/** Read-only system paths bound into a gVisor container (when they exist on the host). */
const GVISOR_RO = ["/usr", "/etc/ssl", "/etc/ca-certificates", "/etc/alternatives"];

/**
 * The pids cgroup's cap. Under bubblewrap and none it *is* the process limit, plus RUNNER_TASKS for Capstan's own
 * tasks: it counts every task of the deployment (bubblewrap, the launcher, the app, their threads and children), and
 * it refuses first (the rlimit sits above it,
 * start.ts), so pids.events counts each refused fork and Capstan can say so. Under gVisor the app's processes live in
 * gVisor's kernel (its own RLIMIT_NPROC refuses them, unseen by the host): the host cap only bounds the sandbox's
 * own host threads, with room above the app's limit. It must never be reached: a host thread refused to gVisor's
 * kernel ends the whole sandbox (measured: at processes x 4 + 256 a fork bomb of 93 processes under the ptrace
 * platform hit it and the sandbox died), so it is processes x 16 + 512.
 */
export const pidsMaxFor = (processes: number, sandbox: THostIsolation["sandbox"]) =>
  sandbox === "gvisor" ? processes * 16 + 512 : processes + RUNNER_TASKS;
/** Tasks of Capstan's own in a deployment's pids cgroup under bubblewrap and none: bubblewrap and the launcher's threads. */
export const RUNNER_TASKS = 32;

export type TLaunch = {
  root: string;
  deploymentId: string;
  host: THostIsolation;
  cgroups: TCgroupHost | null;
  limits: TDeploySpec["limits"];
  ids: TAppIdentity;
  logMaxBytes: number;
  /** The deployment's directory and its app/, run/ and log/ on the host. */
  dirs: { dir: string; appDir: string; runDir: string; logDir: string };
  start: string[];
  cwdHost: string;
  cwdInside: string;
  appEnv: Record<string, string>;
  appPort: number;
  bridgePort: number;
  /** Host paths of the sockets the launcher serves (ingress) and connects to (Bridge). */
  ingressSocket: string;
  bridgeSocket: string;
  forwards: Array<{ port: number; socket: string }>;
  /** The file the launcher waits for before it starts the app (bubblewrap and none under cgroups), else null. */
  hold: string | null;
  /** Names the launcher's processes (`capstan-deployment=<id>`), for placing and sweeping them. */
  marker: string;
};

/** Writes the launch file (readable by the deployment's uid only) and starts the launcher detached; its pid or why not. */
export async function spawnLauncher(l: TLaunch): Promise<{ pid: number } | { error: string }> {
  const sandboxed = l.host.sandbox !== "none";
  const { appDir, runDir, logDir } = l.dirs;
  const launch = {
    argv: l.start,
    cwd: sandboxed ? l.cwdInside : l.cwdHost,
    env: l.appEnv,
    log: sandboxed ? `${SANDBOX_LOG}/app.log` : path.join(logDir, "app.log"),
    log_max: l.logMaxBytes,
    ingress_socket: sandboxed ? `${SANDBOX_RUN}/ingress.sock` : l.ingressSocket,
    app_port: l.appPort,
    bridge_socket: sandboxed ? `${SANDBOX_RUN}/bridge.sock` : l.bridgeSocket,
    bridge_port: l.bridgePort,
    forwards: l.forwards,
    hold: l.hold ? (sandboxed ? `${SANDBOX_RUN}/go` : l.hold) : null,
  };
  const launchFile = path.join(runDir, "launch.json");
  await writeFile(launchFile, JSON.stringify(launch), { mode: 0o600 });
  if (l.ids.dedicated) await chown(launchFile, l.ids.uid, l.ids.gid);
  const hostLauncher = path.join(l.root, "launcher.mjs");
  const launcherArgv = sandboxed
    ? [process.execPath, SANDBOX_LAUNCHER, `${SANDBOX_RUN}/launch.json`, l.marker]
    : [process.execPath, hostLauncher, launchFile, l.marker];
  let cmd: TSpawnSpec;
  if (l.host.sandbox === "gvisor") {
    const nodePrefix = path.dirname(path.dirname(process.execPath));
    const ro = new Set(GVISOR_RO);
    if (!nodePrefix.startsWith("/usr")) ro.add(nodePrefix);
    await ensureRootfs(gvisorRootfs(l.root), [...ro, SANDBOX_RUN, SANDBOX_LOG]);
    cmd = await gvisorSpawn({
      root: l.root,
      deploymentId: l.deploymentId,
      bundleDir: path.join(l.dirs.dir, "bundle"),
      rootfs: gvisorRootfs(l.root),
      limits: l.limits,
      ids: l.ids,
      cgroups: l.cgroups,
      launcherArgv,
      cwdInside: l.cwdInside,
      pidsMax: pidsMaxFor(l.limits.processes, l.host.sandbox),
      host: l.host,
      binds: [
        ...[...ro].map((p) => [p, p, false] as [string, string, boolean]),
        [appDir, SANDBOX_APP, true],
        [runDir, SANDBOX_RUN, true],
        [logDir, SANDBOX_LOG, true],
        [hostLauncher, SANDBOX_LAUNCHER, false],
      ],
    });
  } else {
    const mounts: TSandboxMounts = {
      writable: [
        [appDir, SANDBOX_APP],
        [runDir, SANDBOX_RUN],
        [logDir, SANDBOX_LOG],
      ],
      readonly: [[hostLauncher, SANDBOX_LAUNCHER]],
    };
    cmd = launcherSpawn({
      host: l.host,
      limits: l.limits,
      ids: l.ids,
      launcherArgv,
      cgroups: !!l.cgroups,
      mounts,
      cwdInside: l.cwdInside,
    });
  }
  const out = await open(path.join(logDir, "launcher.log"), "a");
  const child = spawn(cmd.file, cmd.args, {
    cwd: l.host.sandbox === "none" ? l.cwdHost : "/",
    env: (l.host.sandbox === "none" ? l.appEnv : {}) as NodeJS.ProcessEnv,
    stdio: ["ignore", out.fd, out.fd],
    detached: true,
    ...(cmd.uid !== undefined ? { uid: cmd.uid, gid: cmd.gid } : {}),
  });
  const spawned = new Promise<string | null>((resolve) => {
    child.once("error", (e) => resolve(e.message));
    child.once("spawn", () => resolve(null));
  });
  await out.close();
  const spawnError = await spawned;
  child.unref();
  if (spawnError || !child.pid) return { error: spawnError ?? "no process" };
  return { pid: child.pid };
}
