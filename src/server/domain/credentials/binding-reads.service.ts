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

type TRawRow = {
  id: string;
  credential_id: string;
  provider: string;
  status: string;
  actions: string[];
  capability_scope: unknown;
  config: Record<string, unknown>;
};
const COLUMNS = "id, credential_id, provider, status, actions, capability_scope, config";
const toRow = (r: TRawRow): TBindingRow => ({
  id: r.id,
  credentialId: r.credential_id,
  provider: r.provider,
  status: r.status,
  actions: r.actions,
  capabilityScope: r.capability_scope,
  config: r.config ?? {},
});

function cached(key: string, version: number): TBindingRow[] | undefined {
  const hit = cache.get(key);
  return hit && hit.version === version && Date.now() - hit.at < BINDINGS_TTL_MS ? hit.rows : undefined;
}

/** A change signalled while the query ran must not be cached as current. */
function remember(key: string, version: number, rows: TBindingRow[]): void {
  if (currentVersion("bindings") !== version) return;
  if (cache.size > 10_000) cache.clear();
  cache.set(key, { at: Date.now(), version, rows });
}

export async function workspaceBindings(workspaceId: string, capability: string): Promise<TBindingRow[]> {
  const key = `${workspaceId}:${capability}`;
  const version = currentVersion("bindings");
  const hit = cached(key, version);
  if (hit) return hit;
  const rows = (
    await preparedQuery<TRawRow>(
      "capstan_workspace_bindings",
      `SELECT ${COLUMNS} FROM provider_bindings WHERE workspace_id = $1 AND capability = $2 ORDER BY created_at DESC, id DESC`,
      [workspaceId, capability],
    )
  ).map(toRow);
  remember(key, version, rows);
  return rows;
}

/** Several capabilities at once: the ones not cached are read in ONE statement (and cached like workspaceBindings). */
async function workspaceBindingsOf(workspaceId: string, capabilities: string[]): Promise<Map<string, TBindingRow[]>> {
  const version = currentVersion("bindings");
  const out = new Map<string, TBindingRow[]>();
  const missing: string[] = [];
  for (const c of new Set(capabilities)) {
    const hit = cached(`${workspaceId}:${c}`, version);
    if (hit) out.set(c, hit);
    else missing.push(c);
  }
  if (missing.length === 1) out.set(missing[0]!, await workspaceBindings(workspaceId, missing[0]!));
  if (missing.length > 1) {
    const rows = await preparedQuery<TRawRow & { capability: string }>(
      "capstan_workspace_bindings_of",
      `SELECT capability, ${COLUMNS} FROM provider_bindings WHERE workspace_id = $1 AND capability = ANY($2::text[]) ORDER BY created_at DESC, id DESC`,
      [workspaceId, missing],
    );
    for (const c of missing) {
      const mine = rows.filter((r) => r.capability === c).map(toRow);
      remember(`${workspaceId}:${c}`, version, mine);
      out.set(c, mine);
    }
  }
  return out;
}

type TProviderChoice = { id: string; provider: { allow: string[]; prefer?: string } };

/** A contract entry's provider fallback order: `prefer` first (when allowed), then the allow-list; never outside it. */
export function providerOrder(entry: { provider: { allow: string[]; prefer?: string } }): string[] {
  const { allow, prefer } = entry.provider;
  return [...new Set([...(prefer && allow.includes(prefer) ? [prefer] : []), ...allow])];
}

const inOrder = (rows: TBindingRow[], order: string[]) => order.flatMap((p) => rows.filter((b) => b.provider === p));

/**
 * THE resolution of a workspace's bindings for a contract entry, shared by the
 * Bridge (which picks one and falls back along this order) and session
 * admission (which only asks whether one is ready): the bindings of the
 * entry's capability whose provider the entry allows, in fallback order
 * (provider order, newest first within a provider), every status. Cached
 * reads as above: no round trip on a hit.
 */
export async function bindingsInOrder(workspaceId: string, entry: TProviderChoice): Promise<TBindingRow[]> {
  return inOrder(await workspaceBindings(workspaceId, entry.id), providerOrder(entry));
}

/** The entries for which the workspace has no ready binding in their provider order (one statement at most, for those not cached). */
export async function entriesWithoutReadyBinding<E extends TProviderChoice>(
  workspaceId: string,
  entries: E[],
): Promise<E[]> {
  if (!entries.length) return [];
  const rows = await workspaceBindingsOf(
    workspaceId,
    entries.map((e) => e.id),
  );
  return entries.filter((e) => !inOrder(rows.get(e.id) ?? [], providerOrder(e)).some((b) => b.status === "ready"));
}

onChange("bindings", () => cache.clear());

export function resetBindingReadCache(): void {
  cache.clear();
}
