import { execFile } from "node:child_process";
import { access, constants, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * gVisor (`runsc`) for the app's long-running process (docs/decisions.md
 * "Enforced isolation"). Each deployment is an OCI container run with
 * `runsc --rootless --network=none --host-uds=all run --bundle <dep>/bundle`:
 * the app's system calls are served by gVisor's user-space kernel (ptrace
 * platform), it has no network at all, its root is a read-only skeleton
 * with /usr and the node prefix bound read-only, and only its own app/,
 * run/ and log/ directories are writable. `--host-uds=all` lets the
 * launcher inside create its ingress socket on the host (bind-mounted run/,
 * created through the gofer) and connect to the Bridge and resource sockets
 * Capstan serves there: the only ways in or out.
 */
export const RUNSC = "/usr/bin/runsc";

/** Global flags of every runsc call of one runner (state under the runner's root). */
export function runscFlags(stateDir: string, cgroups: boolean): string[] {
  return [
    "--root",
    stateDir,
    "--rootless",
    "--network=none",
    "--host-uds=all",
    ...(cgroups ? [] : ["--ignore-cgroups"]),
  ];
}

/** The shared read-only root of every container: empty mount points and the usual symlinks into /usr. */
export async function ensureRootfs(dir: string, mountPoints: string[] = []): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  for (const d of [
    "usr",
    "etc",
    "proc",
    "dev",
    "tmp",
    "app",
    "capstan",
    ...mountPoints.map((p) => p.replace(/^\/+/, "")),
  ])
    await mkdir(path.join(dir, d), { recursive: true, mode: 0o755 });
  await writeFile(path.join(dir, "capstan", "launcher.mjs"), "", { flag: "a", mode: 0o644 });
  for (const [target, link] of [
    ["usr/lib", "lib"],
    ["usr/lib64", "lib64"],
    ["usr/bin", "bin"],
    ["usr/sbin", "sbin"],
  ] as const) {
    await symlink(target, path.join(dir, link)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
  }
}

export type TBundle = {
  rootfs: string;
  args: string[];
  cwd: string;
  uid: number;
  gid: number;
  /** [host path, container path, writable] */
  binds: Array<[string, string, boolean]>;
  nproc: number;
  /** Relative cgroup path (under runsc's own cgroup) and the limits runsc writes there; null with --ignore-cgroups. */
  cgroup: { path: string; memoryBytes: number; pidsMax: number; cpuShares: number } | null;
  hostname: string;
};

/** config.json of the OCI bundle: no capabilities, no new privileges, the deployment's uid, its rlimits and cgroup. */
export function bundleConfig(b: TBundle): Record<string, unknown> {
  const mounts: Array<Record<string, unknown>> = [
    { destination: "/proc", type: "proc", source: "proc" },
    { destination: "/dev", type: "tmpfs", source: "tmpfs", options: ["nosuid", "mode=755"] },
    { destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=1777"] },
    ...b.binds.map(([source, destination, rw]) => ({
      destination,
      type: "bind",
      source,
      options: ["rbind", rw ? "rw" : "ro"],
    })),
  ];
  const noCaps = { bounding: [], effective: [], inheritable: [], permitted: [], ambient: [] };
  return {
    ociVersion: "1.0.0",
    process: {
      user: { uid: b.uid, gid: b.gid },
      args: b.args,
      env: [],
      cwd: b.cwd,
      capabilities: noCaps,
      noNewPrivileges: true,
      rlimits: [
        { type: "RLIMIT_NPROC", hard: b.nproc, soft: b.nproc },
        { type: "RLIMIT_NOFILE", hard: 4096, soft: 4096 },
        { type: "RLIMIT_CORE", hard: 0, soft: 0 },
      ],
    },
    root: { path: b.rootfs, readonly: true },
    hostname: b.hostname,
    mounts,
    linux: {
      namespaces: [{ type: "pid" }, { type: "network" }, { type: "ipc" }, { type: "uts" }, { type: "mount" }],
      ...(b.cgroup
        ? {
            cgroupsPath: b.cgroup.path,
            resources: {
              memory: { limit: b.cgroup.memoryBytes },
              pids: { limit: b.cgroup.pidsMax },
              cpu: { shares: b.cgroup.cpuShares },
            },
          }
        : {}),
    },
  };
}

export async function writeBundle(dir: string, b: TBundle): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(path.join(dir, "config.json"), JSON.stringify(bundleConfig(b)), { mode: 0o600 });
}

/** Stops a container (SIGTERM to its init, the launcher), then removes it; quiet when it is already gone. */
export async function stopContainer(stateDir: string, id: string, graceMs: number): Promise<void> {
  const flags = ["--root", stateDir];
  await run(RUNSC, [...flags, "kill", id, "SIGTERM"], { timeout: 5_000 }).catch(() => undefined);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    const state = await containerState(stateDir, id);
    if (state === null || state === "stopped") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await run(RUNSC, [...flags, "delete", "--force", id], { timeout: 10_000 }).catch(() => undefined);
}

export async function containerState(stateDir: string, id: string): Promise<string | null> {
  try {
    const { stdout } = await run(RUNSC, ["--root", stateDir, "state", id], { timeout: 5_000 });
    return (JSON.parse(stdout) as { status?: string }).status ?? null;
  } catch {
    return null;
  }
}

/** Container ids runsc knows under this state directory. */
export async function listContainers(stateDir: string): Promise<string[]> {
  try {
    const { stdout } = await run(RUNSC, ["--root", stateDir, "list", "--quiet"], { timeout: 10_000 });
    return stdout
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Can gVisor run a container here? Runs `/bin/true` in a throwaway bundle
 * (the same flags and shape as a deployment's). Null when it works, else why not.
 */
export async function runscWorks(workDir: string, cgroups: boolean, uid: number, gid: number): Promise<string | null> {
  try {
    await access(RUNSC, constants.X_OK);
  } catch {
    return "runsc (gVisor) is not installed (apt-get install runsc)";
  }
  const dir = path.join(workDir, `.runsc-probe-${process.pid}`);
  const id = `capstan-probe-${process.pid}-${Date.now()}`;
  try {
    await ensureRootfs(path.join(dir, "rootfs"));
    await writeBundle(path.join(dir, "bundle"), {
      rootfs: path.join(dir, "rootfs"),
      args: ["/usr/bin/true"],
      cwd: "/",
      uid,
      gid,
      nproc: 64,
      hostname: "probe",
      binds: [["/usr", "/usr", false]],
      cgroup: null,
    });
    await run(RUNSC, [...runscFlags(path.join(dir, "state"), false), "run", "--bundle", path.join(dir, "bundle"), id], {
      timeout: 30_000,
    });
    return null;
  } catch (err) {
    const msg =
      String((err as Error).message)
        .split("\n")
        .filter(Boolean)
        .slice(-1)[0] ?? "failed";
    return `runsc is installed but could not run a container (${msg.slice(0, 300)})`;
  } finally {
    await run(RUNSC, ["--root", path.join(dir, "state"), "delete", "--force", id], { timeout: 10_000 }).catch(
      () => undefined,
    );
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
