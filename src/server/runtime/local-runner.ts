import { appendFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { logger } from "@/server/platform/logger";
import { closeBridgeSocket, hasBridgeSocket, openBridgeSockets, serveBridgeSocket } from "./bridge-socket";
import { cgroupHits, cgroupMemoryPeak, removeCgroup } from "./cgroups";
import { diskFull, removeDeploymentDir } from "./deploy-dir";
import { listContainers, stopContainer } from "./gvisor";
import { LAUNCHER_SOURCE } from "./launcher-source";
import { limitsReport, type TLimitMechanisms, type TLimits } from "./limits";
import { deployLocal } from "./local-deploy";
import { findProcesses, groupUsage, isAlive, killGroup } from "./process-table";
import {
  closeResourceSockets,
  hasResourceSockets,
  openResourceSockets,
  serveResourceSockets,
  type TResourceHandlers,
} from "./resource-sockets";
import {
  appLogFile,
  buildLogTail,
  logSinceOf,
  logSizeOf,
  readLogFrom,
  runLogTail,
  type TLogCursor,
  type TLogRead,
} from "./run-logs";
import { probeHost, type THostIsolation, type TSandboxMode } from "./sandbox";
import { gvisorStateDir } from "./start";
import type {
  Runner,
  TDeployOutcome,
  TDeploySpec,
  TIsolationReport,
  TLimitHit,
  TRuntimeState,
  TUsageReading,
} from "./runner";

/**
 * The embedded runner: deployments are process groups (or gVisor
 * containers) on this host, each in `<root>/<deployment id>/` (app/ the
 * unpacked snapshot, run/ the sockets and launch file, log/ the app's log,
 * bundle/ the OCI bundle under gVisor), owned by the deployment's own uid.
 * See local-deploy.ts for a deploy and sandbox.ts for the modes.
 */
export type TLocalRunnerConfig = {
  root: string;
  sandbox: "auto" | TSandboxMode;
  stepTimeoutMs: number;
  /** The least health deadline under gVisor (CAPSTAN_RUNNER_GVISOR_HEALTH_MS). */
  gvisorHealthMs: number;
  logMaxBytes: number;
  uidRange: { base: number; count: number };
};

const SANDBOX_LAUNCHER = "/capstan/launcher.mjs";

/** What enforces each limit in a mode on this host (null: nothing does). */
export function mechanisms(host: THostIsolation, dedicatedUid: boolean): TLimitMechanisms {
  const cg = host.cgroups ? `cgroup_${host.cgroups.version}` : null;
  const disk = host.tmpfs ? "tmpfs" : null;
  if (host.sandbox === "gvisor") {
    return {
      memory: cg ? `${cg}_memory` : null,
      processes: cg ? `gvisor_rlimit_nproc+${cg}_pids` : "gvisor_rlimit_nproc",
      cpu: cg ? `${cg}_cpu` : "nice",
      disk,
    };
  }
  return {
    memory: cg ? `${cg}_memory` : host.prlimit ? "rlimit_data" : null,
    processes: cg
      ? `${cg}_pids${host.prlimit && dedicatedUid ? "+rlimit_nproc" : ""}`
      : host.prlimit && dedicatedUid
        ? "rlimit_nproc"
        : null,
    cpu: cg ? `${cg}_cpu` : "nice",
    disk,
  };
}

export class LocalRunner implements Runner {
  readonly name = "local";
  readonly hostId: string;

  constructor(readonly cfg: TLocalRunnerConfig) {
    this.hostId = `${os.hostname()}:${cfg.root}`;
  }

  private probe(): Promise<THostIsolation> {
    return probeHost(this.cfg.sandbox, this.cfg.root);
  }

  private report(
    host: THostIsolation,
    limits: TLimits,
    ids: { uid: number; gid: number; dedicated: boolean } | null,
  ): TIsolationReport {
    const dedicated = ids ? ids.dedicated : host.dedicated_uid;
    const lr = limitsReport(limits, this.cfg.logMaxBytes, mechanisms(host, dedicated));
    return {
      profile: "isolated-vm",
      // Enforced only when the app's system calls never reach the host kernel directly.
      enforced: host.kernel_boundary,
      runner: this.name,
      mechanism: host.sandbox,
      sandbox: host.sandbox,
      sandbox_unavailable_reason: host.sandbox_unavailable_reason,
      build_sandbox: host.build_sandbox,
      kernel_boundary: host.kernel_boundary,
      vm_boundary: false,
      filesystem: host.filesystem,
      network: host.network,
      identity: {
        uid: ids?.uid ?? null,
        gid: ids?.gid ?? null,
        dedicated,
        host_root: ids ? ids.uid === 0 : !dedicated && process.getuid?.() === 0,
        capabilities: "none",
      },
      resource_limits: Object.values(lr).every((l) => l.enforced),
      limits: lr,
    };
  }

  async isolation(limits: TLimits): Promise<TIsolationReport> {
    return this.report(await this.probe(), limits, null);
  }

  private dirOf(id: string): string {
    return path.join(this.cfg.root, id);
  }

  async deploy(spec: TDeploySpec): Promise<TDeployOutcome> {
    const host = await this.probe();
    await this.ensureLauncher();
    return deployLocal(
      {
        root: this.cfg.root,
        hostId: this.hostId,
        host,
        stepTimeoutMs: this.cfg.stepTimeoutMs,
        gvisorHealthMs: this.cfg.gvisorHealthMs,
        logMaxBytes: this.cfg.logMaxBytes,
        uidRange: this.cfg.uidRange,
        report: (ids) => this.report(host, spec.limits, ids),
        isRunning: (s) => this.isRunning(s),
        limitHits: (s) => this.limitHits(spec.deploymentId, s),
      },
      spec,
    );
  }

  ingressSocketOf(deploymentId: string): string {
    return path.join(this.dirOf(deploymentId), "run", "ingress.sock");
  }

  async isRunning(state: TRuntimeState): Promise<boolean> {
    return isAlive(state.pid, state.start_time);
  }

  async adopt(
    deploymentId: string,
    state: TRuntimeState,
    bridge: (req: Request) => Promise<Response>,
    resources?: TResourceHandlers,
  ): Promise<void> {
    const owner =
      state.uid !== undefined && state.gid !== undefined && state.uid !== process.getuid?.()
        ? { uid: state.uid, gid: state.gid }
        : null;
    if (!hasBridgeSocket(deploymentId)) await serveBridgeSocket(deploymentId, state.bridge_socket, bridge, owner);
    if (state.resources?.length && resources && !hasResourceSockets(deploymentId))
      await serveResourceSockets(deploymentId, state.resources, resources, owner);
  }

  async stop(deploymentId: string, state: TRuntimeState | null): Promise<void> {
    await closeBridgeSocket(deploymentId);
    await closeResourceSockets(deploymentId);
    const host = await this.probe().catch(() => null);
    if (state?.sandbox === "gvisor" || host?.sandbox === "gvisor")
      await stopContainer(gvisorStateDir(this.cfg.root), deploymentId, 5_000);
    if (state && (await isAlive(state.pid, state.start_time))) await killGroup(state.pgid, 5_000);
    // Anything else still carrying this deployment's marker (a launcher from an interrupted start).
    for (const p of await findProcesses(`capstan-deployment=${deploymentId}`)) {
      if (p.cmdline.includes(this.cfg.root) || p.cmdline.includes(SANDBOX_LAUNCHER)) await killGroup(p.pgid, 2_000);
    }
    if (host?.cgroups) await removeCgroup(host.cgroups, deploymentId);
    await removeDeploymentDir(this.dirOf(deploymentId));
  }

  async sweep(keepFn: () => Promise<ReadonlySet<string>>): Promise<{ killed: string[]; removed: string[] }> {
    const killed: string[] = [];
    const removed: string[] = [];
    const processes = await findProcesses("capstan-deployment=dep_");
    const host = await this.probe().catch(() => null);
    const containers = host?.sandbox === "gvisor" ? await listContainers(gvisorStateDir(this.cfg.root)) : [];
    let entries: string[] = [];
    try {
      entries = await readdir(this.cfg.root);
    } catch {
      entries = [];
    }
    const keep = await keepFn();
    for (const id of containers) {
      if (!/^dep_[0-9a-z]{26}$/.test(id) || keep.has(id)) continue;
      await stopContainer(gvisorStateDir(this.cfg.root), id, 2_000);
      killed.push(id);
    }
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
      if (host?.cgroups) await removeCgroup(host.cgroups, name);
      await removeDeploymentDir(this.dirOf(name));
      removed.push(name);
    }
    return { killed: [...new Set(killed)], removed };
  }

  runLog(deploymentId: string, maxBytes: number): Promise<string> {
    return runLogTail(this.dirOf(deploymentId), maxBytes);
  }

  buildLog(deploymentId: string, maxBytes: number): Promise<string> {
    return buildLogTail(this.dirOf(deploymentId), maxBytes);
  }

  logSize(deploymentId: string): Promise<number> {
    return logSizeOf(this.dirOf(deploymentId));
  }

  logSince(deploymentId: string, offset: number, maxBytes: number): Promise<string> {
    return logSinceOf(this.dirOf(deploymentId), offset, maxBytes);
  }

  readLog(deploymentId: string, cursor: TLogCursor | null, maxBytes: number, final: boolean): Promise<TLogRead> {
    return readLogFrom(this.dirOf(deploymentId), cursor, maxBytes, final);
  }

  async usage(state: TRuntimeState, opts: { memory?: boolean } = {}): Promise<TUsageReading | null> {
    const memory = opts.memory !== false;
    // The cgroup's peak, where the deployment has one, replaces the processes' high-water marks: not read twice.
    const host = memory && state.cgroup ? await this.probe().catch(() => null) : null;
    const peak = host?.cgroups ? await cgroupMemoryPeak(host.cgroups, path.basename(state.dir)) : null;
    const u = groupUsage(state.pid, state.pgid, { memory: memory && !peak });
    return u && peak ? { ...u, memoryPeakBytes: peak } : u;
  }

  async limitHits(deploymentId: string, state: TRuntimeState | null): Promise<TLimitHit[]> {
    const hits: TLimitHit[] = [];
    const limits = state?.limits;
    const host = await this.probe().catch(() => null);
    if (state?.cgroup && host?.cgroups) {
      const c = await cgroupHits(host.cgroups, deploymentId);
      const times = (n: number) => `${n} time${n === 1 ? "" : "s"}`;
      const limit = limits ? ` of ${limits.memory_mb} MiB` : "";
      // Read after the counters: an OOM kill is fatal only when the app itself is gone (the launcher exits with the
      // app's main process; under gVisor the kill takes the whole sandbox). A child killed alone leaves the app serving.
      const gone = c.oomKills > 0 && !(await this.isRunning(state));
      if (c.oomKills > 0)
        hits.push(
          gone
            ? {
                limit: "memory",
                fatal: true,
                count: c.oomKills,
                message: `The app used more than its memory limit${limit} and the kernel killed it (${times(c.oomKills)}).`,
              }
            : {
                limit: "memory",
                fatal: false,
                count: c.oomKills,
                message: `A process of the app used more than the deployment's memory limit${limit} and the kernel killed that process (${times(c.oomKills)}); the app itself kept running.`,
              },
        );
      if (c.pidsRefused > 0)
        hits.push({
          limit: "processes",
          fatal: false,
          count: c.pidsRefused,
          message: `The app tried to run more processes than its limit${limits ? ` of ${limits.processes}` : ""}; ${c.pidsRefused} fork${c.pidsRefused === 1 ? " was" : "s were"} refused.`,
        });
    }
    if (state?.tmpfs && (await diskFull(this.dirOf(deploymentId)))) {
      hits.push({
        limit: "disk",
        fatal: false,
        count: 1,
        message: `The app filled its disk${limits ? ` of ${limits.disk_mb} MiB` : ""} (writes fail with ENOSPC).`,
      });
    }
    return hits;
  }

  async noteInLog(deploymentId: string, text: string): Promise<void> {
    await appendFile(appLogFile(this.dirOf(deploymentId)), `${new Date().toISOString()} [capstan] ${text}\n`).catch(
      () => undefined,
    );
  }

  private launcherWritten = false;
  private async ensureLauncher(): Promise<void> {
    if (this.launcherWritten) return;
    const file = path.join(this.cfg.root, "launcher.mjs");
    // 0711: the apps' uids may traverse the runner directory to their own, never list it.
    await mkdir(this.cfg.root, { recursive: true, mode: 0o711 });
    const current = await readFile(file, "utf8").catch(() => null);
    if (current !== LAUNCHER_SOURCE) await writeFile(file, LAUNCHER_SOURCE, { mode: 0o644 });
    this.launcherWritten = true;
  }
}

export function logRunnerProbe(r: TIsolationReport): void {
  logger.info("runtime.isolation", { ...r });
}
