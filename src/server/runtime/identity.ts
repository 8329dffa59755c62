import { createHash } from "node:crypto";
import { chmod, chown, readdir, stat } from "node:fs/promises";
import path from "node:path";

/**
 * The host identity a deployment's app runs as (docs/decisions.md
 * "Enforced isolation"). When Capstan runs as root, every deployment gets
 * its own uid/gid from the reserved range [base, base + count): it owns its
 * deployment directory and nothing else, and every process of the app
 * (install, build, the launcher, the app) runs as it, never as host root.
 * Without root Capstan cannot change uid: the app runs as Capstan's own
 * (unprivileged) user and the report says the identity is not dedicated.
 */
export type TAppIdentity = { uid: number; gid: number; dedicated: boolean };

export type TUidRange = { base: number; count: number };

export function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

// One allocation at a time per process: two deploys never pick the same free uid.
let chain: Promise<unknown> = Promise.resolve();

/**
 * Picks the deployment's uid: a stable start (a hash of the id) probed
 * forward to the first uid that no other deployment directory under `root`
 * owns, then chowns `dir` (already created) to it. The directory's owner is
 * the record: after a restart the same uid is read back from it.
 */
export function allocateIdentity(
  root: string,
  deploymentId: string,
  dir: string,
  range: TUidRange,
): Promise<TAppIdentity> {
  if (!isRoot()) {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    return Promise.resolve({ uid, gid, dedicated: false });
  }
  const next = chain.then(async () => {
    const used = new Set<number>();
    for (const name of await readdir(root).catch(() => [] as string[])) {
      if (!/^dep_/.test(name) || name === deploymentId) continue;
      const s = await stat(path.join(root, name)).catch(() => null);
      if (s && s.uid >= range.base && s.uid < range.base + range.count) used.add(s.uid);
    }
    const start = createHash("sha256").update(deploymentId).digest().readUInt32BE(0) % range.count;
    for (let i = 0; i < range.count; i++) {
      const uid = range.base + ((start + i) % range.count);
      if (used.has(uid)) continue;
      await chown(dir, uid, uid);
      return { uid, gid: uid, dedicated: true };
    }
    throw new Error(
      `no free uid left in the reserved range ${range.base}..${range.base + range.count - 1} (CAPSTAN_RUNNER_UID_BASE/COUNT)`,
    );
  });
  chain = next.catch(() => undefined);
  return next;
}

/**
 * The deployments' uids must be able to reach their own directory: every
 * ancestor of the runner directory gets the "others may traverse" bit
 * (o+x, never o+r: nothing becomes listable that was not). Returns the
 * directories changed. Runs once at the host probe, only as root.
 */
export async function ensureTraversable(dir: string): Promise<string[]> {
  const changed: string[] = [];
  let p = path.resolve(dir);
  for (;;) {
    const s = await stat(p).catch(() => null);
    if (s && (s.mode & 0o001) === 0) {
      await chmod(p, (s.mode & 0o7777) | 0o001);
      changed.push(p);
    }
    const parent = path.dirname(p);
    if (parent === p) break;
    p = parent;
  }
  return changed;
}
