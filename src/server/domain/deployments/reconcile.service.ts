import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { runner, type TRuntimeState } from "@/server/runtime";
import { resourceHandlers } from "@/server/domain/managed-resources/delivery";
import { deploymentBridge, retire } from "./lifecycle";

/**
 * The reconciler: compares what the database says runs on this runner with
 * what actually runs, on start and every CAPSTAN_RUNNER_RECONCILE_MS.
 *  - an active deployment whose process is alive is adopted (its Bridge
 *    socket served again by this process after a restart of Capstan);
 *  - an active deployment that ran into one of its limits (runner's
 *    limitHits: an OOM kill that took the app itself) is marked `failed` with
 *    reason_code `isolation_violation` and a finding per limit in words;
 *    refused forks, a full disk and a child process OOM-killed while the app
 *    kept running are written once each to the deployment's log;
 *  - an active deployment whose process is gone is marked `failed`
 *    (reason_code `process_exited`, the last lines of its log as a finding),
 *    its surface expires;
 *  - an applying deployment whose lease ran out (the worker died mid-build)
 *    is marked `failed` (`runner_interrupted`);
 *  - every process and directory of this runner that no planned, applying
 *    or active deployment owns is killed and removed (ports, disk, sockets).
 */
const system = { kind: "system" as const, id: null };
/** The contained limit hits already written to each deployment's log (so each new one is written once). */
const noted = new Map<string, string>();

export type TReconcileReport = {
  adopted: string[];
  failed: string[];
  interrupted: string[];
  violated: string[];
  killed: string[];
  removed: string[];
};

export async function reconcileRunner(): Promise<TReconcileReport> {
  const r = runner();
  const report: TReconcileReport = { adopted: [], failed: [], interrupted: [], violated: [], killed: [], removed: [] };
  // Platform-scoped by design: this runner host's deployments, of every workspace.
  const rows = await db().deployment.findMany({
    where: { runnerHost: r.hostId, status: { in: ["applying", "active"] } },
  });
  const keep = new Set<string>();
  for (const dep of rows) {
    const state = dep.runtime as TRuntimeState | null;
    if (dep.status === "applying") {
      if (dep.lockedUntil && dep.lockedUntil > new Date()) {
        keep.add(dep.id);
        continue;
      }
      await retire(dep, "fail", "runner_interrupted", system, newId("evt"), {
        findings: [
          {
            kind: "runtime",
            severity: "error",
            code: "runner_interrupted",
            message: "Capstan stopped while this deployment was being built or started; deploy the revision again.",
          },
        ],
      });
      report.interrupted.push(dep.id);
      continue;
    }
    // A limit that ended the app (an OOM kill of the app itself) ends the deployment with the reason in words (and
    // its deployment.changed event); refused forks or writes, and a child process killed on the memory limit while
    // the app kept running, are contained and go to the deployment's log.
    let hits = await r.limitHits(dep.id, state).catch(() => []);
    // The launcher exits just after the app it ran was killed: a process found gone now is asked about once more.
    if (hits.some((h) => h.limit === "memory" && !h.fatal) && state && !(await r.isRunning(state)))
      hits = await r.limitHits(dep.id, state).catch(() => hits);
    const fatal = hits.filter((h) => h.fatal);
    if (fatal.length) {
      logger.warn("runtime.isolation_violation", {
        deployment_id: dep.id,
        workspace_id: dep.workspaceId,
        limits: hits.map((h) => h.limit),
      });
      await retire(dep, "crash", "isolation_violation", system, newId("evt"), {
        findings: hits.map((h) => ({
          kind: "isolation",
          severity: "error",
          code: "isolation_violation",
          message: `${h.message}${h.fatal ? " The deployment was stopped." : ""}`,
        })),
      });
      noted.delete(dep.id);
      report.violated.push(dep.id);
      continue;
    }
    const contained = hits.map((h) => h.message).join(" ");
    if (contained && noted.get(dep.id) !== contained) {
      noted.set(dep.id, contained);
      logger.warn("runtime.limit_reached", {
        deployment_id: dep.id,
        workspace_id: dep.workspaceId,
        limits: hits.map((h) => h.limit),
      });
      await r.noteInLog(dep.id, `limit reached: ${contained}`);
    }
    if (state && (await r.isRunning(state))) {
      keep.add(dep.id);
      await r.adopt(dep.id, state, deploymentBridge(dep), resourceHandlers(dep));
      report.adopted.push(dep.id);
      continue;
    }
    const tail = (await r.runLog(dep.id, 4_000)).trimEnd().split("\n").slice(-12).join("\n");
    await retire(dep, "crash", "process_exited", system, newId("evt"), {
      findings: [
        {
          kind: "runtime",
          severity: "error",
          code: "process_exited",
          message: `The app's process ended while the deployment was active.${tail ? ` Last output:\n${tail}` : ""}`,
        },
      ],
    });
    report.failed.push(dep.id);
  }
  // Planned deployments own nothing on disk yet; anything else is an orphan.
  const swept = await r.sweep(async () => {
    // platform-scoped: the runner's sweep spans every workspace's deployments.
    const busy = await db().deployment.findMany({
      where: { status: { in: ["planned", "applying"] } },
      select: { id: true },
    });
    return new Set([...keep, ...busy.map((d) => d.id)]);
  });
  report.killed = swept.killed;
  report.removed = swept.removed;
  if (
    report.failed.length ||
    report.violated.length ||
    report.interrupted.length ||
    report.killed.length ||
    report.removed.length
  ) {
    logger.info("runtime.reconciled", { ...report, adopted: report.adopted.length });
  }
  return report;
}
