import { env } from "@/server/platform/env";
import { AppError } from "@/server/platform/errors";
import { workspacePlan } from "@/server/domain/usage/plan-reads.service";
import type { TDescriptor } from "@/server/domain/source/source.types";
import { LIMIT_FIELDS, planLimitsTable, type TLimits } from "@/server/runtime/limits";

/**
 * A deployment's resource limits (docs/decisions.md "Enforced isolation"):
 * the workspace plan's values, lowered where the revision's descriptor asks
 * for less. Asking for more than the plan allows is refused before anything
 * is written: 422 `limit_exceeds_plan`, one error per limit, naming it.
 */
export async function deploymentLimits(workspaceId: string, descriptor: TDescriptor | null): Promise<TLimits> {
  const plan = await workspacePlan(workspaceId);
  const max = planLimitsTable(env().CAPSTAN_RUNNER_PLAN_LIMITS)[plan];
  const asked = descriptor?.limits ?? {};
  const errors: Array<{ path: string; message: string }> = [];
  for (const f of LIMIT_FIELDS) {
    const v = asked[f];
    if (v !== undefined && v > max[f])
      errors.push({
        path: `/descriptor/limits/${f}`,
        message: `${f} ${v} is more than the ${plan} plan allows (${max[f]})`,
      });
  }
  if (errors.length) {
    throw new AppError(
      "validation_failed",
      `The revision's descriptor asks for more than the workspace's ${plan} plan allows: ${errors.map((e) => e.message).join("; ")}. Lower limits in the descriptor (package.json capstan.limits or the confirmation's edits.limits), or change the plan.`,
      {
        reason: "limit_exceeds_plan",
        errors,
      },
    );
  }
  return { ...max, ...Object.fromEntries(Object.entries(asked).filter(([, v]) => v !== undefined)) };
}

const MIB = 1024 * 1024;

/** The limits recorded in a deployment's isolation report (older deployments without them: the free plan's). */
export function limitsOfReport(isolation: unknown): TLimits {
  const l = (isolation as { limits?: Record<string, { value?: number }> } | null)?.limits;
  const fallback = planLimitsTable(env().CAPSTAN_RUNNER_PLAN_LIMITS).free;
  if (!l) return fallback;
  const n = (v: number | undefined, d: number) => (typeof v === "number" && v > 0 ? v : d);
  return {
    memory_mb: Math.round(n(l.memory_bytes?.value, fallback.memory_mb * MIB) / MIB),
    processes: n(l.processes?.value, fallback.processes),
    cpu_weight: n(l.cpu_weight?.value, fallback.cpu_weight),
    disk_mb: Math.round(n(l.disk_bytes?.value, fallback.disk_mb * MIB) / MIB),
  };
}
