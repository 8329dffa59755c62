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
    INSERT INTO budget_reservations (id, budget_id, units, expires_at)
    SELECT ${rid}, b.id, ${units}, ${expiresAt} FROM b
    RETURNING id`;
  if (!rows.length) return null;
  if (opts.bindingId) {
    // The binding's own token budget, in a second statement: the reservation row
    // names the binding only once that succeeded, so settle and sweep release
    // exactly what was taken.
    const held = await db().$queryRaw<{ id: string }[]>`
      WITH bb AS (
        UPDATE provider_bindings SET reserved_units = reserved_units + ${units}, updated_at = now()
         WHERE id = ${opts.bindingId} AND used_units + reserved_units + ${units} <= budget_units
        RETURNING id)
      UPDATE budget_reservations r SET binding_id = bb.id FROM bb WHERE r.id = ${rid}
      RETURNING r.id`;
    if (!held.length) {
      await settleReservation(rid, 0);
      return null;
    }
  }
  return { id: rid, budgetId: id, units };
}

/**
 * Moves a reservation to actual usage (0 releases it), on the month budget and
 * on the binding it held (the usage is charged to `usedBindingId` when a
 * fallback served the call). A reservation already swept is a no-op.
 */
export async function settleReservation(reservationId: string, actualUnits: number, usedBindingId?: string | null): Promise<void> {
  await db().$executeRaw`
    WITH r AS (DELETE FROM budget_reservations WHERE id = ${reservationId} RETURNING budget_id, binding_id, units),
         b AS (UPDATE budgets b
                  SET reserved_units = GREATEST(b.reserved_units - r.units, 0), used_units = b.used_units + ${actualUnits}, updated_at = now()
                 FROM r WHERE b.id = r.budget_id RETURNING b.id),
         r2 AS (SELECT * FROM r WHERE r.binding_id IS NOT NULL)
    -- One UPDATE per binding row (a row may be both the reserved and the used binding):
    -- PostgreSQL applies only one modification per row and statement.
    UPDATE provider_bindings p
       SET reserved_units = CASE WHEN p.id = r2.binding_id THEN GREATEST(p.reserved_units - r2.units, 0) ELSE p.reserved_units END,
           used_units = CASE WHEN p.id = COALESCE(${usedBindingId ?? null}::text, r2.binding_id) THEN p.used_units + ${actualUnits} ELSE p.used_units END,
           updated_at = now()
      FROM r2 WHERE p.id IN (r2.binding_id, COALESCE(${usedBindingId ?? null}::text, r2.binding_id))`;
}

/** Releases reservations whose call died (expired); returns how many. */
export async function sweepExpiredReservations(): Promise<number> {
  const rows = await db().$queryRaw<{ n: bigint }[]>`
    WITH r AS (DELETE FROM budget_reservations WHERE expires_at < now() RETURNING budget_id, binding_id, units),
         s AS (SELECT budget_id, sum(units) AS units, count(*) AS n FROM r GROUP BY budget_id),
         sb AS (SELECT binding_id, sum(units) AS units FROM r WHERE binding_id IS NOT NULL GROUP BY binding_id),
         ub AS (UPDATE provider_bindings p SET reserved_units = GREATEST(p.reserved_units - sb.units, 0), updated_at = now()
                 FROM sb WHERE p.id = sb.binding_id RETURNING p.id),
         u AS (UPDATE budgets b SET reserved_units = GREATEST(b.reserved_units - s.units, 0), updated_at = now()
                 FROM s WHERE b.id = s.budget_id RETURNING s.n)
    SELECT coalesce(sum(n), 0)::bigint AS n FROM u`;
  return Number(rows[0]?.n ?? 0);
}
