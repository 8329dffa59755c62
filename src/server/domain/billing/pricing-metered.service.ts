import type { Prisma } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { divRoundHalfUp, toWire, type TCurrency } from "./money";

/**
 * Every metered category priced (issue #36 item 8; docs/decisions.md
 * "Credit notes, subscriptions that end, metered pricing"). The platform's own cards
 * `capstan/runtime` (micros per CPU-second), `capstan/storage` (micros per
 * GB-month) and `capstan/email` (micros per message) are rate card versions
 * like any other (immutable, effective-dated). At month close each category
 * becomes invoice lines, one per card version, from the figures metered today:
 * runtime = the CPU time each execution's cgroup measured (`execution.usage
 * .cpu_ms`; wall time where the runner could not measure), priced by the card
 * in force at the invocation's start; email = completed `email.send` calls,
 * by the card at the call's start; storage = the daily measurement (bytes,
 * the previous day's carried over a day nobody measured), each day priced by
 * the card in force at its start as 1/days-in-month of a GB-month. Each
 * line's amount is exact in integers and rounded once, half up, to micros.
 */

export const METERED_PROVIDER = "capstan";
export const METERED_MODELS = ["runtime", "storage", "email"] as const;
export type TMeteredCategory = (typeof METERED_MODELS)[number];
const PRICE_UNIT: Record<TMeteredCategory, string> = { runtime: "cpu_second", storage: "gb_month", email: "message" };
const QUANTITY_UNIT: Record<TMeteredCategory, string> = { runtime: "cpu_ms", storage: "byte_days", email: "messages" };

export type TMeteredLine = {
  kind: "metered";
  category: TMeteredCategory;
  currency: TCurrency;
  rate_card_version_id: string;
  /** What was measured, in `unit` (cpu_ms, byte_days, messages): an integer. */
  quantity: number;
  unit: string;
  /** The card's price in micros per `price_unit` (cpu_second, gb_month, message). */
  unit_price_micros: number;
  price_unit: string;
  /** How many items were measured (executions, days, messages), and of the executions how many only by wall time. */
  items: number;
  estimated_items?: number;
  days_in_month?: number;
  amount_micros: number;
};

type TTx = Prisma.TransactionClient;
type TCardRow = { id: string; currency: string; price: bigint; effective_from: Date };

function line(
  category: TMeteredCategory,
  card: { id: string; currency: string; price: bigint },
  quantity: bigint,
  amount: bigint,
  extra: Partial<TMeteredLine>,
): TMeteredLine {
  return {
    kind: "metered",
    category,
    currency: card.currency as TCurrency,
    rate_card_version_id: card.id,
    quantity: toWire(quantity),
    unit: QUANTITY_UNIT[category],
    unit_price_micros: toWire(card.price),
    price_unit: PRICE_UNIT[category],
    items: 0,
    ...extra,
    amount_micros: toWire(amount),
  };
}

/** Runtime and email of the month, grouped by the card version in force at each one's start (raw SQL names the workspace). */
async function perCallLines(tx: TTx, workspaceId: string, start: Date, end: Date): Promise<TMeteredLine[]> {
  const runtime = await tx.$queryRaw<
    { id: string; currency: string; price: bigint; n: number; estimated: number; cpu_ms: bigint }[]
  >`
    SELECT v.id, v.currency, v.per_cpu_second AS price, count(*)::int AS n,
           count(*) FILTER (WHERE i.execution->'usage'->>'cpu_ms' IS NULL)::int AS estimated,
           coalesce(sum(coalesce((i.execution->'usage'->>'cpu_ms')::bigint, (i.execution->'usage'->>'duration_ms')::bigint)), 0)::bigint AS cpu_ms
      FROM invocations i
      CROSS JOIN LATERAL (SELECT id, currency, per_cpu_second, effective_from FROM rate_card_versions
                           WHERE provider = ${METERED_PROVIDER} AND model = 'runtime' AND effective_from <= i.created_at
                           ORDER BY effective_from DESC LIMIT 1) v
     WHERE i.workspace_id = ${workspaceId} AND i.execution IS NOT NULL AND i.created_at >= ${start} AND i.created_at < ${end}
     GROUP BY v.id, v.currency, v.per_cpu_second ORDER BY v.id`;
  const email = await tx.$queryRaw<{ id: string; currency: string; price: bigint; n: number }[]>`
    SELECT v.id, v.currency, v.per_message AS price, count(*)::int AS n
      FROM capability_invocations ci
      CROSS JOIN LATERAL (SELECT id, currency, per_message, effective_from FROM rate_card_versions
                           WHERE provider = ${METERED_PROVIDER} AND model = 'email' AND effective_from <= ci.requested_at
                           ORDER BY effective_from DESC LIMIT 1) v
     WHERE ci.workspace_id = ${workspaceId} AND ci.capability = 'email.send' AND ci.outcome = 'completed'
       AND ci.requested_at >= ${start} AND ci.requested_at < ${end}
     GROUP BY v.id, v.currency, v.per_message ORDER BY v.id`;
  return [
    // CPU milliseconds × micros per CPU-second / 1000, rounded once.
    ...runtime
      .filter((r) => BigInt(r.cpu_ms) > BigInt(0))
      .map((r) =>
        line("runtime", r, BigInt(r.cpu_ms), divRoundHalfUp(BigInt(r.cpu_ms) * BigInt(r.price), BigInt(1000)), {
          items: r.n,
          estimated_items: r.estimated,
        }),
      ),
    ...email.map((r) => line("email", r, BigInt(r.n), BigInt(r.n) * BigInt(r.price), { items: r.n })),
  ];
}

