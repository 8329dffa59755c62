import { activeContract, resetContractCache, revisionContract } from "@/server/domain/source/contract-reads.service";
import { resetPlanCache, workspacePlan } from "@/server/domain/usage/plan-reads.service";
import { resetBindingCache } from "./bindings";

/**
 * The Bridge's lookups of contract and plan are the services' own cached
 * reads (domain/source/contract-reads.service.ts,
 * domain/usage/plan-reads.service.ts: prepared statements, caches dropped by
 * change signals, TTL-bounded while a listener reconnects), shared with
 * session admission.
 */
export { activeContract, revisionContract, workspacePlan };

export function resetBridgeCaches(): void {
  resetContractCache();
  resetPlanCache();
  resetBindingCache();
}
