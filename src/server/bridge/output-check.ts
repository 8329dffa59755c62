import { db } from "@/server/platform/db/client";
import { unseal } from "@/server/platform/crypto";

/**
 * output_blocked: an output that contains a secret stored in the workspace
 * (a credential's secret) is never returned. Secrets are unsealed into a
 * short-lived in-process cache (30 s) and compared as substrings of the
 * serialised output; secrets shorter than 8 characters are ignored to avoid
 * blocking on trivial matches.
 */
const TTL_MS = 30_000;
const cache = new Map<string, { at: number; secrets: string[] }>();

async function workspaceSecrets(workspaceId: string): Promise<string[]> {
  const hit = cache.get(workspaceId);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.secrets;
  const rows = await db().credential.findMany({
    where: { workspaceId, revokedAt: null },
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
  cache.set(workspaceId, { at: Date.now(), secrets });
  return secrets;
}

export async function blocksOutput(workspaceId: string, output: unknown): Promise<boolean> {
  if (output === null || output === undefined) return false;
  const secrets = await workspaceSecrets(workspaceId);
  if (!secrets.length) return false;
  const text = JSON.stringify(output);
  return secrets.some((s) => text.includes(s));
}

export function resetOutputCheckCache(): void {
  cache.clear();
}
