import path from "node:path";
import { db } from "@/server/platform/db/client";
import { instanceId, isInstanceAlive } from "@/server/platform/db/instance";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { LocalWal } from "@/server/platform/wal";
import { recoverReservations, settleReservation, sweepExpiredReservations } from "./reservations.service";

/** Leases of a dead process with no journal here are released after this (docs/decisions.md "One commit per priced call"). */
export const LEASE_ORPHAN_MS = 15 * 60_000;

/** Where each process journals its lease draws (platform/wal.ts), one journal per instance. */
export function journalDir(): string {
  return path.resolve(env().CAPSTAN_DATA_DIR, "journal");
}

/**
 * Recovery of dead processes' leases (boot, before serving; the reservation
 * sweeper). For each journal in this data directory whose process is gone:
 * every draw whose call has no record is charged its drawn reservation (units
 * and wallet hold) once, then the rest of that process's leases is released
 * and the journal removed. Leases of a dead process with no journal here are
 * released after LEASE_ORPHAN_MS. Returns how many draws were charged.
 */
export async function recoverLeases(): Promise<number> {
  const me = await instanceId();
  let charged = 0;
  for (const name of LocalWal.names(journalDir())) {
    if (name === me || (await isInstanceAlive(name))) continue;
    const draws = LocalWal.read(journalDir(), name).flatMap((r) =>
      typeof r.l === "string" && typeof r.i === "string" && typeof r.u === "number"
        ? [{ l: r.l, i: r.i, u: r.u, h: BigInt(typeof r.h === "string" ? r.h : "0") }]
        : [],
    );
    // platform-scoped: recovery spans every workspace; ids come from our own journal.
    // Recorded: a Bridge call's record, or a session invocation's execution (each settles its draw in its own statement).
    const ids = draws.map((d) => d.i);
    const recorded = new Set(
      // platform-scoped: the recovery query above spans every workspace.
      (
        await db().$queryRaw<{ id: string }[]>`
      SELECT id FROM capability_invocations WHERE id = ANY(${ids}::text[])
      UNION ALL SELECT id FROM invocations WHERE id = ANY(${ids}::text[]) AND execution IS NOT NULL`
      ).map((r) => r.id),
    );
    for (const d of draws) {
      if (recorded.has(d.i)) continue;
      // platform-scoped: a dead process's journaled draw, by its lease id (any workspace).
      const rows = await db().$queryRaw<
        { ok: boolean }[]
      >`SELECT capstan_settle_drawn(${d.l}, ${d.i}, ${d.u}::float8, ${d.u}::float8, NULL::text, ${d.h}::bigint, ${d.h}::bigint) AS ok`;
      if (rows[0]?.ok) {
        charged++;
        logger.warn("usage.draw_charged_unfinished", {
          lease_id: d.l,
          invocation_id: d.i,
          units: d.u,
          instance_id: name,
        });
      }
    }
    await releaseLeasesOf(name);
    LocalWal.remove(journalDir(), name);
  }
  // Leases whose process is gone and whose journal is not here (another host's disk).
  // platform-scoped: every workspace's leases.
  const orphans = await db().$queryRaw<{ instance_id: string }[]>`
    SELECT DISTINCT instance_id FROM budget_reservations
     WHERE id LIKE 'rsl\\_%' AND instance_id IS NOT NULL AND created_at < now() - make_interval(secs => ${LEASE_ORPHAN_MS / 1000})`;
  for (const { instance_id } of orphans) {
    if (instance_id === me || (await isInstanceAlive(instance_id))) continue;
    logger.warn("usage.leases_released_without_journal", { instance_id });
    await releaseLeasesOf(instance_id, LEASE_ORPHAN_MS);
  }
  return charged;
}

async function releaseLeasesOf(instance: string, olderThanMs = 0): Promise<void> {
  // platform-scoped: one dead process's leases.
  const rows = await db().$queryRaw<{ id: string }[]>`
    SELECT id FROM budget_reservations WHERE instance_id = ${instance} AND id LIKE 'rsl\\_%'
       AND created_at < now() - make_interval(secs => ${olderThanMs / 1000})`;
  for (const { id } of rows) await settleReservation(id, 0);
}

/** Boot recovery of every in-flight journal: dead processes' per-call reservations, then their leases. */
export async function recoverInFlight(): Promise<number> {
  return (await recoverReservations()) + (await recoverLeases());
}

/** The reservation sweeper: expired per-call reservations, dead processes' reservations and leases. */
export async function sweepInFlight(): Promise<number> {
  return (await sweepExpiredReservations()) + (await recoverLeases());
}
