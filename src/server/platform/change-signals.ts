/**
 * In-process change counters: a service bumps a key when it changes data that
 * hot-path caches derive from, so caches in this process see the change at
 * once (other processes rely on the cache's own short TTL).
 */
const versions = new Map<string, number>();

export function bumpVersion(key: string): void {
  versions.set(key, (versions.get(key) ?? 0) + 1);
}

export function currentVersion(key: string): number {
  return versions.get(key) ?? 0;
}
