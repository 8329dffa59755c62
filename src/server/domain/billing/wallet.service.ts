import type { Prisma, WalletEntry, WalletGrant } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import type { ENTRY_KINDS, TAdjustment, TGrant, TWallet, TWalletEntry } from "./billing.contract";
import { stripeConfigured } from "./stripe-gateway";
import { fromWire, microsToMinorTrunc, minorToMicros, toWire, type TCurrency } from "./money";

/**
 * The wallet (docs/decisions.md "Billing"): an append-only ledger in micros.
 * Every balance is a SUM of entries; each entry is unique by (source_kind,
 * source_id, line), so a source credits or debits once. Every write of a
 * workspace's wallet runs under one advisory lock (`lockWallet`) and first
 * posts what is due (expired grants written off, priced calls debited).
 */

type TTx = Prisma.TransactionClient;
type TCaller = { userId: string; correlationId: string };
export type TEntryKind = (typeof ENTRY_KINDS)[number];
const ZERO = BigInt(0);

export async function lockWallet(tx: TTx, workspaceId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"wallet:" + workspaceId}, 0))`;
}

export async function assertWorkspace(workspaceId: string): Promise<void> {
  const ws = await scopedDb(workspaceId).workspace.findFirst({ select: { id: true } });
  if (!ws) throw notFound(`Workspace ${workspaceId}`);
}

/** Balance per (currency, bucket): bucket = grant id, or "" for paid balance. */
async function bucketBalances(tx: TTx, workspaceId: string): Promise<Map<string, bigint>> {
  const rows = await tx.$queryRaw<{ currency: string; grant_id: string | null; total: bigint }[]>`
    SELECT currency, grant_id, coalesce(sum(amount_micros), 0)::bigint AS total
      FROM wallet_entries WHERE workspace_id = ${workspaceId} GROUP BY currency, grant_id`;
  return new Map(rows.map((r) => [`${r.currency}:${r.grant_id ?? ""}`, BigInt(r.total)]));
}

type TLine = { kind: TEntryKind; amount: bigint; grantId: string | null };

async function insertEntries(
  tx: TTx,
  workspaceId: string,
  currency: string,
  source: { kind: string; id: string },
  lines: TLine[],
  at = new Date(),
): Promise<void> {
  await tx.walletEntry.createMany({
    data: lines.map((l, line) => ({
      id: newId("led"),
      workspaceId,
      currency,
      kind: l.kind,
      amountMicros: l.amount,
      grantId: l.grantId,
      sourceKind: source.kind,
      sourceId: source.id,
      line,
      createdAt: at,
    })),
  });
}

/**
 * Debits `amount` micros: unexpired grants first (highest priority, then
 * soonest expiry, then oldest), the rest from paid balance (which may go
 * below zero: postpaid usage owed). One implementation, in SQL
 * (capstan_wallet_debit), shared with the prepaid settlement. Call under lockWallet.
 */
export async function spend(
  tx: TTx,
  workspaceId: string,
  currency: TCurrency,
  amount: bigint,
  kind: TEntryKind,
  source: { kind: string; id: string },
  now = new Date(),
): Promise<void> {
  await tx.$executeRaw`SELECT capstan_wallet_debit(${workspaceId}, ${currency}, ${amount}::bigint, ${kind}, ${source.kind}, ${source.id}, ${now}::timestamptz)`;
}

/**
 * What is due, posted under the lock: grants past their expiry have their
 * remainder written off (`expiry`, sourced by the grant), priced calls not
 * yet on the ledger are debited (`usage`, sourced by the invocation).
 */
export async function postDue(tx: TTx, workspaceId: string, now = new Date()): Promise<void> {
  await tx.$queryRaw`SELECT capstan_wallet_expire(${workspaceId}, ${now}::timestamptz) AS n`;
  const priced = await tx.$queryRaw<{ id: string; charge_micros: bigint; charge_currency: string }[]>`
    SELECT ci.id, ci.charge_micros, ci.charge_currency FROM capability_invocations ci
     WHERE ci.workspace_id = ${workspaceId} AND ci.charge_micros > 0
       AND NOT EXISTS (SELECT 1 FROM wallet_entries x WHERE x.source_kind = 'capability_invocation' AND x.source_id = ci.id AND x.line = 0)
     ORDER BY ci.requested_at, ci.id LIMIT 5000`;
  for (const c of priced) {
    await spend(
      tx,
      workspaceId,
      c.charge_currency as TCurrency,
      BigInt(c.charge_micros),
      "usage",
      { kind: "capability_invocation", id: c.id },
      now,
    );
  }
}

/**
 * Runs `fn` under the workspace's wallet lock after posting what is due. `tx`
 * is scoped to the workspace (scopedDb): platform-global rows (tiers, rate
 * cards) are read before the transaction.
 */
export async function inWallet<T>(workspaceId: string, fn: (tx: TTx) => Promise<T>): Promise<T> {
  return scopedDb(workspaceId).$transaction(
    async (tx) => {
      await lockWallet(tx, workspaceId);
      await postDue(tx, workspaceId);
      return fn(tx);
    },
    { timeout: 30_000 },
  );
}

function toGrant(g: WalletGrant, remaining: bigint, now: Date): TGrant {
  return {
    id: g.id,
    workspace_id: g.workspaceId,
    currency: g.currency as TCurrency,
    amount_micros: toWire(g.amountMicros),
    remaining_micros: toWire(remaining),
    priority: g.priority,
    expires_at: iso(g.expiresAt),
    expired: g.expiresAt <= now,
    reason: g.reason,
    created_at: iso(g.createdAt),
  };
}

export async function getWallet(workspaceId: string): Promise<TWallet> {
  return inWallet(workspaceId, async (tx) => {
    const now = new Date();
    const buckets = await bucketBalances(tx, workspaceId);
    const grants = await tx.walletGrant.findMany({
      where: { expiresAt: { gt: now } },
      orderBy: [{ priority: "desc" }, { expiresAt: "asc" }, { createdAt: "asc" }, { id: "asc" }],
    });
    const held = new Map((await tx.walletBalance.findMany()).map((b) => [b.currency, b.heldMicros]));
    const byCurrency = new Map<TCurrency, { paid: bigint; granted: bigint }>();
    for (const [key, total] of buckets) {
      const [cur, bucket] = key.split(":") as [TCurrency, string];
      const b = byCurrency.get(cur) ?? { paid: ZERO, granted: ZERO };
      if (bucket) b.granted += total;
      else b.paid += total;
      byCurrency.set(cur, b);
    }
    return {
      workspace_id: workspaceId,
      balances: [...byCurrency]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([cur, b]) => ({
          currency: cur,
          total_micros: toWire(b.paid + b.granted),
          paid_micros: toWire(b.paid),
          granted_micros: toWire(b.granted),
          total_minor: toWire(microsToMinorTrunc(b.paid + b.granted, cur)),
          held_micros: toWire(held.get(cur) ?? ZERO),
          available_micros: toWire(b.paid + b.granted - (held.get(cur) ?? ZERO)),
        })),
      grants: grants
        .map((g) => toGrant(g, buckets.get(`${g.currency}:${g.id}`) ?? ZERO, now))
        .filter((g) => g.remaining_micros > 0),
      card_payments_available: stripeConfigured(),
    };
  });
}

function toEntry(e: WalletEntry): TWalletEntry {
  return {
    id: e.id,
    workspace_id: e.workspaceId,
    kind: e.kind as TEntryKind,
    currency: e.currency as TCurrency,
    amount_micros: toWire(e.amountMicros),
    grant_id: e.grantId,
    source: { kind: e.sourceKind, id: e.sourceId, line: e.line },
    created_at: iso(e.createdAt),
  };
}

export async function listTransactions(
  workspaceId: string,
  q: TListQuery & { kind?: TEntryKind },
): Promise<TPage<TWalletEntry>> {
  await inWallet(workspaceId, () => Promise.resolve(undefined));
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).walletEntry.findMany({
    ...args,
    where: { ...args.where, ...(q.kind ? { kind: q.kind } : {}) },
  });
  return toPage(rows, q, toEntry);
}

export async function createGrant(
  caller: TCaller,
  workspaceId: string,
  input: { amount_minor: number; currency: TCurrency; priority: number; expires_at: string; reason?: string },
): Promise<TGrant> {
  await assertWorkspace(workspaceId);
  const now = new Date();
  const expiresAt = new Date(input.expires_at);
  if (expiresAt <= now) {
    throw new AppError("validation_failed", "expires_at must be in the future", {
      errors: [{ path: "/expires_at", message: "must be in the future" }],
    });
  }
  return inWallet(workspaceId, (tx) => grantIn(tx, caller, workspaceId, input, now));
}

/** Creates a grant and its ledger credit inside the caller's transaction (under lockWallet), audited billing.granted. */
export async function grantIn(
  tx: TTx,
  caller: TCaller,
  workspaceId: string,
  input: { amount_minor: number; currency: TCurrency; priority: number; expires_at: string; reason?: string },
  now = new Date(),
  system = false,
): Promise<TGrant> {
  const expiresAt = new Date(input.expires_at);
  const amount = minorToMicros(fromWire(input.amount_minor), input.currency);
  const g = await tx.walletGrant.create({
    data: {
      id: newId("gnt"),
      workspaceId,
      currency: input.currency,
      amountMicros: amount,
      priority: input.priority,
      expiresAt,
      reason: input.reason ?? null,
      createdBy: caller.userId,
      createdAt: now,
    },
  });
  await insertEntries(
    tx,
    workspaceId,
    input.currency,
    { kind: "grant", id: g.id },
    [{ kind: "grant", amount, grantId: g.id }],
    now,
  );
  await writeAudit(tx, {
    workspaceId,
    actor: system ? { kind: "system", id: null } : { kind: "user", id: caller.userId },
    action: "billing.granted",
    target: { kind: "wallet_grant", id: g.id },
    correlationId: caller.correlationId,
    details: {
      amount_minor: input.amount_minor,
      currency: input.currency,
      priority: input.priority,
      expires_at: iso(expiresAt),
      reason: input.reason ?? null,
    },
  });
  return toGrant(g, amount, now);
}

/** Credits paid balance once per source (a payment order). Call under lockWallet. */
export async function creditPaid(
  tx: TTx,
  workspaceId: string,
  currency: TCurrency,
  micros: bigint,
  source: { kind: string; id: string },
): Promise<void> {
  await insertEntries(tx, workspaceId, currency, source, [{ kind: "top_up", amount: micros, grantId: null }]);
}

/** Paid balance (micros) of one currency. Call under lockWallet. */
export async function paidBalance(tx: TTx, workspaceId: string, currency: TCurrency): Promise<bigint> {
  return (await bucketBalances(tx, workspaceId)).get(`${currency}:`) ?? ZERO;
}

export { insertEntries };

/**
 * A manual correction of paid balance by the platform (`adj_`, audit
 * billing.adjusted with the reason): an entry of its own, never an edit of
 * another entry.
 */
export async function adjust(
  caller: TCaller,
  workspaceId: string,
  input: { amount_minor: number; currency: TCurrency; reason: string },
): Promise<TAdjustment> {
  await assertWorkspace(workspaceId);
  const id = newId("adj");
  const now = new Date();
  return inWallet(workspaceId, async (tx) => {
    await insertEntries(
      tx,
      workspaceId,
      input.currency,
      { kind: "adjustment", id },
      [{ kind: "adjustment", amount: minorToMicros(fromWire(input.amount_minor), input.currency), grantId: null }],
      now,
    );
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "billing.adjusted",
      target: { kind: "adjustment", id },
      correlationId: caller.correlationId,
      details: { amount_minor: input.amount_minor, currency: input.currency, reason: input.reason },
    });
    return {
      id,
      workspace_id: workspaceId,
      currency: input.currency,
      amount_minor: input.amount_minor,
      reason: input.reason,
      created_at: iso(now),
    };
  });
}
