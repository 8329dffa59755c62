/**
 * Resource limits of a deployment (docs/decisions.md "Enforced isolation"):
 * memory, processes, CPU weight, disk and log, each with how it is enforced
 * on this host or `enforced: false` when it is not. The per-plan table is
 * both the default and the ceiling: a descriptor may ask for less, never more.
 */
export const PLAN_NAMES = ["free", "team", "enterprise"] as const;
export type TPlanName = (typeof PLAN_NAMES)[number];

/** What a descriptor may ask for (`limits` in the descriptor); every field optional there. */
export type TLimits = {
  /** Memory of the whole sandbox (app, launcher and, under gVisor, its user-space kernel), MiB. */
  memory_mb: number;
  /** Processes (and threads, where a pids cgroup counts them) at once. */
  processes: number;
  /** Relative CPU share: 100 is an even share (cgroup v2 cpu.weight units). */
  cpu_weight: number;
  /** The deployment directory (app, build output, sockets, log), MiB. */
  disk_mb: number;
};
export const LIMIT_FIELDS = ["memory_mb", "processes", "cpu_weight", "disk_mb"] as const satisfies ReadonlyArray<
  keyof TLimits
>;

export const DEFAULT_PLAN_LIMITS: Record<TPlanName, TLimits> = {
  free: { memory_mb: 512, processes: 128, cpu_weight: 50, disk_mb: 1024 },
  team: { memory_mb: 1024, processes: 256, cpu_weight: 100, disk_mb: 4096 },
  enterprise: { memory_mb: 4096, processes: 1024, cpu_weight: 200, disk_mb: 16384 },
};

/** The plan table with the operator's JSON (CAPSTAN_RUNNER_PLAN_LIMITS) merged over it; bad JSON is a configuration error. */
export function planLimitsTable(overrideJson: string | undefined): Record<TPlanName, TLimits> {
  if (!overrideJson) return DEFAULT_PLAN_LIMITS;
  const parsed = JSON.parse(overrideJson) as Partial<Record<TPlanName, Partial<TLimits>>>;
  const out = { ...DEFAULT_PLAN_LIMITS };
  for (const plan of PLAN_NAMES) {
    const o = parsed[plan];
    if (!o) continue;
    const merged = { ...out[plan] };
    for (const f of LIMIT_FIELDS) {
      const v = o[f];
      if (v === undefined) continue;
      if (!Number.isInteger(v) || v <= 0)
        throw new Error(`CAPSTAN_RUNNER_PLAN_LIMITS: ${plan}.${f} must be a positive integer`);
      merged[f] = v;
    }
    out[plan] = merged;
  }
  return out;
}

/** One limit in the isolation report. `by` names the mechanism; null when nothing enforces it. */
export type TLimitReport = { value: number; enforced: boolean; by: string | null };

/** The `limits` object of the isolation report: the same five keys in every mode. */
export type TLimitsReport = {
  memory_bytes: TLimitReport;
  processes: TLimitReport;
  cpu_weight: TLimitReport;
  disk_bytes: TLimitReport;
  log_bytes: TLimitReport;
};

/** What enforces each limit on this host for a sandbox mode (probed once; see host-limits.ts). */
export type TLimitMechanisms = {
  memory: string | null;
  processes: string | null;
  cpu: string | null;
  disk: string | null;
};

export function limitsReport(limits: TLimits, logBytes: number, m: TLimitMechanisms): TLimitsReport {
  return {
    memory_bytes: { value: limits.memory_mb * 1024 * 1024, enforced: m.memory !== null, by: m.memory },
    processes: { value: limits.processes, enforced: m.processes !== null, by: m.processes },
    cpu_weight: { value: limits.cpu_weight, enforced: m.cpu !== null, by: m.cpu },
    disk_bytes: { value: limits.disk_mb * 1024 * 1024, enforced: m.disk !== null, by: m.disk },
    log_bytes: { value: logBytes, enforced: true, by: "rotation" },
  };
}

/** A nice level for a CPU weight where no cgroup can weigh it (even share 100 -> 0, lower weight -> nicer). */
export function niceFor(weight: number): number {
  if (weight >= 100) return 0;
  return Math.min(19, Math.round((100 - weight) / 5));
}
