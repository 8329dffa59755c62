import { currentVersion, onChange } from "@/server/platform/change-signals";
import { preparedQuery } from "@/server/platform/db/client";

/**
 * A workspace's provider bindings of one capability, as the Bridge's hot path
 * reads them (newest first; every status, so the Bridge can tell
 * binding_missing from binding_revoked). One prepared statement on a miss,
 * then cached per process. Bound: a binding revoked, expired, failed or
 * created (change signal `bindings`, sent by the bindings and credentials
 * services after commit, LISTEN/NOTIFY across processes) is re-read by the
 * next call, and within BINDINGS_TTL_MS at the latest if the listener was
 * away. Secrets are not here (readCredentialSecret).
 * Raw SQL on purpose (the Bridge's hot path, not scopedDb): the statement names the workspace itself.
 */
export const BINDINGS_TTL_MS = 1_000;

export type TBindingRow = {
  id: string;
  credentialId: string;
  provider: string;
  status: string;
  actions: string[];
  capabilityScope: unknown;
  config: Record<string, unknown>;
};

type TCached = { at: number; version: number; rows: TBindingRow[] };
const cache = new Map<string, TCached>();

export async function workspaceBindings(workspaceId: string, capability: string): Promise<TBindingRow[]> {
  const key = `${workspaceId}:${capability}`;
  const version = currentVersion("bindings");
  const hit = cache.get(key);
  if (hit && hit.version === version && Date.now() - hit.at < BINDINGS_TTL_MS) return hit.rows;
  const rows = await preparedQuery<{ id: string; credential_id: string; provider: string; status: string; actions: string[]; capability_scope: unknown; config: Record<string, unknown> }>(
    "capstan_workspace_bindings",
    `SELECT id, credential_id, provider, status, actions, capability_scope, config FROM provider_bindings
      WHERE workspace_id = $1 AND capability = $2 ORDER BY created_at DESC, id DESC`,
    [workspaceId, capability],
  );
  const mapped = rows.map((r) => ({
    id: r.id, credentialId: r.credential_id, provider: r.provider, status: r.status, actions: r.actions,
    capabilityScope: r.capability_scope, config: r.config ?? {},
  }));
  // A change signalled while the query ran must not be cached as current.
  if (currentVersion("bindings") === version) {
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { at: Date.now(), version, rows: mapped });
  }
  return mapped;
}

onChange("bindings", () => cache.clear());

export function resetBindingReadCache(): void {
  cache.clear();
}
