import { preparedQuery } from "@/server/platform/db/client";
import { instanceId } from "@/server/platform/db/instance";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { LocalWal, type TAppended } from "@/server/platform/wal";
import { journalDir } from "./lease-recovery.service";
import { reserveUsage, settleReservation, type THold, type TReservation } from "./reservations.service";
import type { TUsageCategory } from "./usage.contract";

/**
 * Budget leases: one durable commit per priced Bridge call (docs/decisions.md
 * "One commit per priced call").
 *
 * A per-call reservation is a commit before the provider is called, and the
 * call's record is a second. Here a process reserves a lease (an `rsl_`
 * budget reservation of LEASE_CALLS calls' worth, in the same statement and
 * under the same limits as any reservation: month budget, binding token
 * budget, prepaid wallet), and each call draws its own reservation from the
 * lease in memory. The draw is written to the process's local write-ahead
 * journal (platform/wal.ts: one write(2), no database round trip) before the
 * provider is called (synced to disk if the call is still in flight
 * WAL_SYNC_DELAY_MS later), and the call's record settles the draw in
 * its own statement (capstan_settle_drawn: drawn units leave the lease and the
 * reserved units, actual units are used). The invariants, the worst case after
 * a crash and the tests that prove them: docs/decisions.md.
 * A lease that cannot be had (the budget's headroom is under a lease) falls
 * back to the exact per-call reservation, so the calls that fit near a limit
 * are exactly those a per-call reservation would admit.
 */
export const LEASE_CALLS = 16;
/**
 * A lease with no call in flight and none drawn or finished for this long is returned (its headroom back to
 * everyone). Calls in flight keep it: a lease retired under them would be returned the moment they finish,
 * and the next call would pay for a new take.
 */
export const LEASE_IDLE_MS = 1_000;
export { journalDir, LEASE_ORPHAN_MS, recoverInFlight, recoverLeases, sweepInFlight } from "./lease-recovery.service";

type TLease = {
  id: string;
  key: string;
  instance: string;
  bindingId: string | null;
  units: number;
  hold: bigint;
  inflight: number;
  /** The last draw, or the last call that finished. */
  lastUsedAt: number;
  /** No more draws: returned to the budget once `inflight` is 0. */
  retired: boolean;
  /** The key's next lease was asked for (once) while this one was active. */
  spareAsked: boolean;
};

export type TDraw = {
  kind: "draw";
  leaseId: string;
  invocationId: string;
  bindingId: string | null;
  units: number;
  hold: bigint;
  /** The draw's journal line, released once the call is recorded or settled, into the journal it was written to. */
  line: TAppended;
  log: LocalWal;
};
export type TTicket = { kind: "reservation"; reservation: TReservation } | TDraw;
export type TAdmitResult = { ok: true; ticket: TTicket } | { ok: false; why: "budget" | "wallet" };

/** The lease calls draw from, per (workspace, category, bindings, currency). */
const active = new Map<string, TLease>();
/** Every lease this process holds (active or retired with calls in flight), by id. */
const held = new Map<string, TLease>();
const taking = new Map<string, Promise<TLease | null>>();
/** The key's next lease, taken while the active one still had calls left (at most one per key). */
const spares = new Map<string, TLease>();
let wal: { name: string; log: LocalWal } | null = null;
let timer: NodeJS.Timeout | null = null;

async function journal(): Promise<LocalWal> {
  const name = await instanceId();
  if (!wal || wal.name !== name) wal = { name, log: new LocalWal(journalDir(), name) };
  return wal.log;
}

/**
 * Admits `units` of `category` for call `invocationId`: a draw from this
 * process's lease (journaled: written before it returns, synced if still in flight after
 * WAL_SYNC_DELAY_MS) or, when no lease
 * can be had, a per-call reservation. Refused as a reservation would be.
 */
export async function admitUsage(
  workspaceId: string,
  category: TUsageCategory,
  units: number,
  opts: { bindingIds: string[]; invocationId: string; hold: THold | null },
): Promise<TAdmitResult> {
  if (env().CAPSTAN_BUDGET_LEASES) {
    const key = `${workspaceId}|${category}|${opts.bindingIds.join(",")}|${opts.hold?.currency ?? ""}`;
    const hold = opts.hold?.micros ?? 0n;
    const lease = await drawFromLease(key, workspaceId, category, units, hold, opts);
    if (lease) return { ok: true, ticket: await journalDraw(lease, units, hold, opts.invocationId) };
  }
  const r = await reserveUsage(workspaceId, category, units, opts);
  return r.ok ? { ok: true, ticket: { kind: "reservation", reservation: r.reservation } } : r;
}

