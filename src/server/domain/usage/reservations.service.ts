import { db, preparedQuery } from "@/server/platform/db/client";
import { instanceId, isInstanceAlive } from "@/server/platform/db/instance";
import { logger } from "@/server/platform/logger";
import { newId } from "@/server/platform/ids";
import { utcMonth } from "@/server/platform/time";
import { GroupCommit } from "@/server/platform/group-commit";
import { budgetId, ensureMonthBudgets } from "./budget.service";
import type { TUsageCategory } from "./usage.contract";

/**
 * Budget reservations that cannot overspend: each is ONE statement that
 * raises reserved_units only if used + reserved + units stays within the
 * limit, and records the reservation in the same statement. Settlement moves
 * the reservation to used_units (actual usage). No read-then-write anywhere.
 *
 * The reservation is also the call's durable in-flight journal: it is
 * committed before the provider is called and names the process holding it
 * (instance_id) and the call (invocation_id). A call that completes settles
 * it in the same statement as its record (src/server/bridge/record.ts). One
 * left behind by a process that died may have reached the provider, so
 * recovery (`recoverReservations`, at boot and in the sweeper) and the TTL
 * sweeper charge it the reserved amount, never zero.
 */
export const RESERVATION_TTL_MS = 5 * 60_000;

/*
 * Tenancy: ensureMonthBudgets runs on scopedDb(ws). The reserve and settle
 * statements stay raw SQL on the hot pool (the Bridge's one round trip): the
 * budget id they name is the workspace's own (budgetId(ws, ...)), and a
 * settlement names a reservation the same call made. The sweeper and recovery
 * below are platform-scoped by design (they scan every workspace's reservations).
 */
const ensured = new Map<string, true>();

async function ensureBudgetRow(workspaceId: string, month: string): Promise<void> {
  const key = `${workspaceId}:${month}`;
  if (ensured.has(key)) return;
  await ensureMonthBudgets(workspaceId, month);
  ensured.set(key, true);
}

export type TReservation = { id: string; budgetId: string; units: number; bindingId: string | null };
/** A prepaid workspace's wallet hold, taken in the reservation's own statement (docs/decisions.md "Prepaid, Stripe, renewal"). */
export type THold = { currency: string; micros: bigint };
export type TReserveResult = { ok: true; reservation: TReservation } | { ok: false; why: "budget" | "wallet" };

/**
 * Reserves `units` of this month's category budget and, when `bindingIds` are
 * given, of the first of those bindings whose own token budget fits, in ONE
 * statement (capstan_reserve: one round trip, one transaction). Null when the
 * month budget or every candidate binding would be exceeded.
 *
 * Group commit: while one reservation statement is in flight, the ones that
 * arrive queue up and go together in the next (capstan_reserve_batch), so a
 * hot budget row is locked once per batch instead of once per call. Alone, a
 * call goes at once: batching never adds a wait.
 */
export async function reserveBudget(
  workspaceId: string,
  category: TUsageCategory,
  units: number,
  opts: { bindingIds?: string[]; invocationId?: string; hold?: THold | null } = {},
): Promise<TReservation | null> {
  const r = await reserveUsage(workspaceId, category, units, opts);
  return r.ok ? r.reservation : null;
}

/**
 * reserveBudget that says why it refused: the month/binding budget, or (with
 * `hold`, a prepaid workspace) the wallet, whose available balance (balance
 * minus holds in flight) must cover the hold and be above zero. The hold is
 * taken in the same statement as the budget reservation, or nothing is.
 */
export async function reserveUsage(
  workspaceId: string,
  category: TUsageCategory,
  units: number,
  opts: { bindingIds?: string[]; invocationId?: string; hold?: THold | null; lease?: boolean } = {},
): Promise<TReserveResult> {
  const month = utcMonth();
  await ensureBudgetRow(workspaceId, month);
  const item: TReserveItem = {
    // A lease (leases.service.ts) is a reservation for several calls: `rsl_`, no invocation of its own.
    id: newId(opts.lease ? "rsl" : "rsv"),
    budgetId: budgetId(workspaceId, category, month),
    units,
    bindingIds: opts.bindingIds ?? [],
    expiresAt: new Date(Date.now() + RESERVATION_TTL_MS),
    invocationId: opts.invocationId ?? "",
    hold: opts.hold ?? null,
  };
  const binding = await reserveQueue.add(item);
  if (binding === null) return { ok: false, why: "budget" };
  if (binding === "!wallet") return { ok: false, why: "wallet" };
  return { ok: true, reservation: { id: item.id, budgetId: item.budgetId, units, bindingId: binding || null } };
}

/**
 * Moves a reservation to actual usage (0 releases it), on the month budget and
 * on the binding it held (the usage is charged to `usedBindingId` when a
 * fallback served the call). A reservation already swept is a no-op. A
 * wallet hold is released and `chargeMicros` (the call's price) debited. One
 * statement (capstan_settle), locking in the same order as the reservation;
 * group-committed like reservations.
 */
export async function settleReservation(
  reservationId: string,
  actualUnits: number,
  usedBindingId?: string | null,
  chargeMicros?: bigint | null,
): Promise<void> {
  await settleQueue.add({
    id: reservationId,
    actual: actualUnits,
    usedBindingId: usedBindingId ?? null,
    charge: chargeMicros ?? null,
  });
}

