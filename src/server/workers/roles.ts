import { logger } from "@/server/platform/logger";
import type { TRole } from "@/server/platform/roles";
import { reconcileRunner } from "@/server/domain/deployments/reconcile.service";
import { startRunnerRole } from "@/server/domain/runners/runner-hosts.service";
import { runner } from "@/server/runtime";
import { DEFAULT_PLAN_LIMITS } from "@/server/runtime/limits";
import { loopsFor, startWorkers } from "./run";

/**
 * Starts the non-web roles of this process: the runner (gateway, host
 * registration and heartbeat, adoption of the apps that survived a restart)
 * before any loop, then the loops of the worker and runner roles.
 */
export async function startRoles(roles: ReadonlySet<TRole>, opts: { keepAlive?: boolean } = {}): Promise<void> {
  if (roles.has("runner")) {
    logger.info("runtime.isolation", { ...(await runner().isolation(DEFAULT_PLAN_LIMITS.free)) });
    await startRunnerRole();
    // Adopt the apps that survived a restart and clear what no deployment owns, before serving.
    await reconcileRunner().catch((err) => logger.error("runtime.reconcile_failed", { error: String(err) }));
  }
  const list = loopsFor(roles);
  if (list.length) startWorkers(list, opts);
  logger.info("process.roles", { roles: [...roles] });
}
