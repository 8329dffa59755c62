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

export type TReservation = { id: string; budgetId: string; units: number; bindingId: string | null };

/**
 * Reserves `units` of this month's category budget and, when `bindingIds` are
 * given, of the first of those bindings whose own token budget fits, in ONE
 * statement (the capstan_reserve function: one round trip, one transaction).
 * Null when the month budget or every candidate binding would be exceeded.
 */
export async function reserveBudget(
  workspaceId: string,
  category: TUsageCategory,
  units: number,
  opts: { bindingIds?: string[] } = {},
): Promise<TReservation | null> {
  const month = utcMonth();
  await ensureBudgetRow(workspaceId, month);
  const id = budgetId(workspaceId, category, month);
  const rid = newId("rsv");
  const expiresAt = new Date(Date.now() + RESERVATION_TTL_MS);
  const rows = await db().$queryRaw<{ binding: string | null }[]>`
    SELECT capstan_reserve(${rid}, ${id}, ${units}::float8, ${opts.bindingIds ?? []}::text[], ${expiresAt}::timestamptz) AS binding`;
  const binding = rows[0]?.binding;
  if (binding === null || binding === undefined) return null;
  return { id: rid, budgetId: id, units, bindingId: binding || null };
}

/**
 * Moves a reservation to actual usage (0 releases it), on the month budget and
 * on the binding it held (the usage is charged to `usedBindingId` when a
 * fallback served the call). A reservation already swept is a no-op. One
 * statement (capstan_settle), locking in the same order as the reservation.
 */
export async function settleReservation(reservationId: string, actualUnits: number, usedBindingId?: string | null): Promise<void> {
  await db().$queryRaw`SELECT capstan_settle(${reservationId}, ${actualUnits}::float8, ${usedBindingId ?? null}::text) AS settled`;
}

/**
 * Releases reservations whose call died (expired); returns how many. One
 * statement per reservation, so the sweeper never holds several budgets'
 * locks at once (which could deadlock against live reservations).
 */
export async function sweepExpiredReservations(): Promise<number> {
  let released = 0;
  for (;;) {
    const expired = await db().$queryRaw<{ id: string }[]>`
      SELECT id FROM budget_reservations WHERE expires_at < now() ORDER BY expires_at LIMIT 500`;
    for (const { id } of expired) {
      const rows = await db().$queryRaw<{ settled: boolean }[]>`SELECT capstan_settle(${id}, 0::float8, NULL::text) AS settled`;
      if (rows[0]?.settled) released++;
    }
    if (expired.length < 500) return released;
  }
}
