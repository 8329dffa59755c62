import type { TBuildPlan, TEvidence, TFinding } from "@/server/domain/source/source.types";
import type { TResourceHandlers, TResourceSocketState, TResourceSpec } from "./resource-sockets";
import type { TLimits, TLimitsReport } from "./limits";
import type { TSandboxMode } from "./sandbox";
import type { TBuildStep } from "./steps";
import type { TLogCursor, TLogRead } from "./run-logs";

/** A deployment's CPU time so far and its memory high-water mark (null when not asked for or not measurable). */
export type TUsageReading = { cpuMs: number; memoryPeakBytes: number | null };

export type { TBuildStep, TLogCursor, TLogRead };

/**
 * The one interface domain services use to run hosted apps. The local
 * process runner (local-runner.ts) is the embedded default; a Kubernetes
 * runner (docs/decisions.md, "Runners") implements the same interface and
 * reports `enforced: true`. Domain code never touches child_process, /proc
 * or sockets directly.
 */
/**
 * The isolation report (`deployment.isolation`; shape documented in
 * docs/decisions.md "Enforced isolation" and stable: readers may rely on
 * every key below being present). `enforced` is true only when the app's
 * system calls never reach the host kernel directly (gVisor here; a VM
 * sandbox on Kubernetes).
 */
export type TIsolationReport = {
  profile: "isolated-vm";
  enforced: boolean;
  runner: string;
  /** The mechanism the app runs under. */
  mechanism: TSandboxMode;
  /** Same as mechanism (the field older deployments carry). */
  sandbox: TSandboxMode;
  sandbox_unavailable_reason: string | null;
  /** Where install and build ran. */
  build_sandbox: "bubblewrap" | "none";
  /** The app's system calls are served by a user-space kernel (gVisor), not the host's. */
  kernel_boundary: boolean;
  /** A hardware virtual machine: never on the local runner. */
  vm_boundary: boolean;
  /** Only the deployment's directory is writable and nothing of Capstan's is visible. */
  filesystem: boolean;
  /** No network at all (egress denied by construction). */
  network: boolean;
  /** The host uid/gid the app runs as (null until the deployment has one), never 0 when dedicated; no capabilities. */
  identity: { uid: number | null; gid: number | null; dedicated: boolean; host_root: boolean; capabilities: "none" };
  /** Every limit below is enforced. */
  resource_limits: boolean;
  limits: TLimitsReport;
};

export type { TLimits };

export type THealth = { checked_at: string; attempts: number; latency_ms: number };

/** Where and what runs; persisted on the deployment so any later process can find it. */
export type TRuntimeState = {
  host: string;
  dir: string;
  pid: number;
  pgid: number;
  start_time: string;
  sandbox: TSandboxMode;
  ingress_socket: string;
  bridge_socket: string;
  app_port: number;
  /** Managed resources' sockets (docs/decisions.md "Managed resources"); no secrets. */
  resources?: TResourceSocketState[];
  /** The host uid/gid the app runs as (absent on deployments started before identities existed). */
  uid?: number;
  gid?: number;
  /** The deployment directory is a size-capped tmpfs (unmounted when it is removed). */
  tmpfs?: boolean;
  /** The deployment has cgroups under Capstan's own (removed when it stops). */
  cgroup?: boolean;
  limits?: TLimits;
};

export type TDeploySpec = {
  deploymentId: string;
  snapshot: TEvidence;
  buildPlan: TBuildPlan;
  /** Serves the app's Bridge calls (already bound to this deployment's identity). */
  bridge: (req: Request) => Promise<Response>;
  /** Called with the steps (unpack, install, build, start) each time one begins or ends, in order. */
  onSteps?: (steps: TBuildStep[]) => Promise<void>;
  /** Called with the runtime state as soon as the process exists (before health). */
  onStarted?: (state: TRuntimeState) => Promise<void>;
  /** Managed resources attached to the product: sockets in the sandbox and their env vars. */
  resources?: TResourceSpec[];
  resourceHandlers?: TResourceHandlers;
  /** The deployment's limits (plan defaults or what its descriptor asked for, never above the plan). */
  limits: TLimits;
};