/**
 * Takes `units` (and `hold`) out of the key's lease, taking a new lease when
 * the current one cannot cover them; null when no lease can be had. The check
 * and the decrement happen with no await between them, so concurrent calls
 * never draw the same units twice.
 */
async function drawFromLease(
  key: string,
  workspaceId: string,
  category: TUsageCategory,
  units: number,
  hold: bigint,
  opts: { bindingIds: string[]; hold: THold | null },
): Promise<TLease | null> {
  // Every caller waits for the key's one lease take and draws from what it got; only a take the budget
  // refuses sends callers to the per-call reservation. A caller never gives up on a lease that was taken
  // (a bounded number of attempts let callers fall back while a lease's headroom was still in flight,
  // leaving it unused and refusing calls that fit: found by the 200-call budget tests under load).
  // Progress: each successful take serves LEASE_CALLS callers.
  // The next lease is taken ahead (a spare) once the active one is half drawn, so a busy key's callers do
  // not all wait for a take when it runs out; the active one is still drawn until it cannot cover a call.
  for (;;) {
    // Read each round: a process whose instance lock was lost takes a new id, and its old leases are recovered.
    const me = await instanceId();
    const cur = active.get(key);
    if (cur && usable(cur, me, units, hold)) {
      if (!cur.spareAsked && cur.units < (units * LEASE_CALLS) / 2 && !taking.has(key) && !spares.has(key)) {
        cur.spareAsked = true; // one attempt per lease: near a limit the spare is refused, and that must not cost a round trip per call
        const p = take(key, workspaceId, category, units, hold, opts, true).finally(() => taking.delete(key));
        taking.set(key, p);
        p.catch(() => undefined);
      }
      return take1(cur, units, hold);
    }
    const spare = spares.get(key);
    if (spare) {
      spares.delete(key);
      if (cur) retire(cur);
      active.set(key, spare);
      continue;
    }
    if (cur) retire(cur);
    let pending = taking.get(key);
    if (!pending) {
      pending = take(key, workspaceId, category, units, hold, opts, false).finally(() => taking.delete(key));
      taking.set(key, pending);
    }
    // Drawn from on the next round (as the active lease, or the spare made active), so it asks for its own spare too.
    if (!(await pending)) return null;
  }
}

function take1(lease: TLease, units: number, hold: bigint): TLease {
  lease.units -= units;
  lease.hold -= hold;
  lease.inflight++;
  lease.lastUsedAt = Date.now();
  return lease;
}

/**
 * A lease is drawn from until it cannot cover the call (a busy process uses
 * up what it reserved; retiring it earlier would hold its remainder reserved
 * while new calls are refused). Only idleness returns a lease with units left.
 */
function usable(l: TLease, me: string, units: number, hold: bigint): boolean {
  return l.instance === me && l.units >= units && l.hold >= hold;
}

async function take(
  key: string,
  workspaceId: string,
  category: TUsageCategory,
  units: number,
  hold: bigint,
  opts: { bindingIds: string[]; hold: THold | null },
  asSpare: boolean,
): Promise<TLease | null> {
  const instance = await instanceId();
  const r = await reserveUsage(workspaceId, category, units * LEASE_CALLS, {
    bindingIds: opts.bindingIds,
    lease: true,
    hold: opts.hold ? { currency: opts.hold.currency, micros: hold * BigInt(LEASE_CALLS) } : null,
  });
  if (!r.ok) return null;
  const now = Date.now();
  const lease: TLease = {
    id: r.reservation.id,
    key,
    instance,
    bindingId: r.reservation.bindingId,
    units: units * LEASE_CALLS,
    hold: hold * BigInt(LEASE_CALLS),
    inflight: 0,
    lastUsedAt: now,
    retired: false,
    spareAsked: false,
  };
  held.set(lease.id, lease);
  startTimer();
  if (asSpare) {
    spares.set(key, lease);
    return lease;
  }
  const old = active.get(key);
  if (old) retire(old);
  active.set(key, lease);
  startTimer();
  return lease;
}

/**
 * Journals a draw: written (it survives kill -9) before it returns, so before the provider call; on disk
 * (fdatasync) once the call has been in flight for WAL_SYNC_DELAY_MS, unless its record committed first.
 */
