import { toWire } from "@/server/domain/billing/money";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { utcMonth } from "@/server/platform/time";
import type { TMoney, TUsageSeries, TUsageSeriesQuery } from "./overview.contract";
import { resolveRange, shapeBuckets, totalsOf, type TSeriesGroup } from "./usage-series";

const DAY_MS = 86_400_000;

type TRow = TSeriesGroup & { by_product: number };

/**
 * Usage and spend of a workspace's Bridge calls per UTC day (the day a call
 * started, as invoices count it), by capability and by product, in one scan.
 * The scan is served by (workspace_id, created_at, id): a call's row is
 * written after it starts (created_at >= requested_at) and long before a day
 * has passed, so created_at in [since, until + 2 days) holds every call that
 * started in [since, until + 1 day); requested_at then picks them exactly
 * (docs/decisions.md "Workspace overview and usage charts").
 */
export async function usageSeries(workspaceId: string, q: TUsageSeriesQuery, now = new Date()): Promise<TUsageSeries> {
  const r = resolveRange(q, now);
  const createdBefore = new Date(r.end.getTime() + DAY_MS);
  // Raw SQL (one GROUPING SETS scan; not filtered by the scoped client): it names the workspace itself.
  // Raw SQL on purpose: one GROUPING SETS scan; it names the workspace itself.
  const rows = await db().$queryRaw<TRow[]>`
    SELECT to_char(c.day, 'YYYY-MM-DD') AS day,
           GROUPING(c.capability)::int AS by_product,
           CASE WHEN GROUPING(c.capability) = 0 THEN c.capability ELSE c.product_id END AS key,
           c.usage_unit, c.charge_currency AS currency,
           count(*)::int AS calls,
           (count(*) FILTER (WHERE c.outcome = 'completed'))::int AS completed,
           (count(*) FILTER (WHERE c.outcome = 'denied'))::int AS denied,
           (count(*) FILTER (WHERE c.outcome = 'failed'))::int AS failed,
           COALESCE(sum(c.usage_units), 0)::float8 AS units,
           sum(c.charge_micros)::text AS micros
      FROM (SELECT (requested_at AT TIME ZONE 'UTC')::date AS day, capability, product_id, usage_unit, charge_currency,
                   outcome, usage_units, charge_micros
              FROM capability_invocations
             WHERE workspace_id = ${workspaceId}
               AND created_at >= ${r.start} AND created_at < ${createdBefore}
               AND requested_at >= ${r.start} AND requested_at < ${r.end}) c
     GROUP BY GROUPING SETS ((c.day, c.capability, c.usage_unit, c.charge_currency), (c.day, c.product_id, c.usage_unit, c.charge_currency))`;
  const byCapability = rows.filter((x) => x.by_product === 0);
  const byProduct = rows.filter((x) => x.by_product === 1);
  const productIds = [...new Set(byProduct.map((x) => x.key))];
  const products = productIds.length
    ? await scopedDb(workspaceId).product.findMany({
        where: { id: { in: productIds } },
        select: { id: true, name: true },
        orderBy: { name: "asc" },
      })
    : [];
  return {
    since: r.since,
    until: r.until,
    days: r.days,
    time_zone: "UTC",
    by_capability: shapeBuckets(byCapability),
    by_product: shapeBuckets(byProduct),
    products,
    totals: totalsOf(byCapability),
  };
}

/** Priced amounts of the calls that started in this UTC month, per currency. */
export async function spendThisMonth(
  workspaceId: string,
  now = new Date(),
): Promise<{ month: string; spend: TMoney[] }> {
  const month = utcMonth(now);
  const start = new Date(`${month}-01T00:00:00.000Z`);
  // Raw SQL, as above: it names the workspace itself.
  // Raw SQL on purpose: it names the workspace itself.
  const rows = await db().$queryRaw<{ currency: string; micros: string }[]>`
    SELECT charge_currency AS currency, sum(charge_micros)::text AS micros
      FROM capability_invocations
     WHERE workspace_id = ${workspaceId} AND created_at >= ${start} AND requested_at >= ${start}
       AND charge_micros IS NOT NULL AND charge_currency IS NOT NULL
     GROUP BY charge_currency ORDER BY charge_currency`;
  return { month, spend: rows.map((x) => ({ currency: x.currency, amount_micros: toWire(BigInt(x.micros)) })) };
}
