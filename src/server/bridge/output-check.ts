import { db } from "@/server/platform/db/client";
import { unseal } from "@/server/platform/crypto";
import { currentVersion } from "@/server/platform/change-signals";

/**
 * output_blocked: an output that contains a secret stored in the workspace
 * (a credential's secret) is never returned. The secrets are compared as
 * substrings of the serialised output; secrets shorter than 8 characters are
 * ignored to avoid blocking on trivial matches. Unsealed secrets are cached
 * in-process per workspace, keyed by the set of the workspace's live
 * credential ids. The id set is re-read at most once a second (the hot path
 * stays free of it), and at once after a credential change in this process
 * (change signal `credentials:<ws>`), so a secret stored by another process
 * is checked within a second. Secrets never change in place (a credential is
 * only created or revoked), so the id set identifies the secrets.
 */
const MAX_CACHED_WORKSPACES = 10_000;
const RECHECK_MS = 1_000;
const cache = new Map<string, { ids: string; secrets: string[]; checkedAt: number; version: number }>();

async function workspaceSecrets(workspaceId: string): Promise<string[]> {
  const version = currentVersion(`credentials:${workspaceId}`);
  const fresh = cache.get(workspaceId);
  if (fresh && fresh.version === version && Date.now() - fresh.checkedAt < RECHECK_MS) return fresh.secrets;
  const live = await db().credential.findMany({
    where: { workspaceId, revokedAt: null },
    select: { id: true },
    orderBy: { id: "asc" },
  });
  const ids = live.map((r) => r.id).join(",");
  const hit = cache.get(workspaceId);
  if (hit && hit.ids === ids) {
    cache.set(workspaceId, { ...hit, checkedAt: Date.now(), version });
    return hit.secrets;
  }
  const rows = await db().credential.findMany({
    where: { id: { in: live.map((r) => r.id) } },
    omit: { secretSealed: false },
  });
  const secrets: string[] = [];
  for (const r of rows) {
    try {
      const s = unseal(r.secretSealed, `credential:${r.id}`);
      if (s.length >= 8) secrets.push(s);
    } catch {
      // A secret sealed under a retired key cannot leak through us either.
    }
  }
  if (cache.size >= MAX_CACHED_WORKSPACES) cache.clear();
  cache.set(workspaceId, { ids, secrets, checkedAt: Date.now(), version });
  return secrets;
}

export async function blocksOutput(workspaceId: string, output: unknown): Promise<boolean> {
  if (output === null || output === undefined) return false;
  const secrets = await workspaceSecrets(workspaceId);
  if (!secrets.length) return false;
  const text = JSON.stringify(output);
  // Compared in serialised form too: a secret with a quote or backslash appears escaped in the JSON text.
  return secrets.some((s) => text.includes(s) || text.includes(JSON.stringify(s).slice(1, -1)));
}

export function resetOutputCheckCache(): void {
  cache.clear();
}
