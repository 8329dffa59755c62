import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zPage } from "@/server/platform/pagination";
import { ZEvidence } from "@/server/domain/source/source.contract";
import { DEPLOYMENT_STATES, PIPELINE_STATES, SURFACE_STATES } from "./deployments.states";

/** Spec 2.9-2.11 wire shapes of deployments, pipeline runs and surfaces. */
export const ENVIRONMENT_TYPES = ["preview", "staging", "production"] as const;
export type TEnvironmentType = (typeof ENVIRONMENT_TYPES)[number];

export const ZFinding = z.object({ kind: z.string(), severity: z.string(), code: z.string(), message: z.string() });

export const ZDeploymentRequest = z
  .strictObject({
    environment_type: z.enum(ENVIRONMENT_TYPES),
    /** A parallel lane inside the environment (e.g. one preview per branch). Default `default`. */
    slot: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9-]{0,62}$/,
        "a slot is 1..63 lowercase letters, digits and hyphens, starting with a letter or digit",
      )
      .optional(),
  })
  .meta({ id: "DeploymentRequest" });

const ZLimitReport = z.object({
  value: z.number().int(),
  enforced: z.boolean(),
  /** What enforces it (e.g. `cgroup_v1_memory`, `gvisor_rlimit_nproc+cgroup_v1_pids`, `rlimit_data`, `nice`, `tmpfs`, `rotation`); null: nothing. */
  by: z.string().nullable(),
});

/**
 * Spec 2.9 `isolation` plus what the runner enforced (docs/decisions.md
 * "Enforced isolation"). `enforced` is true only when the app's system calls
 * never reach the host kernel directly (`mechanism: gvisor`). Fields beyond
 * `profile` and `enforced` are absent on deployments recorded before them.
 */
export const ZIsolation = z.object({
  profile: z.literal("isolated-vm"),
  enforced: z.boolean(),
  runner: z.string().optional(),
  mechanism: z.enum(["gvisor", "bubblewrap", "none"]).optional(),
  sandbox: z.enum(["gvisor", "bubblewrap", "none"]).optional(),
  sandbox_unavailable_reason: z.string().nullable().optional(),
  build_sandbox: z.enum(["bubblewrap", "none"]).optional(),
  kernel_boundary: z.boolean().optional(),
  filesystem: z.boolean().optional(),
  network: z.boolean().optional(),
  identity: z
    .object({
      uid: z.number().int().nullable(),
      gid: z.number().int().nullable(),
      dedicated: z.boolean(),
      host_root: z.boolean(),
      capabilities: z.literal("none"),
    })
    .optional(),
  resource_limits: z.boolean().optional(),
  limits: z
    .object({
      memory_bytes: ZLimitReport,
      processes: ZLimitReport,
      cpu_weight: ZLimitReport,
      disk_bytes: ZLimitReport,
      log_bytes: ZLimitReport,
    })
    .optional(),
  vm_boundary: z.boolean().optional(),
});

export const ZHealth = z.object({ checked_at: z.string(), attempts: z.number().int(), latency_ms: z.number().int() });

export const ZDeploymentSource = z.union([
  z.object({ kind: z.literal("revision") }),
  z.object({ kind: z.literal("release"), release_id: zId("rel"), version_id: zId("ver") }),
]);

export const ZDeployment = z
  .object({
    id: zId("dep"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    revision_id: zId("rev"),
    environment_type: z.enum(ENVIRONMENT_TYPES),
    slot: z.string(),
    status: z.enum(DEPLOYMENT_STATES),
    required_isolation_profile: z.literal("isolated-vm"),
    egress: z.literal("deny"),
    findings: z.array(ZFinding),
    pipeline_run_id: zId("pipe").optional(),
    environment_id: zId("env").optional(),
    reason_code: z.string().optional(),
    isolation: ZIsolation.optional(),
    health: ZHealth.optional(),
    endpoint: z.object({ address: z.string().min(1) }).optional(),
    superseded_deployment_id: zId("dep").nullable().optional(),
    runner_host: z
      .string()
      .nullable()
      .optional()
      .describe(
        "The runner host it was placed on (GET /v1/platform/runner-hosts lists them by this name); null before placement",
      ),
    surface_id: zId("srf").optional(),
    source: ZDeploymentSource.optional(),
    /** Build log and health-check attempts kept in the blob store. */
    evidence: z.object({
      build_log: ZEvidence.nullable(),
      health_attempts: ZEvidence.nullable(),
      run_log: ZEvidence.nullable().optional(),
    }),
    started_at: z.string().nullable(),
    stopped_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Deployment" });
export type TDeployment = z.infer<typeof ZDeployment>;
export const ZDeploymentList = zPage(ZDeployment).meta({ id: "Deployments" });

export const ZPipelineRun = z
  .object({
    id: zId("pipe"),
    workspace_id: zWorkspaceId,
    revision_id: zId("rev"),
    intent: z.literal("preview"),
    status: z.enum(PIPELINE_STATES),
    findings: z.array(ZFinding),
    product_id: zId("prod").optional(),
    reason_code: z.string().optional(),
    deployment_id: zId("dep").nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "PipelineRun" });
export type TPipelineRun = z.infer<typeof ZPipelineRun>;

export const ZSurface = z
  .object({
    id: zId("srf"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    deployment_id: zId("dep"),
    environment_id: zId("env"),
    environment_type: z.enum(ENVIRONMENT_TYPES),
    surface_type: z.literal("web"),
    status: z.enum(SURFACE_STATES),
    identity_requirement: z.literal("none"),
    access_policy: z.literal("preview_direct"),
    expires_at: z.string(),
    deadline_id: zId("ddl"),
    reason_code: z.string().optional(),
    url: z.string().optional(),
    /** The same app under Capstan's own origin: `/s/{srf}/` (always works; documents are sandboxed). */
    path_url: z.string().optional(),
    route: z.object({ host: z.string(), path: z.string() }).optional(),
    reachability: z
      .object({ checked_at: z.string(), status_code: z.number().int(), latency_ms: z.number().int() })
      .optional(),
    activated_at: z.string().optional(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Surface" });
export type TSurface = z.infer<typeof ZSurface>;
export const ZSurfaceList = zPage(ZSurface).meta({ id: "Surfaces" });

export const ZBuildStep = z
  .object({
    name: z.enum(["unpack", "install", "build", "start"]),
    command: z.string().nullable(),
    status: z.enum(["pending", "running", "succeeded", "failed", "skipped"]),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
  })
  .meta({ id: "BuildStep" });

export const ZDeploymentLogs = z
  .object({
    deployment_id: zId("dep"),
    build_log: z.string(),
    run_log: z.string(),
    /** True while the app runs (the run log is still growing). */
    live: z.boolean(),
    /** Unpack, install, build, start: each with its times and duration (empty for deployments recorded before steps were). */
    build_steps: z.array(ZBuildStep),
    /** Byte offset of run_log's first byte in the whole kept log (null when `q` filtered it). */
    run_log_start: z.number().int().nullable(),
    /** Byte offset where run_log ends: pass it as `since` to read only what follows (follow). */
    run_log_end: z.number().int(),
    /** Bytes of the run log no longer kept (expired segments) before the first kept one. */
    run_log_expired_before: z.number().int(),
    /** Days run-log segments are kept after they were written (CAPSTAN_LOG_RETENTION_DAYS). */
    retention_days: z.number(),
  })
  .meta({ id: "DeploymentLogs" });
