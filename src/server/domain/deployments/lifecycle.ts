import type { Deployment } from "@/generated/prisma/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { problemResponse, AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { runner, type TRuntimeState } from "@/server/runtime";
import { dropPool } from "@/server/runtime/surface-proxy";
import { runnerFor } from "@/server/domain/runners/runner-hosts.service";
import { PIPELINE, type TDeploymentEvent, type TPipelineStatus } from "./deployments.states";
import { moveDeployment, movePipeline, moveSurface, type TMoveCtx } from "./transitions";
import { forgetSurface } from "./surface-cache";
import { closeSessionsTx } from "@/server/domain/sessions/access.service";
import { flushRunLog } from "./run-log.service";

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
  /** keepSurface: the surface stays active for a replacement that takes it over (a deployment lost with its host). */
  extra: { findings?: unknown[]; keepSurface?: boolean } = {},
): Promise<Deployment> {
  const now = new Date();
  const moved = await moveDeployment(ctx, dep, event, {
    reasonCode,
    stoppedAt: now,
    ...(extra.findings ? { findings: [...(dep.findings as unknown[]), ...extra.findings] as never } : {}),
  });
  const srf = extra.keepSurface ? null : await ctx.tx.surface.findUnique({ where: { deploymentId: dep.id } });
  if (
    srf &&
    srf.status !== "expired" &&
    srf.status !== "configuration_failed" &&
    srf.status !== "expiration_registration_failed"
  ) {
    await moveSurface(ctx, srf, "expire", {
      reasonCode: `deployment_${event === "fail" || event === "crash" ? "failed" : event === "supersede" ? "superseded" : event === "expire" ? "expired" : "stopped"}`,
    });
    await ctx.tx.deadline.updateMany({
      where: { id: srf.deadlineId, status: "registered" },
      data: { status: "cancelled", updatedAt: now },
    });
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
export async function release(
  dep: Pick<Deployment, "id" | "runtime" | "surfaceId"> & { runnerHost?: string | null },
): Promise<void> {
  const state = dep.runtime as TRuntimeState | null;
  try {
    if (dep.surfaceId) forgetSurface(dep.surfaceId);
    const host = dep.runnerHost === undefined ? runner() : await runnerFor(dep.runnerHost);
    // The rest of the app's log goes to the blob store before its directory does.
    await flushRunLog(dep.id, host, { final: true }).catch((err: unknown) =>
      logger.error("run_log.final_flush_failed", { deployment_id: dep.id, error: String(err) }),
    );
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
  const moved = await scopedDb(dep.workspaceId).$transaction((tx) =>
    retireInTx({ tx, actor, correlationId }, dep, event, reasonCode, extra),
  );
  await release(moved);
  return moved;
}

/** What of a deployment the Bridge needs to act as its caller. */
export type TBridgeDeployment = Pick<Deployment, "id" | "workspaceId" | "productId" | "revisionId" | "environmentType">;
export type TDeploymentBridge = (dep: TBridgeDeployment) => (req: Request) => Promise<Response>;

const port = globalThis as unknown as { __capstanDeploymentBridge?: TDeploymentBridge };

/**
 * The Bridge sits above the domain (it calls the domain's services), so the domain never imports it: each process's
 * composition root (boot.ts, workers/main.ts, the tests' per-file setup) hands it in here, from
 * bridge/deployment-bridge.ts.
 */
export function provideDeploymentBridge(fn: TDeploymentBridge): void {
  port.__capstanDeploymentBridge = fn;
}

/**
 * The Bridge as a deployment's app sees it (served on its Bridge socket), looked up per request so a process may
 * wire it after its first deployment was adopted; unwired, a call is a 503 problem, never a crash.
 */
export function deploymentBridge(dep: TBridgeDeployment): (req: Request) => Promise<Response> {
  return (req) => {
    const bridge = port.__capstanDeploymentBridge;
    if (bridge) return bridge(dep)(req);
    return Promise.resolve(
      problemResponse(new AppError("unavailable", "The Bridge is not wired in this process"), {
        instance: new URL(req.url).pathname,
        correlationId: newId("evt"),
      }),
    );
  };
}
