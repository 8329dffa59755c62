import type { Deployment } from "@/generated/prisma/client";
import { handleBridge } from "@/server/bridge/handler";
import { handleRunnerInvocation } from "@/server/bridge/runner-handler";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { problemResponse, AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { runner, type TRuntimeState } from "@/server/runtime";
import { dropPool } from "@/server/runtime/surface-proxy";
import type { TRunnerOps } from "@/server/runtime/remote-runner";
import { runnerFor } from "@/server/domain/runners/runner-hosts.service";
import { PIPELINE, type TDeploymentEvent, type TPipelineStatus } from "./deployments.states";
import { moveDeployment, movePipeline, moveSurface, type TMoveCtx } from "./transitions";
import { forgetSurface } from "./surface-cache";
import { closeSessionsTx } from "@/server/domain/sessions/access.service";
import { storeEvidence } from "@/server/domain/source/evidence.service";

/**
 * Taking a deployment out of service, whatever the cause (stop, expiry,
 * supersession, crash, failed start): in the caller's transaction the
 * deployment moves, its surface expires, its deadline is cancelled and an
 * unfinished pipeline run fails; after the commit, `release` kills the
 * process group and frees its directory, socket and port.
 */
export async function retireInTx(
  ctx: TMoveCtx,
  dep: Deployment,
  event: Extract<TDeploymentEvent, "stop" | "expire" | "supersede" | "crash" | "fail">,
  reasonCode: string,
  extra: { findings?: unknown[] } = {},
): Promise<Deployment> {
  const now = new Date();
  const moved = await moveDeployment(ctx, dep, event, {
    reasonCode, stoppedAt: now,
    ...(extra.findings ? { findings: [...(dep.findings as unknown[]), ...extra.findings] as never } : {}),
  });
  const srf = await ctx.tx.surface.findUnique({ where: { deploymentId: dep.id } });
  if (srf && srf.status !== "expired" && srf.status !== "configuration_failed" && srf.status !== "expiration_registration_failed") {
    await moveSurface(ctx, srf, "expire", { reasonCode: `deployment_${event === "fail" || event === "crash" ? "failed" : event === "supersede" ? "superseded" : event === "expire" ? "expired" : "stopped"}` });
    await ctx.tx.deadline.updateMany({ where: { id: srf.deadlineId, status: "registered" }, data: { status: "cancelled", updatedAt: now } });
    await closeSessionsTx(ctx.tx, { surfaceId: srf.id }, "surface_expired");
  }
  if (dep.pipelineRunId) {
    const run = await ctx.tx.pipelineRun.findUnique({ where: { id: dep.pipelineRunId } });
    if (run && !PIPELINE.terminal.has(run.status as TPipelineStatus)) {
      const ev = run.status === "reported" && event === "fail" ? "fail" : "cancel";
      if (PIPELINE.can(run.status as TPipelineStatus, ev)) await movePipeline(ctx, run, ev, { reasonCode });
    }
  }
  return moved;
}

/**
 * After the commit of a retirement: the process group, sockets and directory
 * go, on the runner host the deployment was placed on (this process's runner,
 * or the host's gateway; `runnerHost` undefined means this process's). Never
 * throws: a host that cannot be reached removes it itself, its reconciler
 * sweeps whatever no live deployment owns.
 */
export async function release(dep: Pick<Deployment, "id" | "runtime" | "surfaceId"> & { runnerHost?: string | null }): Promise<void> {
  const state = dep.runtime as TRuntimeState | null;
  try {
    if (dep.surfaceId) forgetSurface(dep.surfaceId);
    const host = dep.runnerHost === undefined ? runner() : await runnerFor(dep.runnerHost);
    await keepRunLog(dep.id, host);
    if (state) await dropPool(state.ingress_socket);
    await host.stop(dep.id, state);
  } catch (err) {
    // The reconciler retries what is left (it removes whatever no running deployment owns).
    logger.error("runtime.release_failed", { deployment_id: dep.id, error: String(err) });
  }
}

/** Retires in its own transaction, then releases. */
export async function retire(
  dep: Deployment,
  event: Parameters<typeof retireInTx>[2],
  reasonCode: string,
  actor: TMoveCtx["actor"],
  correlationId = newId("evt"),
  extra: { findings?: unknown[] } = {},
): Promise<Deployment> {
  const moved = await scopedDb(dep.workspaceId).$transaction((tx) => retireInTx({ tx, actor, correlationId }, dep, event, reasonCode, extra));
  await release(moved);
  return moved;
}

/** The tail of an ending app's log becomes evidence before its directory goes. */
const RUN_LOG_KEEP_BYTES = 256 * 1024;
async function keepRunLog(id: string, host: TRunnerOps): Promise<void> {
  const tail = await host.runLog(id, RUN_LOG_KEEP_BYTES);
  if (!tail) return;
  // platform-scoped: runs after a retirement by a worker or a user, with the deployment's id only; the row names its workspace.
  const row = await db().deployment.findUnique({ where: { id }, select: { workspaceId: true, evidence: true } });
  if (!row) return;
  const runLog = await storeEvidence(row.workspaceId, Buffer.from(tail, "utf8"), "text/plain; charset=utf-8");
  await scopedDb(row.workspaceId).deployment.update({ where: { id }, data: { evidence: { ...(row.evidence as object), run_log: runLog } as never } });
}

const BRIDGE_PATH = /^\/v1\/capabilities\/([^/?#]+)\/([^/?#]+)$/;

/**
 * The Bridge as a deployment's app sees it (served on its Bridge socket):
 * the caller is the deployment itself, its contract is the deployed
 * revision's, and nothing but the Bridge is reachable.
 */
export function deploymentBridge(dep: Pick<Deployment, "id" | "workspaceId" | "productId" | "revisionId" | "environmentType">) {
  return (req: Request): Promise<Response> => {
    const pathname = new URL(req.url).pathname;
    if (pathname === "/v1/runner/capability-invocations" && req.method === "POST") return handleRunnerInvocation(req, { deploymentId: dep.id });
    const m = BRIDGE_PATH.exec(pathname);
    if (!m || req.method !== "POST") {
      return Promise.resolve(problemResponse(new AppError("not_found", "Only POST /v1/capabilities/{capability}/{action} and POST /v1/runner/capability-invocations are reachable from a hosted app"), {
        instance: new URL(req.url).pathname, correlationId: newId("evt"),
      }));
    }
    // Capability and action names are URL-safe: an escaped one is simply unknown (404), never a throw.
    return handleBridge(req, m[1]!, m[2]!, {
      principal: {
        principalId: dep.id, kind: "deployment",
        caller: {
          serviceIdentityId: null, deploymentId: dep.id, revisionId: dep.revisionId, workspaceId: dep.workspaceId,
          productId: dep.productId, environmentType: dep.environmentType, permissions: null,
        },
      },
    });
  };
}
