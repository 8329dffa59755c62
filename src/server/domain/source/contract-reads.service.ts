import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import { currentVersion, onChange } from "@/server/platform/change-signals";
import { preparedQuery } from "@/server/platform/db/client";

/**
 * The capability contract a call is checked against, for the Bridge and
 * session admission: the product's active revision's, or a given revision's
 * (a deployment's own). Hot path: one prepared statement on a miss, then an
 * in-process cache. Bound: a contract superseded by a newer confirmed
 * revision stops being served as soon as change signal `contracts`
 * (product id; sent by confirmDescriptor after its commit, LISTEN/NOTIFY
 * across processes) arrives, and within CONTRACT_TTL_MS at the latest if
 * the listener was away. A revision's own contract never changes once ready.
 */
export const CONTRACT_TTL_MS = 5_000;
export type TContract = { revisionId: string; capabilities: TCapabilityEntry[] };

type TEntry = { at: number; value: TContract | null };
const active = new Map<string, TEntry>();
const byRevision = new Map<string, TEntry>();
const MAX_ENTRIES = 10_000;

/** Cached unless a change was signalled while the row was being read (it may predate the change). */
function remember(map: Map<string, TEntry>, key: string, value: TContract | null, version: number): TContract | null {
  if (currentVersion("contracts") !== version) return value;
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, { at: Date.now(), value });
  return value;
}

type TRow = { id: string; capabilities: TCapabilityEntry[] };

/**
 * The contract a product's service identities call the Bridge under: its latest
 * revision with a ready contract. A deployment's own app calls under its
 * deployed revision's contract instead (the deployment's Bridge socket).
 */
export async function activeContract(productId: string): Promise<TContract | null> {
  const hit = active.get(productId);
  if (hit && Date.now() - hit.at < CONTRACT_TTL_MS) return hit.value;
  const version = currentVersion("contracts");
  const rows = await preparedQuery<TRow>(
    "capstan_active_contract",
    `SELECT id, capabilities FROM revisions WHERE product_id = $1 AND contract_status = 'ready'
      ORDER BY contract_confirmed_at DESC, id DESC LIMIT 1`,
    [productId],
  );
  return remember(
    active,
    productId,
    rows[0] ? { revisionId: rows[0].id, capabilities: rows[0].capabilities } : null,
    version,
  );
}

/** A given revision's ready contract (a deployment's own), cached like the active one. */
export async function revisionContract(revisionId: string): Promise<TContract | null> {
  const hit = byRevision.get(revisionId);
  if (hit && Date.now() - hit.at < CONTRACT_TTL_MS) return hit.value;
  const version = currentVersion("contracts");
  const rows = await preparedQuery<TRow>(
    "capstan_revision_contract",
    "SELECT id, capabilities FROM revisions WHERE id = $1 AND contract_status = 'ready'",
    [revisionId],
  );
  return remember(
    byRevision,
    revisionId,
    rows[0] ? { revisionId: rows[0].id, capabilities: rows[0].capabilities } : null,
    version,
  );
}

// A product's contract changed (a revision's contract became ready): its active contract is read again.
// null (the listener reconnected): everything may have changed.
onChange("contracts", (id) => {
  if (id === null) {
    active.clear();
    byRevision.clear();
  } else active.delete(id);
});

export function resetContractCache(): void {
  active.clear();
  byRevision.clear();
}
