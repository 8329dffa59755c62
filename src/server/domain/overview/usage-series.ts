import { AppError } from "@/server/platform/errors";
import { MAX_RANGE_DAYS, type TMoney, type TUsageBucket, type TUsageSeriesQuery } from "./overview.contract";

/**
 * The pure half of the usage series: the range a query names (UTC days,
 * inclusive) and the shaping of the SQL groups into buckets. No database.
 */

const DAY_MS = 86_400_000;
const RANGE_DAYS = { "7d": 7, "30d": 30, "90d": 90 } as const;

export type TResolvedRange = { since: string; until: string; start: Date; end: Date; days: string[] };

const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const startOf = (day: string) => new Date(`${day}T00:00:00.000Z`);

function invalid(detail: string, path: string): AppError {
  return new AppError("bad_request", detail, {
    reason: "invalid_parameters",
    errors: [{ path: `/query${path}`, message: detail }],
  });
}

/** The UTC days a query covers (a bad combination is a 400, as a bad query parameter is on every list): `range` (the last n days, today included), or since..until (both, inclusive, ≤ 366 days), or the last 30 days. */
export function resolveRange(q: TUsageSeriesQuery, now = new Date()): TResolvedRange {
  let since: string;
  let until: string;
  if (q.since !== undefined || q.until !== undefined) {
    if (q.range !== undefined) throw invalid("give either range or since/until, not both", "/range");
    if (q.since === undefined) throw invalid("until needs since", "/since");
    if (q.until === undefined) throw invalid("since needs until", "/until");
    since = q.since;
    until = q.until;
    if (since > until) throw invalid("since must not be after until", "/since");
  } else {
    const n = RANGE_DAYS[q.range ?? "30d"];
    until = dayOf(now);
    since = dayOf(new Date(startOf(until).getTime() - (n - 1) * DAY_MS));
  }
  const start = startOf(since);
  const end = new Date(startOf(until).getTime() + DAY_MS);
  const count = Math.round((end.getTime() - start.getTime()) / DAY_MS);
  if (count > MAX_RANGE_DAYS) throw invalid(`the range spans ${count} days; at most ${MAX_RANGE_DAYS}`, "/until");
  const days = Array.from({ length: count }, (_, i) => dayOf(new Date(start.getTime() + i * DAY_MS)));
  return { since, until, start, end, days };
}

/** One SQL group: a UTC day × key (capability or product) × usage unit × charge currency. */
export type TSeriesGroup = {
  day: string;
  key: string;
  usage_unit: string;
  currency: string | null;
  calls: number;
  completed: number;
  denied: number;
  failed: number;
  units: number;
  /** Sum of charge_micros as a decimal string (SQL numeric), or null when nothing in the group was priced. */
  micros: string | null;
};

function addMoney(into: Map<string, bigint>, currency: string | null, micros: string | null): void {
  if (currency === null || micros === null) return;
  into.set(currency, (into.get(currency) ?? BigInt(0)) + BigInt(micros));
}

function moneyList(m: Map<string, bigint>): TMoney[] {
  return [...m]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, v]) => {
      if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount ${v} is outside the safe integer range`);
      return { currency, amount_micros: Number(v) };
    });
}

/** Merges groups that split one day × key by unit or currency into one bucket; sorted by day then key. Money adds as BigInt. */
export function shapeBuckets(groups: TSeriesGroup[]): TUsageBucket[] {
  type TAcc = {
    day: string;
    key: string;
    calls: number;
    completed: number;
    denied: number;
    failed: number;
    usage: Map<string, number>;
    spend: Map<string, bigint>;
  };
  const acc = new Map<string, TAcc>();
  for (const g of groups) {
    const id = `${g.day}\u0000${g.key}`;
    let a = acc.get(id);
    if (!a) {
      a = { day: g.day, key: g.key, calls: 0, completed: 0, denied: 0, failed: 0, usage: new Map(), spend: new Map() };
      acc.set(id, a);
    }
    a.calls += g.calls;
    a.completed += g.completed;
    a.denied += g.denied;
    a.failed += g.failed;
    a.usage.set(g.usage_unit, (a.usage.get(g.usage_unit) ?? 0) + g.units);
    addMoney(a.spend, g.currency, g.micros);
  }
  return [...acc.values()]
    .sort((x, y) => (x.day === y.day ? x.key.localeCompare(y.key) : x.day < y.day ? -1 : 1))
    .map((a) => ({
      day: a.day,
      key: a.key,
      calls: a.calls,
      completed: a.completed,
      denied: a.denied,
      failed: a.failed,
      usage: [...a.usage].sort(([u], [v]) => u.localeCompare(v)).map(([unit, units]) => ({ unit, units })),
      spend: moneyList(a.spend),
    }));
}

/** Totals over one series (each call is in exactly one bucket of a series). */
export function totalsOf(groups: TSeriesGroup[]) {
  const spend = new Map<string, bigint>();
  let calls = 0,
    completed = 0,
    denied = 0,
    failed = 0;
  for (const g of groups) {
    calls += g.calls;
    completed += g.completed;
    denied += g.denied;
    failed += g.failed;
    addMoney(spend, g.currency, g.micros);
  }
  return { calls, completed, denied, failed, spend: moneyList(spend) };
}