type TReserveItem = {
  id: string;
  budgetId: string;
  units: number;
  bindingIds: string[];
  expiresAt: Date;
  invocationId: string;
  hold: THold | null;
};
type TSettleItem = { id: string; actual: number; usedBindingId: string | null; charge: bigint | null };

const reserveQueue = new GroupCommit<TReserveItem, string | null>(async (items) => {
  // Sorted by budget id: every batch locks budget rows in one global order.
  const order = items
    .map((_, i) => i)
    .sort((x, y) =>
      items[x]!.budgetId < items[y]!.budgetId ? -1 : items[x]!.budgetId > items[y]!.budgetId ? 1 : x - y,
    );
  const sorted = order.map((i) => items[i]!);
  const expires = sorted.reduce((max, r) => (r.expiresAt > max ? r.expiresAt : max), sorted[0]!.expiresAt);
  // A named statement: parsed and planned once per hot connection (the text never changes).
  const rows = await preparedQuery<{ r: (string | null)[] }>(
    "capstan_reserve_batch",
    "SELECT capstan_reserve_batch($1::text[], $2::text[], $3::float8[], $4::text[], $5::timestamptz, $6::text, $7::text[], $8::text[], $9::bigint[]) AS r",
    [
      sorted.map((r) => r.id),
      sorted.map((r) => r.budgetId),
      sorted.map((r) => r.units),
      sorted.map((r) => r.bindingIds.join(",")),
      expires,
      await instanceId(),
      sorted.map((r) => r.invocationId),
      sorted.map((r) => r.hold?.currency ?? ""),
      sorted.map((r) => (r.hold ? r.hold.micros.toString() : "0")),
    ],
  );
  const out = new Array<string | null>(items.length);
  order.forEach((orig, k) => (out[orig] = rows[0]!.r[k] ?? null));
  return out;
});

const settleQueue = new GroupCommit<TSettleItem, void>(async (items) => {
  await preparedQuery(
    "capstan_settle_batch",
    "SELECT capstan_settle_batch($1::text[], $2::float8[], $3::text[], $4::bigint[]) AS n",
    [
      items.map((s) => s.id),
      items.map((s) => s.actual),
      items.map((s) => s.usedBindingId),
      items.map((s) => (s.charge === null ? null : s.charge.toString())),
    ],
  );
  return items.map(() => undefined);
});

/**
 * Charges reservations whose call died unfinished (expired: the TTL is far
 * beyond any call's deadline) at their reserved amount: the call may have
 * reached the provider, so it is never released for free. Returns how many.
 * One statement per reservation, so the sweeper never holds several budgets'
 * locks at once (which could deadlock against live reservations).
 */
export async function sweepExpiredReservations(): Promise<number> {
  let charged = 0;
  for (;;) {
    // platform-scoped: the reservation sweeper spans every workspace.
    // Leases (`rsl_`) are recovered by leases.service.ts from their process's journal, never charged whole.
    const expired = await db().$queryRaw<{ id: string }[]>`
      SELECT id FROM budget_reservations WHERE expires_at < now() AND id NOT LIKE 'rsl\\_%' ORDER BY expires_at LIMIT 500`;
    for (const { id } of expired) if (await chargeReserved(id, "expired")) charged++;
    if (expired.length < 500) return charged + (await recoverReservations());
  }
}

/**
 * Recovery of the in-flight journal: every reservation held by a server
 * process that is gone (its instance lock is free) is charged its reserved
 * amount (on the month budget and the binding that held it). Runs at boot,
 * before serving, and in the reservation sweeper. Returns how many.
 */
export async function recoverReservations(): Promise<number> {
  let charged = 0;
  // platform-scoped: boot recovery spans every workspace's reservations.
  const instances = await db().$queryRaw<{ instance_id: string }[]>`
    SELECT DISTINCT instance_id FROM budget_reservations WHERE instance_id IS NOT NULL AND id NOT LIKE 'rsl\\_%'`;
  for (const { instance_id } of instances) {
    if (await isInstanceAlive(instance_id)) continue;
    // platform-scoped: reservations of a gone process, any workspace.
    const rows = await db().$queryRaw<
      { id: string }[]
    >`SELECT id FROM budget_reservations WHERE instance_id = ${instance_id} AND id NOT LIKE 'rsl\\_%'`;
    for (const { id } of rows) if (await chargeReserved(id, "instance_gone")) charged++;
  }
  return charged;
}

async function chargeReserved(id: string, why: "expired" | "instance_gone"): Promise<boolean> {
  // A held wallet amount is charged too (the call may have used it all).
  // platform-scoped: one reservation by id, for the sweepers above.
  const rows = await db().$queryRaw<{ settled: boolean; units: number | null; invocation_id: string | null }[]>`
    WITH r AS (SELECT units, invocation_id, hold_micros FROM budget_reservations WHERE id = ${id})
    SELECT capstan_settle(${id}, coalesce((SELECT units FROM r), 0)::float8, NULL::text, (SELECT hold_micros FROM r)) AS settled,
           (SELECT units FROM r) AS units, (SELECT invocation_id FROM r) AS invocation_id`;
  const row = rows[0];
  if (!row?.settled) return false;
  logger.warn("usage.reservation_charged_unfinished", {
    reservation_id: id,
    invocation_id: row.invocation_id,
    units: row.units,
    why,
  });
  return true;
}
