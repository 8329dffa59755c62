import type { Deployment, Evaluation } from "@/generated/prisma/client";
import type { TEvaluationCheck, TEvaluationCheckName } from "./releases.contract";

/**
 * Which check an evaluation past its overall deadline hung in, and the
 * finding's message in words. The checks that passed are written as they
 * pass (the worker's `progress`), so the first check still pending is the
 * one that was running: the preview deployment that never became active
 * (still planned: no deploy worker took it; applying: install, build or
 * start never finished), the surface, the smoke requests or the log read.
 */
export function hungStep(
  e: Pick<Evaluation, "status" | "startedAt">,
  checks: TEvaluationCheck[],
  dep: Pick<Deployment, "id" | "status"> | null,
  deadlineSeconds: number,
): { check: TEvaluationCheckName; message: string } {
  const check = checks.find((c) => c.status === "pending")?.name ?? "deployment";
  const since = e.startedAt ? ` (started ${e.startedAt.toISOString()})` : "";
  const lead = `The evaluation did not finish within its deadline of ${deadlineSeconds} s${since}: it hung in the ${check} check`;
  switch (check) {
    case "deployment":
      if (!dep) return { check, message: `${lead} while its preview deployment was being requested.` };
      return {
        check,
        message: `${lead}: the preview deployment ${dep.id} was still ${dep.status}${
          dep.status === "planned"
            ? " (no deploy worker took it)"
            : dep.status === "applying"
              ? " (install, build or start never finished)"
              : ""
        }.`,
      };
    case "surface":
      return { check, message: `${lead}: the deployment's surface never became reachable.` };
    case "smoke":
      return { check, message: `${lead}: the smoke requests sent as invocations got no answer.` };
    case "logs":
      return { check, message: `${lead}: the app's state and log could not be read.` };
    default:
      return { check, message: `${lead} (the evaluation was ${e.status}).` };
  }
}
