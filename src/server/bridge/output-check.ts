import { inspect } from "node:util";
import { scopedDb } from "@/server/platform/db/scoped";
import { unseal } from "@/server/platform/crypto";
import { currentVersion } from "@/server/platform/change-signals";

/**
 * output_blocked: an output that contains a secret stored in the workspace
 * (a credential's secret) is never returned, neither as is nor in a common
 * encoding of it: JSON-escaped, base64 and base64url (at any byte offset, so a
 * secret inside a larger encoded text is found too, padding or not), hex
 * (either case) and URL/form encoding. Secrets shorter than 8 characters are
 * ignored to avoid blocking on trivial matches.
 *
 * Unsealed secrets (and their encodings) are cached in-process per workspace,
 * keyed by the set of the workspace's live credential ids, in a bounded LRU:
 * at most MAX_CACHED_WORKSPACES workspaces and MAX_CACHED_BYTES of secret
 * material in all. The values sit in a holder that prints as "[redacted]"
 * (JSON.stringify, util.inspect, String), so a log line or an error that
 * picks one up by accident cannot show it. The id set is re-read at most once
 * a second (the hot path stays free of it), and at once after a credential
 * change in this process (change signal `credentials:<ws>`), so a secret
 * stored by another process is checked within a second. Secrets never change
 * in place (a credential is only created or revoked), so the id set
 * identifies the secrets.
 */
const MAX_CACHED_WORKSPACES = 1_000;
const MAX_CACHED_BYTES = 8 * 1024 * 1024;
const MIN_SECRET_LENGTH = 8;
const RECHECK_MS = 1_000;

/** The needles of one workspace: never printable. */
export class SecretNeedles {
  readonly #values: readonly string[];
  readonly bytes: number;
  constructor(values: string[]) {
    this.#values = values;
    this.bytes = values.reduce((n, v) => n + v.length * 2, 0);
  }
  get size(): number {
    return this.#values.length;
  }
  foundIn(text: string): boolean {
    return this.#values.some((v) => text.includes(v));
  }
  toJSON(): string {
    return "[redacted]";
  }
  toString(): string {
    return "[redacted]";
  }
  [inspect.custom](): string {
    return "[redacted]";
  }
}

type TEntry = { ids: string; needles: SecretNeedles; checkedAt: number; version: number };
const cache = new Map<string, TEntry>();
let cachedBytes = 0;

function remember(workspaceId: string, entry: TEntry): void {
  const old = cache.get(workspaceId);
  if (old) {
    cachedBytes -= old.needles.bytes;
    cache.delete(workspaceId);
  }
  cache.set(workspaceId, entry);
  cachedBytes += entry.needles.bytes;
  // Least recently used first (a Map iterates in insertion order; hits re-insert).
  for (const [key, e] of cache) {
    if (cache.size <= MAX_CACHED_WORKSPACES && cachedBytes <= MAX_CACHED_BYTES) break;
    if (key === workspaceId) continue;
    cache.delete(key);
    cachedBytes -= e.needles.bytes;
  }
}

/** The forms a secret may take in an output (see the header comment). */
export function secretEncodings(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const out = new Set<string>([secret, JSON.stringify(secret).slice(1, -1)]);
  const hex = bytes.toString("hex");
  out.add(hex).add(hex.toUpperCase());
  const url = encodeURIComponent(secret);
  out
    .add(url)
    .add(url.replace(/%20/g, "+"))
    .add(url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  // base64 of the secret preceded by k bytes of anything: the characters that depend on the secret alone.
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), bytes]).toString("base64");
    const core = b64.slice(Math.ceil((4 * k) / 3), Math.floor(((k + bytes.length) * 8) / 6));
    out.add(core).add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...out].filter((v) => v.length >= MIN_SECRET_LENGTH);
}

async function workspaceNeedles(workspaceId: string): Promise<SecretNeedles> {
  const version = currentVersion(`credentials:${workspaceId}`);
  const fresh = cache.get(workspaceId);
  if (fresh && fresh.version === version && Date.now() - fresh.checkedAt < RECHECK_MS) {
    cache.delete(workspaceId);
    cache.set(workspaceId, fresh);
    return fresh.needles;
  }
  const live = await scopedDb(workspaceId).credential.findMany({
    where: { revokedAt: null },
    select: { id: true },
    orderBy: { id: "asc" },
  });
  const ids = live.map((r) => r.id).join(",");
  const hit = cache.get(workspaceId);
  if (hit && hit.ids === ids) {
    remember(workspaceId, { ...hit, checkedAt: Date.now(), version });
    return hit.needles;
  }
  const rows = await scopedDb(workspaceId).credential.findMany({
    where: { id: { in: live.map((r) => r.id) } },
    select: { id: true, secretSealed: true },
  });
  const values: string[] = [];
  for (const r of rows) {
    try {
      const s = unseal(r.secretSealed, `credential:${r.id}`);
      if (s.length >= MIN_SECRET_LENGTH) values.push(...secretEncodings(s));
    } catch {
      // A secret sealed under a retired key cannot leak through us either.
    }
  }
  const needles = new SecretNeedles([...new Set(values)]);
  remember(workspaceId, { ids, needles, checkedAt: Date.now(), version });
  return needles;
}

export async function blocksOutput(workspaceId: string, output: unknown): Promise<boolean> {
  if (output === null || output === undefined) return false;
  const needles = await workspaceNeedles(workspaceId);
  if (!needles.size) return false;
  return needles.foundIn(JSON.stringify(output));
}

/** What the cache holds, for tests and metrics: counts only, never values. */
export function outputCheckCacheStats(): { workspaces: number; bytes: number } {
  return { workspaces: cache.size, bytes: cachedBytes };
}

export function resetOutputCheckCache(): void {
  cache.clear();
  cachedBytes = 0;
}
