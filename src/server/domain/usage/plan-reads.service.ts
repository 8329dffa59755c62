import type { TPlanName } from "@/server/domain/usage/usage.contract";
import { currentVersion, onChange } from "@/server/platform/change-signals";
import { preparedQuery } from "@/server/platform/db/client";

/**
 * A workspace's plan name on the hot paths (Bridge, session admission): one
 * prepared statement on a miss, then cached; change signal `plan`
 * (workspace id, sent by setPlan and subscription changes after commit)
 * drops it everywhere, PLAN_TTL_MS bounds it while a listener is away.
 * Raw SQL on purpose (hot path, not scopedDb): the statement names the workspace itself.
 */
export const PLAN_TTL_MS = 5_000;
const plans = new Map<string, { at: number; value: TPlanName }>();

export async function workspacePlan(workspaceId: string): Promise<TPlanName> {
  const hit = plans.get(workspaceId);
  if (hit && Date.now() - hit.at < PLAN_TTL_MS) return hit.value;
  const version = currentVersion("plan");
  const rows = await preparedQuery<{ plan: string }>(
    "capstan_workspace_plan",
    "SELECT plan FROM plans WHERE workspace_id = $1",
    [workspaceId],
  );
  const value = (rows[0]?.plan ?? "free") as TPlanName;
  if (currentVersion("plan") !== version) return value; // changed while read: not cached
  if (plans.size >= 10_000) plans.clear();
  plans.set(workspaceId, { at: Date.now(), value });
  return value;
}

onChange("plan", (id) => (id === null ? plans.clear() : plans.delete(id)));

export function resetPlanCache(): void {
  plans.clear();
}