/** Storage of the month from the daily measurements, each day priced by the card in force at its start. */
async function storageLines(tx: TTx, workspaceId: string, start: Date, end: Date): Promise<TMeteredLine[]> {
  const cards = await tx.$queryRaw<TCardRow[]>`
    SELECT id, currency, per_gb_month AS price, effective_from FROM rate_card_versions
     WHERE provider = ${METERED_PROVIDER} AND model = 'storage' AND effective_from < ${end} ORDER BY effective_from`;
  if (!cards.length) return [];
  // Days as text: a DATE parsed by the driver would land in the process's time zone.
  const rows = await tx.$queryRaw<{ day: string; bytes: bigint }[]>`
    (SELECT day::text AS day, bytes FROM storage_measurements WHERE workspace_id = ${workspaceId} AND day < (${start}::timestamptz AT TIME ZONE 'UTC')::date ORDER BY day DESC LIMIT 1)
    UNION ALL
    (SELECT day::text AS day, bytes FROM storage_measurements WHERE workspace_id = ${workspaceId}
       AND day >= (${start}::timestamptz AT TIME ZONE 'UTC')::date AND day < (${end}::timestamptz AT TIME ZONE 'UTC')::date)`;
  const measured = rows
    .map((r) => ({ day: Date.parse(`${r.day}T00:00:00.000Z`), bytes: BigInt(r.bytes) }))
    .sort((a, b) => a.day - b.day);
  const days = Math.round((end.getTime() - start.getTime()) / 86_400_000);
  const byCard = new Map<string, { card: TCardRow; byteDays: bigint; days: number }>();
  let m = 0;
  let bytes = BigInt(0);
  for (let d = 0; d < days; d++) {
    const at = start.getTime() + d * 86_400_000;
    while (m < measured.length && measured[m]!.day <= at) bytes = measured[m++]!.bytes;
    let card: TCardRow | null = null;
    for (const c of cards) if (c.effective_from.getTime() <= at) card = c;
    if (!card || bytes === BigInt(0)) continue;
    const acc = byCard.get(card.id) ?? { card, byteDays: BigInt(0), days: 0 };
    acc.byteDays += bytes;
    acc.days += 1;
    byCard.set(card.id, acc);
  }
  // byte-days × micros per GB-month / (10^9 bytes × days in the month), rounded once.
  return [...byCard.values()].map(({ card, byteDays, days: n }) =>
    line(
      "storage",
      card,
      byteDays,
      divRoundHalfUp(byteDays * BigInt(card.price), BigInt(1_000_000_000) * BigInt(days)),
      { items: n, days_in_month: days },
    ),
  );
}

/** The metered lines of a month, every currency (call inside the workspace's wallet transaction). */
export async function meteredLines(tx: TTx, workspaceId: string, start: Date, end: Date): Promise<TMeteredLine[]> {
  return [...(await perCallLines(tx, workspaceId, start, end)), ...(await storageLines(tx, workspaceId, start, end))];
}

/**
 * The daily storage measurement (worker loop `billing-storage`, hourly): per
 * workspace, the bytes it holds today (by its billing clock) — platform
 * objects, KV values, managed PostgreSQL databases as last sized — kept as
 * the day's high-water mark. Returns the rows written.
 */
export async function measureStorage(now = new Date()): Promise<number> {
  // platform-scoped: the measurement covers every workspace in one statement.
  return db().$executeRaw`
    INSERT INTO storage_measurements (workspace_id, day, bytes, measured_at)
    SELECT w.id, (coalesce(tc.frozen_time, ${now}) AT TIME ZONE 'UTC')::date,
           coalesce((SELECT sum(size_bytes) FROM storage_objects o WHERE o.workspace_id = w.id), 0)
         + coalesce((SELECT sum(value_bytes) FROM kv_entries k WHERE k.workspace_id = w.id), 0)
         + coalesce((SELECT sum(size_bytes) FROM managed_resources r WHERE r.workspace_id = w.id AND r.kind = 'postgres' AND r.status IN ('available', 'deletion_scheduled')), 0),
           ${now}
      FROM workspaces w LEFT JOIN billing_test_clocks tc ON tc.workspace_id = w.id
    ON CONFLICT (workspace_id, day) DO UPDATE SET bytes = GREATEST(storage_measurements.bytes, EXCLUDED.bytes), measured_at = EXCLUDED.measured_at`;
}
