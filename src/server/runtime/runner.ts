import type { TBuildPlan, TEvidence, TFinding } from "@/server/domain/source/source.types";
import type { TResourceHandlers, TResourceSocketState, TResourceSpec } from "./resource-sockets";
import type { THostIsolation } from "./sandbox";

/**
 * The one interface domain services use to run hosted apps. The local
 * process runner (local-runner.ts) is the embedded default; a Kubernetes
 * runner (docs/decisions.md, "Runners") implements the same interface and
 * reports `enforced: true`. Domain code never touches child_process, /proc
 * or sockets directly.
 */
export type TIsolationReport = {
  profile: "isolated-vm";
  enforced: boolean;
  runner: string;
} & Omit<THostIsolation, "probed_at">;

export type THealth = { checked_at: string; attempts: number; latency_ms: number };

/** Where and what runs; persisted on the deployment so any later process can find it. */
export type TRuntimeState = {
  host: string;
  dir: string;
  pid: number;
  pgid: number;
  start_time: string;
  sandbox: "bubblewrap" | "none";
  ingress_socket: string;
  bridge_socket: string;
  app_port: number;
  /** Managed resources' sockets (docs/decisions.md "Managed resources"); no secrets. */
  resources?: TResourceSocketState[];
};

export type TDeploySpec = {
  deploymentId: string;
  snapshot: TEvidence;
  buildPlan: TBuildPlan;
  /** Serves the app's Bridge calls (already bound to this deployment's identity). */
  bridge: (req: Request) => Promise<Response>;
  /** Called with the runtime state as soon as the process exists (before health). */
  onStarted?: (state: TRuntimeState) => Promise<void>;
  /** Managed resources attached to the product: sockets in the sandbox and their env vars. */
  resources?: TResourceSpec[];
  resourceHandlers?: TResourceHandlers;
};

export type TDeployEvidence = { build_log: TEvidence | null; health_attempts: TEvidence | null; run_log?: TEvidence | null };

export type TDeployOutcome =
  | { ok: true; state: TRuntimeState; health: THealth; endpoint: { address: string }; evidence: TDeployEvidence; findings: TFinding[] }
  | { ok: false; reasonCode: string; state: TRuntimeState | null; health: THealth | null; evidence: TDeployEvidence; findings: TFinding[] };

export interface Runner {
  readonly name: string;
  /** A stable id of this runner instance (host + directory): deployments record it to be reconciled by their owner. */
  readonly hostId: string;
  isolation(): Promise<TIsolationReport>;
  deploy(spec: TDeploySpec): Promise<TDeployOutcome>;
  /** The Unix socket a deployment's app answers HTTP on (on this host). */
  ingressSocketOf(deploymentId: string): string;
  /** Is the process of this state still the one we started? */
  isRunning(state: TRuntimeState): Promise<boolean>;
  /** Re-attaches host-side pieces (the Bridge socket) to a process started by an earlier Capstan process. */
  adopt(deploymentId: string, state: TRuntimeState, bridge: (req: Request) => Promise<Response>, resources?: TResourceHandlers): Promise<void>;
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
  /** CPU time so far and memory high-water mark of the deployment's processes; null where it cannot measure. */
  usage(state: TRuntimeState): Promise<{ cpuMs: number; memoryPeakBytes: number } | null>;
}
