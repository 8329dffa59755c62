import { spawn } from "node:child_process";
import { mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { blobStore } from "@/server/platform/blob-store";
import { logger } from "@/server/platform/logger";
import type { TFinding } from "@/server/domain/source/source.types";
import { closeBridgeSocket, hasBridgeSocket, openBridgeSockets, serveBridgeSocket } from "./bridge-socket";
import { CommandSyntaxError, splitCommand } from "./commands";
import { waitHealthy } from "./health";
import { LAUNCHER_SOURCE } from "./launcher-source";
import { findProcesses, groupUsage, isAlive, killGroup, processStartTime } from "./process-table";
import { closeResourceSockets, hasResourceSockets, openResourceSockets, prepareResources, serveResourceSockets, type TResourceHandlers } from "./resource-sockets";
import { bwrapArgs, probeHost, type TSandboxMounts } from "./sandbox";
import { BoundedLog, runStep } from "./steps";
import type { Runner, TDeployOutcome, TDeploySpec, THealth, TIsolationReport, TRuntimeState } from "./runner";

/**
 * The embedded runner: deployments are process groups on this host, each in
 * `<root>/<deployment id>/` (app/ the unpacked snapshot, run/ the sockets
 * and launch file, log/ the app's log). With bubblewrap every step runs in
 * a sandbox (see sandbox.ts); without it the same steps run as plain
 * processes and the isolation report says so.
 */
export type TLocalRunnerConfig = {
  root: string;
  sandbox: "auto" | "bubblewrap" | "none";
  stepTimeoutMs: number;
  logMaxBytes: number;
};

const SANDBOX_APP = "/app";
const SANDBOX_RUN = "/capstan/run";
const SANDBOX_LOG = "/capstan/log";
const SANDBOX_LAUNCHER = "/capstan/launcher.mjs";
const SANDBOX_BRIDGE_PORT = 4319;
/** Object buckets inside the sandbox: 127.0.0.1:4320, 4321, ... */
const SANDBOX_BUCKET_PORT = 4320;
const MAX_SOCKET_PATH = 100;

export class LocalRunner implements Runner {
  readonly name = "local";
  readonly hostId: string;

  constructor(readonly cfg: TLocalRunnerConfig) {
    this.hostId = `${os.hostname()}:${cfg.root}`;
  }

  async isolation(): Promise<TIsolationReport> {
    const host = await probeHost(this.cfg.sandbox);
    const { probed_at: _ignored, ...rest } = host;
    return { profile: "isolated-vm", enforced: false, runner: this.name, ...rest };
  }

  private dirOf(id: string): string {
    return path.join(this.cfg.root, id);
  }

  async deploy(spec: TDeploySpec): Promise<TDeployOutcome> {
    const dir = this.dirOf(spec.deploymentId);
    const appDir = path.join(dir, "app");
    const runDir = path.join(dir, "run");
    const logDir = path.join(dir, "log");
    const buildLog = new BoundedLog(64 * 1024, path.join(logDir, "build.log"));
    const findings: TFinding[] = [];
    const evidence = { build_log: null as TDeployOutcome["evidence"]["build_log"], health_attempts: null as TDeployOutcome["evidence"]["health_attempts"] };
    const fail = async (reasonCode: string, code: string, message: string, state: TRuntimeState | null = null, health: THealth | null = null) => {
      findings.push({ kind: "runtime", severity: "error", code, message: message.slice(0, 2000) });
      evidence.build_log = await saveText(buildLog.toString());
      return { ok: false as const, reasonCode, state, health, evidence, findings };
    };
    const plan = spec.buildPlan;
    const host = await probeHost(this.cfg.sandbox);
    const sandboxed = host.sandbox === "bubblewrap";

    // Every command is checked before anything runs: a shell-syntax start command fails in a second, not after a build.
    let install: string[] | null, build: string[] | null, start: string[];
    try {
      install = plan.install.command ? splitCommand(plan.install.command) : null;
      build = plan.build.command ? splitCommand(plan.build.command) : null;
      start = splitCommand(plan.start.command);
    } catch (err) {
      if (!(err instanceof CommandSyntaxError)) throw err;
      return fail("command_invalid", "command_invalid", `${JSON.stringify(err.command)}: ${err.message}. Edit the build plan when you confirm the descriptor.`);
    }
    const workdir = path.posix.normalize(plan.workdir);
    if (!workdir.startsWith("/") || workdir.split("/").includes("..")) {
      return fail("workdir_invalid", "workdir_invalid", `the workdir ${JSON.stringify(plan.workdir)} must be a path inside the repository`);
    }

    const socketLen = path.join(runDir, "ingress.sock").length;
    if (socketLen > MAX_SOCKET_PATH) {
      return fail("runner_misconfigured", "runner_dir_too_long", `the runner directory ${this.cfg.root} is too deep for Unix sockets (${socketLen} > ${MAX_SOCKET_PATH} characters): set CAPSTAN_RUNNER_DIR to a shorter path`);
    }
    await rm(dir, { recursive: true, force: true });
    await Promise.all([mkdir(appDir, { recursive: true }), mkdir(runDir, { recursive: true }), mkdir(logDir, { recursive: true })]);
    await this.ensureLauncher();

    const tarball = await blobStore().get(spec.snapshot.sha256);
    if (!tarball) return fail("snapshot_missing", "snapshot_missing", `the revision's snapshot ${spec.snapshot.uri} is not in the blob store`);
    const untar = await unpack(tarball, appDir);
    if (untar) return fail("snapshot_unpack_failed", "snapshot_unpack_failed", `the snapshot could not be unpacked: ${untar}`);

    const cwdHost = path.join(appDir, workdir);
    const cwdInside = path.posix.join(SANDBOX_APP, workdir);
    const baseEnv = (home: string): Record<string, string> => ({
      PATH: [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
      HOME: home,
      NODE_ENV: "production",
    });
    const mounts: TSandboxMounts = { writable: [[appDir, SANDBOX_APP]], readonly: [] };
    const stepCommand = (argv: string[], network: boolean) =>
      sandboxed
        ? { file: "/usr/bin/bwrap", args: bwrapArgs({ mounts, env: baseEnv("/tmp"), cwd: cwdInside, argv, network, persistent: false }), cwd: appDir }
        : { file: argv[0]!, args: argv.slice(1), cwd: cwdHost };

    for (const [name, argv, network] of [["install", install, true], ["build", build, false]] as const) {
      if (!argv) continue;
      buildLog.write(`[capstan] ${name}: ${argv.join(" ")}${sandboxed ? ` (sandboxed${network ? ", network for dependencies" : ", no network"})` : ""}\n`);
      const c = stepCommand(argv, network);
      if (!sandboxed) await mkdir(path.join(dir, "home"), { recursive: true });
      const r = await runStep({ ...c, env: sandboxed ? {} : baseEnv(path.join(dir, "home")), timeoutMs: this.cfg.stepTimeoutMs, log: buildLog });
      buildLog.write(`[capstan] ${name} ${r.ok ? "finished" : "failed"} in ${r.ms} ms\n`);
      if (!r.ok) {
        const why = r.timedOut ? `did not finish within ${this.cfg.stepTimeoutMs} ms` : r.error ? `could not start (${r.error})` : `exited with ${r.signal ? `signal ${r.signal}` : `code ${r.code}`}`;
        return fail(`${name}_failed`, `${name}_failed`, `The ${name} step \`${argv.join(" ")}\` ${why}. Last output:\n${buildLog.lastLines(12)}`);
      }
    }

    // Start: the launcher (and the app under it) in its own process group that outlives this process.
    const appPort = sandboxed ? plan.port : await freePort();
    const bridgePort = sandboxed ? SANDBOX_BRIDGE_PORT : await freePort();
    const ingressSocket = path.join(runDir, "ingress.sock");
    const bridgeSocket = path.join(runDir, "bridge.sock");
    await serveBridgeSocket(spec.deploymentId, bridgeSocket, spec.bridge);
    const resources = spec.resources?.length && spec.resourceHandlers
      ? await prepareResources({
          deploymentId: spec.deploymentId, runDir, insideRun: sandboxed ? SANDBOX_RUN : runDir, resources: spec.resources, handlers: spec.resourceHandlers,
          bucketPort: async (i) => (sandboxed ? SANDBOX_BUCKET_PORT + i : freePort()),
        })
      : null;
    const appEnv: Record<string, string> = {
      // Resource variables first: Capstan's own names below cannot be overridden by them.
      ...resources?.env,
      ...baseEnv(sandboxed ? "/tmp" : path.join(dir, "home")),
      PORT: String(appPort),
      CAPSTAN_BRIDGE_URL: `http://127.0.0.1:${bridgePort}`,
      CAPSTAN_DEPLOYMENT_ID: spec.deploymentId,
    };
    if (!sandboxed) await mkdir(appEnv.HOME!, { recursive: true });
    const launch = sandboxed
      ? { argv: start, cwd: cwdInside, env: appEnv, log: `${SANDBOX_LOG}/app.log`, log_max: this.cfg.logMaxBytes, ingress_socket: `${SANDBOX_RUN}/ingress.sock`, app_port: appPort, bridge_socket: `${SANDBOX_RUN}/bridge.sock`, bridge_port: bridgePort, forwards: resources?.forwards ?? [] }
      : { argv: start, cwd: cwdHost, env: appEnv, log: path.join(logDir, "app.log"), log_max: this.cfg.logMaxBytes, ingress_socket: ingressSocket, app_port: appPort, bridge_socket: bridgeSocket, bridge_port: bridgePort, forwards: resources?.forwards ?? [] };
    await writeFile(path.join(runDir, "launch.json"), JSON.stringify(launch), { mode: 0o600 });
    const marker = `capstan-deployment=${spec.deploymentId}`;
    const launcherArgv = sandboxed
      ? [process.execPath, SANDBOX_LAUNCHER, `${SANDBOX_RUN}/launch.json`, marker]
      : [process.execPath, path.join(this.cfg.root, "launcher.mjs"), path.join(runDir, "launch.json"), marker];
    const { file, args } = sandboxed
      ? {
          file: "/usr/bin/bwrap",
          args: bwrapArgs({
            mounts: {
              writable: [[appDir, SANDBOX_APP], [runDir, SANDBOX_RUN], [logDir, SANDBOX_LOG]],
              readonly: [[path.join(this.cfg.root, "launcher.mjs"), SANDBOX_LAUNCHER]],
            },
            env: {}, cwd: cwdInside, argv: launcherArgv, network: false, persistent: true,
          }),
        }
      : { file: launcherArgv[0]!, args: launcherArgv.slice(1) };
    const out = await open(path.join(logDir, "launcher.log"), "a");
    const child = spawn(file, args, { cwd: sandboxed ? appDir : cwdHost, env: (sandboxed ? {} : appEnv) as NodeJS.ProcessEnv, stdio: ["ignore", out.fd, out.fd], detached: true });
    const spawned = new Promise<string | null>((resolve) => {
      child.once("error", (e) => resolve(e.message));
      child.once("spawn", () => resolve(null));
    });
    await out.close();
    const spawnError = await spawned;
    child.unref();
    if (spawnError || !child.pid) return fail("start_failed", "start_failed", `the app could not be started: ${spawnError ?? "no process"}`);
    const startTime = (await processStartTime(child.pid)) ?? "";
    const state: TRuntimeState = {
      host: this.hostId, dir, pid: child.pid, pgid: child.pid, start_time: startTime, sandbox: host.sandbox,
      ingress_socket: ingressSocket, bridge_socket: bridgeSocket, app_port: appPort,
      ...(resources?.state.length ? { resources: resources.state } : {}),
    };
    await spec.onStarted?.(state);

    const health = await waitHealthy({ socketPath: ingressSocket, path: plan.health.path, deadlineMs: plan.health.timeout_ms, alive: () => this.isRunning(state) });
    evidence.health_attempts = await saveText(JSON.stringify(health.attempts, null, 1));
    const last = health.attempts[health.attempts.length - 1];
    const healthRecord = { checked_at: last?.at ?? new Date().toISOString(), attempts: health.attempts.length, latency_ms: health.latencyMs };
    if (!health.ok) {
      const tail = await this.runLog(spec.deploymentId, 4_000);
      const lastTry = last ? (last.status !== null ? `answered ${last.status}` : last.error) : "was never tried";
      return fail(
        health.exited ? "start_exited" : "health_check_failed",
        health.exited ? "start_exited" : "health_check_failed",
        health.exited
          ? `The app exited before it answered ${plan.health.path}. Last output:\n${tail.trimEnd().split("\n").slice(-12).join("\n")}`
          : `${plan.health.path} did not answer 2xx/3xx within ${plan.health.timeout_ms} ms (${health.attempts.length} attempts; the last ${lastTry}). Check that the app listens on $PORT and serves ${plan.health.path}, or change the health path when you confirm the descriptor.`,
        state, healthRecord,
      );
    }
    evidence.build_log = await saveText(buildLog.toString());
    return { ok: true, state, health: healthRecord, endpoint: { address: `unix:${ingressSocket}` }, evidence, findings };
  }

  ingressSocketOf(deploymentId: string): string {
    return path.join(this.dirOf(deploymentId), "run", "ingress.sock");
  }

  async isRunning(state: TRuntimeState): Promise<boolean> {
    return isAlive(state.pid, state.start_time);
  }

  async adopt(deploymentId: string, state: TRuntimeState, bridge: (req: Request) => Promise<Response>, resources?: TResourceHandlers): Promise<void> {
    if (!hasBridgeSocket(deploymentId)) await serveBridgeSocket(deploymentId, state.bridge_socket, bridge);
    if (state.resources?.length && resources && !hasResourceSockets(deploymentId)) await serveResourceSockets(deploymentId, state.resources, resources);
  }

  async stop(deploymentId: string, state: TRuntimeState | null): Promise<void> {
    await closeBridgeSocket(deploymentId);
    await closeResourceSockets(deploymentId);
    if (state && (await isAlive(state.pid, state.start_time))) await killGroup(state.pgid, 5_000);
    // Anything else still carrying this deployment's marker (a launcher from an interrupted start).
    for (const p of await findProcesses(`capstan-deployment=${deploymentId}`)) {
      if (p.cmdline.includes(this.cfg.root) || p.cmdline.includes(SANDBOX_LAUNCHER)) await killGroup(p.pgid, 2_000);
    }
    await rm(this.dirOf(deploymentId), { recursive: true, force: true });
  }

  async sweep(keepFn: () => Promise<ReadonlySet<string>>): Promise<{ killed: string[]; removed: string[] }> {
    const killed: string[] = [];
    const removed: string[] = [];
    const processes = await findProcesses("capstan-deployment=dep_");
    let entries: string[] = [];
    try {
      entries = await readdir(this.cfg.root);
    } catch {
      entries = [];
    }
    const keep = await keepFn();
    for (const p of processes) {
      const id = /capstan-deployment=(dep_[0-9a-z]{26})/.exec(p.cmdline)?.[1];
      if (!id || keep.has(id)) continue;
      // Only our own: the launcher path (host or bound into the sandbox) is under our root.
      if (!p.cmdline.includes(this.cfg.root)) continue;
      await killGroup(p.pgid, 2_000);
      killed.push(id);
    }
    for (const id of openBridgeSockets()) if (!keep.has(id)) await closeBridgeSocket(id);
    for (const id of openResourceSockets()) if (!keep.has(id)) await closeResourceSockets(id);
    for (const name of entries) {
      if (!/^dep_[0-9a-z]{26}$/.test(name) || keep.has(name)) continue;
      await closeBridgeSocket(name);
      await closeResourceSockets(name);
      await rm(this.dirOf(name), { recursive: true, force: true });
      removed.push(name);
    }
    return { killed: [...new Set(killed)], removed };
  }

  async runLog(deploymentId: string, maxBytes: number): Promise<string> {
    const file = this.logFile(deploymentId);
    try {
      const size = (await stat(file)).size;
      const fh = await open(file, "r");
      try {
        const len = Math.min(size, maxBytes);
        const buf = Buffer.alloc(len);
        await fh.read(buf, 0, len, size - len);
        return buf.toString("utf8");
      } finally {
        await fh.close();
      }
    } catch {
      return "";
    }
  }

  async buildLog(deploymentId: string, maxBytes: number): Promise<string> {
    const file = path.join(this.dirOf(deploymentId), "log", "build.log");
    const size = (await stat(file).catch(() => null))?.size ?? 0;
    if (!size) return "";
    const fh = await open(file, "r");
    try {
      const len = Math.min(size, maxBytes);
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, size - len);
      return buf.toString("utf8");
    } finally {
      await fh.close();
    }
  }

  private logFile(id: string): string {
    return path.join(this.dirOf(id), "log", "app.log");
  }

  async logSize(deploymentId: string): Promise<number> {
    return (await stat(this.logFile(deploymentId)).catch(() => null))?.size ?? 0;
  }

  async logSince(deploymentId: string, offset: number, maxBytes: number): Promise<string> {
    const size = await this.logSize(deploymentId);
    const from = size < offset ? 0 : offset; // rotated meanwhile: the new log from its start
    const len = Math.min(size - from, maxBytes);
    if (len <= 0) return "";
    const fh = await open(this.logFile(deploymentId), "r").catch(() => null);
    if (!fh) return "";
    try {
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, from);
      return buf.toString("utf8");
    } finally {
      await fh.close();
    }
  }

  async usage(state: TRuntimeState) {
    return groupUsage(state.pid, state.pgid);
  }

  private launcherWritten = false;
  private async ensureLauncher(): Promise<void> {
    if (this.launcherWritten) return;
    const file = path.join(this.cfg.root, "launcher.mjs");
    await mkdir(this.cfg.root, { recursive: true });
    const current = await readFile(file, "utf8").catch(() => null);
    if (current !== LAUNCHER_SOURCE) await writeFile(file, LAUNCHER_SOURCE, { mode: 0o644 });
    this.launcherWritten = true;
  }
}

async function saveText(text: string) {
  const blob = await blobStore().put(Buffer.from(text, "utf8"), "text/plain");
  return { uri: blob.uri, sha256: blob.sha256, size_bytes: blob.size_bytes };
}

/** Unpacks a tar.gz with the system tar (no shell; GNU tar refuses absolute and `..` member names). */
function unpack(tarball: Buffer, into: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn("tar", ["-xzf", "-", "-C", into, "--no-same-owner", "--no-same-permissions", "--no-overwrite-dir"], { stdio: ["pipe", "ignore", "pipe"] });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d.slice(0, 2000)));
    child.on("error", (e) => resolve(e.message));
    child.on("close", (code) => resolve(code === 0 ? null : err.trim() || `tar exited with code ${code}`));
    child.stdin.on("error", () => undefined);
    child.stdin.end(tarball);
  });
}

/** A free TCP port on loopback (only without a sandbox: inside one the app has its own network namespace). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export function logRunnerProbe(r: TIsolationReport): void {
  logger.info("runtime.isolation", { ...r });
}