/**
 * A limit the app ran into. `fatal`: it ended the app (an OOM kill of its main process: the app is gone); otherwise
 * the kernel refused an operation (forks, writes) or killed one of the app's child processes, and the app goes on.
 * `count`: how many times so far (OOM kills, refused forks; 1 for a full disk), so a caller can tell a new hit.
 */
export type TLimitHit = { limit: "memory" | "processes" | "disk"; fatal: boolean; count: number; message: string };

export type TDeployEvidence = {
  build_log: TEvidence | null;
  health_attempts: TEvidence | null;
  run_log?: TEvidence | null;
};

export type TDeployOutcome =
  | {
      ok: true;
      state: TRuntimeState;
      isolation: TIsolationReport;
      health: THealth;
      endpoint: { address: string };
      evidence: TDeployEvidence;
      findings: TFinding[];
      steps?: TBuildStep[];
    }
  | {
      ok: false;
      reasonCode: string;
      state: TRuntimeState | null;
      isolation?: TIsolationReport;
      health: THealth | null;
      evidence: TDeployEvidence;
      findings: TFinding[];
      steps?: TBuildStep[];
    };

export interface Runner {
  readonly name: string;
  /** A stable id of this runner instance (host + directory): deployments record it to be reconciled by their owner. */
  readonly hostId: string;
  /** What this runner enforces for a deployment with these limits (identity filled in once it runs). */
  isolation(limits: TLimits): Promise<TIsolationReport>;
  deploy(spec: TDeploySpec): Promise<TDeployOutcome>;
  /** The Unix socket a deployment's app answers HTTP on (on this host). */
  ingressSocketOf(deploymentId: string): string;
  /** Is the process of this state still the one we started? */
  isRunning(state: TRuntimeState): Promise<boolean>;
  /** Re-attaches host-side pieces (the Bridge socket) to a process started by an earlier Capstan process. */
  adopt(
    deploymentId: string,
    state: TRuntimeState,
    bridge: (req: Request) => Promise<Response>,
    resources?: TResourceHandlers,
  ): Promise<void>;
  /** Kills the whole process group, frees its socket and port, removes the directory. Idempotent. */
  stop(deploymentId: string, state: TRuntimeState | null): Promise<void>;
  /**
   * Stops and removes every process and directory of this runner that `keep`
   * does not name. `keep` is asked after listing what exists, so anything
   * created before the listing was registered before the answer.
   */
  sweep(keep: () => Promise<ReadonlySet<string>>): Promise<{ killed: string[]; removed: string[] }>;
  /** The build log so far, while a deployment is being built (afterwards it is evidence). */
  buildLog(deploymentId: string, maxBytes: number): Promise<string>;
  /** The tail of the running app's log. */
  runLog(deploymentId: string, maxBytes: number): Promise<string>;
  /** The current length of the app's log (an offset for logSince). */
  logSize(deploymentId: string): Promise<number>;
  /** What the app logged since `offset` (from the start of a rotated log), at most `maxBytes`. */
  logSince(deploymentId: string, offset: number, maxBytes: number): Promise<string>;
  /**
   * The app's log from `cursor` (null: from the start of what is on disk), at
   * most `maxBytes`, across a rotation; whole lines only unless `final`.
   * Where the log was rotated more than once since the cursor, `lost` says so.
   */
  readLog(deploymentId: string, cursor: TLogCursor | null, maxBytes: number, final: boolean): Promise<TLogRead>;
  /**
   * CPU time so far and memory high-water mark of the deployment's processes; null where it cannot measure.
   * `memory: false` asks for the CPU time only (the peak is then null): it costs a fraction of the full reading.
   */
  usage(state: TRuntimeState, opts?: { memory?: boolean }): Promise<TUsageReading | null>;
  /** The limits this deployment ran into (OOM kills, refused forks, a full disk), in words; empty when none. */
  limitHits(deploymentId: string, state: TRuntimeState | null): Promise<TLimitHit[]>;
  /** Appends a line of Capstan's own to the deployment's log (what the runner saw, e.g. a limit reached). */
  noteInLog(deploymentId: string, text: string): Promise<void>;
}
