import { onChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { resetBindingCache } from "./bindings";
import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TPlanName } from "@/server/domain/usage/usage.contract";

/**
 * Hot-path lookups with a short in-process cache (5 s): the contract of the
 * product's active revision and the workspace plan. A change is signalled
 * (change signals, LISTEN/NOTIFY across processes); the TTL only
 * bounds it while a process's listener reconnects.
 */
const TTL_MS = 5_000;
type TEntry<T> = { at: number; value: T };
const contracts = new Map<string, TEntry<{ revisionId: string; capabilities: TCapabilityEntry[] } | null>>();
const plans = new Map<string, TEntry<TPlanName>>();

/** Until deployments exist, the active revision is the product's latest revision with a ready contract. */
export async function activeContract(productId: string) {
  const hit = contracts.get(productId);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
  const rev = await db().revision.findFirst({
    where: { productId, contractStatus: "ready" },
    orderBy: [{ contractConfirmedAt: "desc" }, { id: "desc" }],
    select: { id: true, capabilities: true },
  });
  const value = rev ? { revisionId: rev.id, capabilities: rev.capabilities as unknown as TCapabilityEntry[] } : null;
  contracts.set(productId, { at: Date.now(), value });
  return value;
}

/** A given revision's ready contract (a deployment's own), cached like the active one. */
export async function revisionContract(revisionId: string) {
  const key = `rev:${revisionId}`;
  const hit = contracts.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
  const rev = await db().revision.findFirst({ where: { id: revisionId, contractStatus: "ready" }, select: { id: true, capabilities: true } });
  const value = rev ? { revisionId: rev.id, capabilities: rev.capabilities as unknown as TCapabilityEntry[] } : null;
  contracts.set(key, { at: Date.now(), value });
  return value;
}

export async function workspacePlan(workspaceId: string): Promise<TPlanName> {
  const hit = plans.get(workspaceId);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
  const row = await db().plan.findUnique({ where: { workspaceId }, select: { plan: true } });
  const value = (row?.plan ?? "free") as TPlanName;
  plans.set(workspaceId, { at: Date.now(), value });
  return value;
}

// Signalled by the services that change them: "contracts" (product id) when a revision's contract becomes ready, "plan" (workspace id).
onChange("contracts", (id) => (id === null ? contracts.clear() : contracts.delete(id)));
onChange("plan", (id) => (id === null ? plans.clear() : plans.delete(id)));

export function resetBridgeCaches(): void {
  contracts.clear();
  plans.clear();
  resetBindingCache();
}
