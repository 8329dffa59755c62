import { db } from "@/server/platform/db/client";
import { logger } from "@/server/platform/logger";

/**
 * A planned deployment no host can take says so (issue #35 item 4): every
 * tick of the runner-leases loop, a planned deployment waiting longer than
 * WAIT_MS while no live, uncordoned host other than the one it avoids has
 * room gets reason_code `no_runner_capacity` and a finding in words (once).
 * It stays planned: every runner's deploy loop claims it as soon as a host
 * has room (the claim clears the reason code), so nothing else retries.
 */
export const NO_CAPACITY = "no_runner_capacity";
const WAIT_MS = 5_000;

export async function notePlacementWaits(limit = 100): Promise<string[]> {
  // platform-scoped: planned deployments of every workspace against the registry of runner hosts (PLATFORM_GLOBAL).
  const rows = await db().$queryRaw<{ id: string; hosts: number; avoid_host: string | null }[]>`
    WITH load AS (
      SELECT h.id, h.capacity, (SELECT count(*) FROM deployments d WHERE d.runner_host = h.id
               AND (d.status IN ('applying', 'active') OR (d.status = 'planned' AND d.locked_until > now())))::int AS n
        FROM runner_hosts h WHERE h.state = 'live' AND h.lease_expires_at > now() AND h.cordoned_at IS NULL)
    SELECT d.id, (SELECT count(*) FROM load)::int AS hosts, d.avoid_host FROM deployments d
     WHERE d.status = 'planned' AND (d.locked_until IS NULL OR d.locked_until < now())
       AND d.created_at < now() - make_interval(secs => ${WAIT_MS / 1000}) AND d.reason_code IS DISTINCT FROM ${NO_CAPACITY}
       AND NOT EXISTS (SELECT 1 FROM load WHERE n < capacity AND load.id IS DISTINCT FROM d.avoid_host)
     ORDER BY d.created_at LIMIT ${limit}`;
  const noted: string[] = [];
  for (const r of rows) {
    const message = `No runner host can take it now: ${r.hosts === 0 ? "no live, uncordoned runner host is registered" : `the ${r.hosts} live, uncordoned runner host${r.hosts === 1 ? " is" : "s are"} at capacity (CAPSTAN_RUNNER_CAPACITY)`}${r.avoid_host ? `, and it avoids ${r.avoid_host}` : ""}. It is placed as soon as a host has room: uncordon a host, raise its capacity or start another runner.`;
    // platform-scoped: the planned deployment found above, compare-and-set on its state (a claim meanwhile wins).
    const done = await db().$executeRaw`
      UPDATE deployments SET reason_code = ${NO_CAPACITY}, updated_at = now(),
        findings = findings || jsonb_build_array(jsonb_build_object('kind', 'runtime', 'severity', 'warning', 'code', ${NO_CAPACITY}::text, 'message', ${message}::text))
       WHERE id = ${r.id} AND status = 'planned' AND (locked_until IS NULL OR locked_until < now()) AND reason_code IS DISTINCT FROM ${NO_CAPACITY}`;
    if (done) noted.push(r.id);
  }
  if (noted.length) logger.warn("runner.no_capacity", { deployments: noted });
  return noted;
}
