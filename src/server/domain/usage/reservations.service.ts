import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { utcMonth } from "@/server/platform/time";
import { budgetId, ensureMonthBudgets } from "./budget.service";
import type { TUsageCategory } from "./usage.contract";

/**
 * Budget reservations that cannot overspend: each is ONE statement that
 * raises reserved_units only if used + reserved + units stays within the
 * limit, and records the reservation in the same statement. Settlement moves
 * the reservation to used_units (actual usage); the sweeper releases the
 * reservations of calls that died. No read-then-write anywhere.
 */
export const RESERVATION_TTL_MS = 5 * 60_000;

const ensured = new Map<string, true>();

async function ensureBudgetRow(workspaceId: string, month: string): Promise<void> {
  const key = `${workspaceId}:${month}`;
  if (ensured.has(key)) return;
  await ensureMonthBudgets(workspaceId, month);
  ensured.set(key, true);
}

export type TReservation = { id: string; budgetId: string; units: number };

/** Reserves `units` of this month's category budget; null when the budget would be exceeded. */
export async function reserveBudget(
  workspaceId: string,
  category: TUsageCategory,
  units: number,
  opts: { bindingId?: string } = {},
): Promise<TReservation | null> {
  const month = utcMonth();
  await ensureBudgetRow(workspaceId, month);
  const id = budgetId(workspaceId, category, month);
  const rid = newId("rsv");
  const expiresAt = new Date(Date.now() + RESERVATION_TTL_MS);
  const rows = await db().$queryRaw<{ id: string }[]>`
    WITH b AS (
      UPDATE budgets SET reserved_units = reserved_units + ${units}, updated_at = now()
       WHERE id = ${id} AND (limit_units IS NULL OR used_units + reserved_units + ${units} <= limit_units)
      RETURNING id)
    INSERT INTO budget_reservations (id, budget_id, binding_id, units, expires_at)
    SELECT ${rid}, b.id, ${opts.bindingId ?? null}, ${units}, ${expiresAt} FROM b
    RETURNING id`;
  return rows.length ? { id: rid, budgetId: id, units } : null;
}

/** Moves a reservation to actual usage (0 releases it). A reservation already swept is a no-op. */
export async function settleReservation(reservationId: string, actualUnits: number): Promise<void> {
  await db().$executeRaw`
    WITH r AS (DELETE FROM budget_reservations WHERE id = ${reservationId} RETURNING budget_id, units)
    UPDATE budgets b
       SET reserved_units = GREATEST(b.reserved_units - r.units, 0), used_units = b.used_units + ${actualUnits}, updated_at = now()
      FROM r WHERE b.id = r.budget_id`;
}

/** Releases reservations whose call died (expired); returns how many. */
export async function sweepExpiredReservations(): Promise<number> {
  const rows = await db().$queryRaw<{ n: bigint }[]>`
    WITH r AS (DELETE FROM budget_reservations WHERE expires_at < now() RETURNING budget_id, units),
         s AS (SELECT budget_id, sum(units) AS units, count(*) AS n FROM r GROUP BY budget_id),
         u AS (UPDATE budgets b SET reserved_units = GREATEST(b.reserved_units - s.units, 0), updated_at = now()
                 FROM s WHERE b.id = s.budget_id RETURNING s.n)
    SELECT coalesce(sum(n), 0)::bigint AS n FROM u`;
  return Number(rows[0]?.n ?? 0);
}