async function journalDraw(lease: TLease, units: number, hold: bigint, invocationId: string): Promise<TDraw> {
  try {
    const log = await journal();
    const line = log.append({ l: lease.id, i: invocationId, u: units, h: hold.toString() });
    return { kind: "draw", leaseId: lease.id, invocationId, bindingId: lease.bindingId, units, hold, line, log };
  } catch (err) {
    // Not journaled, so not admitted: the drawn amount goes back to the lease.
    lease.units += units;
    lease.hold += hold;
    done(lease);
    throw err;
  }
}

/** The call's record committed (or it failed and was settled another way): the draw leaves the journal. */
export function finishDraw(d: TDraw): void {
  // Its own journal: a new instance id (PostgreSQL restarted) opens a new one while calls are in flight.
  d.log.release(d.line);
  const lease = held.get(d.leaseId);
  if (lease) done(lease);
}

function done(lease: TLease): void {
  lease.inflight--;
  lease.lastUsedAt = Date.now();
  if (lease.inflight <= 0 && lease.retired) void giveBack(lease);
}

/** No more draws from `lease`; returned once its calls settled. */
function retire(lease: TLease): void {
  if (active.get(lease.key) === lease) active.delete(lease.key);
  if (spares.get(lease.key) === lease) spares.delete(lease.key);
  lease.retired = true;
  if (lease.inflight <= 0) void giveBack(lease);
}

/** Returns in progress (returnLeases waits for them too). */
const returning = new Set<Promise<void>>();

function giveBack(lease: TLease): Promise<void> {
  if (!held.delete(lease.id)) return Promise.resolve();
  // capstan_settle at 0: the lease's remaining units, binding units and wallet hold are released.
  const p = settleReservation(lease.id, 0)
    .catch((err: unknown) => logger.warn("usage.lease_return_failed", { lease_id: lease.id, error: String(err) }))
    .finally(() => returning.delete(p));
  returning.add(p);
  return p;
}

/**
 * A settlement outside the record's statement (the record failed, or an
 * unexpected error ended the call): one capstan_settle_drawn.
 */
export async function settleDrawn(
  d: TDraw,
  actual: number,
  usedBindingId: string | null,
  chargeMicros: bigint | null,
): Promise<void> {
  await preparedQuery(
    "capstan_settle_drawn",
    "SELECT capstan_settle_drawn($1, $2, $3::float8, $4::float8, $5, $6::bigint, $7::bigint) AS ok",
    [
      d.leaseId,
      d.invocationId,
      d.units,
      actual,
      usedBindingId,
      d.hold.toString(),
      chargeMicros === null ? null : chargeMicros.toString(),
    ],
  );
}

function startTimer(): void {
  if (timer) return;
  timer = setInterval(() => {
    const now = Date.now();
    for (const l of [...active.values(), ...spares.values()]) {
      if (l.inflight <= 0 && now - l.lastUsedAt >= LEASE_IDLE_MS) retire(l);
    }
    if (!held.size && timer) {
      clearInterval(timer);
      timer = null;
    }
  }, 250);
  timer.unref();
}

/** Graceful stop, after the records were flushed: every lease back, then the journal's files go. */
export async function returnLeases(): Promise<void> {
  for (const l of [...active.values(), ...spares.values()]) retire(l);
  const deadline = Date.now() + 5_000;
  while (held.size && Date.now() < deadline) {
    for (const l of [...held.values()]) if (l.inflight <= 0) await giveBack(l);
    if (held.size) await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all([...returning]);
  if (wal && wal.log.pending() === 0) {
    const closing = wal.log;
    wal = null;
    await closing.close();
  }
}

/** The binding a ticket reserved on (a lease's, or the per-call reservation's). */
export function ticketBinding(t: TTicket): string | null {
  return t.kind === "draw" ? t.bindingId : t.reservation.bindingId;
}

/** Settles a ticket outside the record's statement (the record failed, or the call ended unexpectedly). */
export async function settleTicket(
  t: TTicket,
  actual: number,
  usedBindingId: string | null,
  chargeMicros: bigint | null,
): Promise<void> {
  if (t.kind === "draw") await settleDrawn(t, actual, usedBindingId, chargeMicros);
  else await settleReservation(t.reservation.id, actual, usedBindingId, chargeMicros);
}

/** The call is over (recorded or settled): a draw leaves the journal and its lease. */
export function finishTicket(t: TTicket | null): void {
  if (t?.kind === "draw") finishDraw(t);
}
