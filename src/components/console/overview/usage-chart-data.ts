import type { TUsageBucket, TUsageSeries } from "@/server/domain/overview/overview.contract";

/**
 * The usage series (per UTC day × key) as a stacked chart: the keys with the
 * largest totals each get a series, the rest fold into "Other", so a phone
 * still shows a readable legend. Values stay integers (calls, or micros of
 * one currency); formatting happens at display.
 */
export type TView = "capability" | "product";
/** "calls", or "spend:<currency>". */
export type TMetric = "calls" | `spend:${string}`;
export type TChartSeries = { id: string; label: string; color: string; total: number };
export type TChartRow = { day: string; total: number } & Record<string, number | string>;
export type TChartModel = { series: TChartSeries[]; rows: TChartRow[]; total: number };

export const MAX_SERIES = 5;
export const OTHER = "Other";

function valueOf(b: TUsageBucket, metric: TMetric): number {
  if (metric === "calls") return b.calls;
  const currency = metric.slice("spend:".length);
  return b.spend.find((m) => m.currency === currency)?.amount_micros ?? 0;
}

/** Metrics the series offers: calls, then spend per currency it holds (largest first). */
export function metricsOf(s: TUsageSeries): TMetric[] {
  const spend = [...s.totals.spend].sort(
    (a, b) => b.amount_micros - a.amount_micros || a.currency.localeCompare(b.currency),
  );
  return ["calls", ...spend.map((m): TMetric => `spend:${m.currency}`)];
}

export function chartModel(s: TUsageSeries, view: TView, metric: TMetric): TChartModel {
  const buckets = view === "capability" ? s.by_capability : s.by_product;
  const names = new Map(s.products.map((p) => [p.id, p.name]));
  const totals = new Map<string, number>();
  for (const b of buckets) totals.set(b.key, (totals.get(b.key) ?? 0) + valueOf(b, metric));
  const ranked = [...totals].filter(([, v]) => v > 0).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  const shown = ranked.length > MAX_SERIES ? ranked.slice(0, MAX_SERIES - 1) : ranked;
  const seriesOf = new Map<string, string>();
  const series: TChartSeries[] = shown.map(([key, total], i) => {
    const id = `s${i}`; // keys such as "ai.generate" would read as nested paths to the chart
    seriesOf.set(key, id);
    return { id, label: view === "product" ? (names.get(key) ?? key) : key, color: `var(--chart-${i + 1})`, total };
  });
  if (ranked.length > shown.length) {
    const rest = ranked.slice(shown.length).reduce((n, [, v]) => n + v, 0);
    series.push({ id: `s${shown.length}`, label: OTHER, color: `var(--chart-${shown.length + 1})`, total: rest });
  }
  const other = ranked.length > shown.length ? `s${shown.length}` : null;
  const byDay = new Map<string, TChartRow>(
    s.days.map((day) => [day, { day, total: 0, ...Object.fromEntries(series.map((x) => [x.id, 0])) }]),
  );
  for (const b of buckets) {
    const row = byDay.get(b.day);
    const v = valueOf(b, metric);
    if (!row || v === 0) continue;
    const id = seriesOf.get(b.key) ?? other;
    if (!id) continue;
    row[id] = (row[id] as number) + v;
    row.total += v;
  }
  const rows = [...byDay.values()];
  return { series, rows, total: rows.reduce((n, r) => n + r.total, 0) };
}
