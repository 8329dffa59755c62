"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatMicros } from "@/server/domain/billing/currencies";
import type { TUsageRange } from "@/server/domain/overview/overview.contract";
import { chartModel, metricsOf, type TChartModel, type TMetric, type TView } from "./usage-chart-data";
import { formatUnits } from "../shared/format";
import { Loading } from "../shared/page-header";

const RANGE_LABEL: Record<TUsageRange, string> = { "7d": "Last 7 days", "30d": "Last 30 days", "90d": "Last 90 days" };
const VIEW_LABEL: Record<TView, string> = { capability: "By capability", product: "By product" };

const currencyOf = (metric: TMetric) => (metric === "calls" ? null : metric.slice("spend:".length));
const metricLabel = (metric: TMetric) => (metric === "calls" ? "Bridge calls" : `Spend (${currencyOf(metric)})`);

function formatValue(metric: TMetric, v: number): string {
  const c = currencyOf(metric);
  return c ? formatMicros(v, c) : formatUnits(v);
}

/** "2026-11-25" -> "25 Nov" (UTC: the day is a UTC day). */
const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });

/** The same numbers as the chart, for screen readers (the chart itself is hidden from them). Days with nothing are left out. */
function ChartTable({ model, metric, caption }: { model: TChartModel; metric: TMetric; caption: string }) {
  const rows = model.rows.filter((r) => r.total > 0);
  return (
    // The wrapper hides it: a table grows to its content whatever width it is given, so sr-only on the table itself would widen the page.
    <div className="sr-only">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            {model.series.map((s) => (
              <th key={s.id} scope="col">
                {s.label}
              </th>
            ))}
            <th scope="col">Total</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={model.series.length + 2}>No calls in this range</td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr key={r.day}>
                <th scope="row">{r.day}</th>
                {model.series.map((s) => (
                  <td key={s.id}>{formatValue(metric, r[s.id] as number)}</td>
                ))}
                <td>{formatValue(metric, r.total)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Bridge calls or spend per UTC day, stacked by capability or by product,
 * with a range picker. The chart is drawn from CSS variables (--chart-n),
 * hidden from assistive technology, and doubled by a visually hidden table.
 */
export function UsageChart({
  ws,
  allowProductView = true,
  initialMetric = "calls",
  heading = "Usage over time",
}: {
  ws: string;
  allowProductView?: boolean;
  initialMetric?: "calls" | "spend";
  heading?: string;
}) {
  const trpc = useTRPC();
  const id = useId();
  const [range, setRange] = useState<TUsageRange>("30d");
  const [view, setView] = useState<TView>("capability");
  const [chosen, setChosen] = useState<TMetric | null>(null);
  const usage = useQuery({ ...trpc.overview.usage.queryOptions({ ws, range }), placeholderData: (prev) => prev });

  const metrics = usage.data ? metricsOf(usage.data) : (["calls"] as TMetric[]);
  const preferred = initialMetric === "spend" ? (metrics[1] ?? "calls") : "calls";
  const metric = chosen && metrics.includes(chosen) ? chosen : preferred;
  const model = usage.data ? chartModel(usage.data, view, metric) : null;
  const caption = `${metricLabel(metric)} per UTC day ${VIEW_LABEL[view].toLowerCase()}, ${RANGE_LABEL[range].toLowerCase()}`;

  return (
    <section aria-labelledby={`${id}-h`} className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="space-y-1">
          <h3 id={`${id}-h`} className="text-sm font-semibold">
            {heading}
          </h3>
          <p className="text-xs text-slate-600">Days are UTC days (the day each call started).</p>
        </div>
        <div className="flex flex-wrap items-end gap-3">
          <div className="space-y-1">
            <Label htmlFor={`${id}-range`}>Time range</Label>
            <Select
              id={`${id}-range`}
              value={range}
              onChange={(e) => setRange(e.target.value as TUsageRange)}
              className="h-8 w-36"
            >
              {(Object.keys(RANGE_LABEL) as TUsageRange[]).map((r) => (
                <option key={r} value={r}>
                  {RANGE_LABEL[r]}
                </option>
              ))}
            </Select>
          </div>
          <div className="space-y-1">
            <Label htmlFor={`${id}-metric`}>Show</Label>
            <Select
              id={`${id}-metric`}
              value={metric}
              onChange={(e) => setChosen(e.target.value as TMetric)}
              className="h-8 w-36"
            >
              {metrics.map((m) => (
                <option key={m} value={m}>
                  {metricLabel(m)}
                </option>
              ))}
            </Select>
          </div>
          {allowProductView ? (
            <div role="group" aria-label="Group by" className="flex gap-1">
              {(Object.keys(VIEW_LABEL) as TView[]).map((v) => (
                <Button
                  key={v}
                  size="sm"
                  variant={view === v ? "primary" : "secondary"}
                  aria-pressed={view === v}
                  onClick={() => setView(v)}
                >
                  {VIEW_LABEL[v]}
                </Button>
              ))}
            </div>
          ) : null}
        </div>
      </div>

      {usage.isPending ? <Loading what="usage" /> : null}
      {usage.error ? <Alert problem={problemOf(usage.error)} /> : null}
      {model && usage.data ? (
        <figure className="space-y-3">
          <figcaption className="text-sm text-slate-700">
            {model.total === 0
              ? `No Bridge calls ${RANGE_LABEL[range].toLowerCase()} (${usage.data.since} to ${usage.data.until}, UTC).`
              : `${formatValue(metric, model.total)} ${metric === "calls" ? (model.total === 1 ? "call" : "calls") : "spent"} from ${usage.data.since} to ${usage.data.until} (UTC)${model.series.length ? `; most: ${model.series[0]!.label}` : ""}.`}
          </figcaption>
          <div aria-hidden="true" className="h-64 w-full text-slate-600">
            <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 280, height: 256 }}>
              <BarChart data={model.rows} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                <CartesianGrid vertical={false} stroke="var(--chart-grid)" />
                <XAxis
                  dataKey="day"
                  tickFormatter={dayLabel}
                  tick={{ fill: "var(--chart-axis)", fontSize: 12 }}
                  stroke="var(--chart-grid)"
                  minTickGap={12}
                />
                <YAxis
                  allowDecimals={false}
                  width={metric === "calls" ? 40 : 72}
                  tickFormatter={(v: number) => formatValue(metric, v)}
                  tick={{ fill: "var(--chart-axis)", fontSize: 12 }}
                  stroke="var(--chart-grid)"
                />
                <Tooltip
                  cursor={{ fill: "var(--chart-grid)", opacity: 0.5 }}
                  labelFormatter={(d) => `${typeof d === "string" ? d : ""} (UTC)`}
                  formatter={(v, name) => [
                    formatValue(metric, Number(v)),
                    model.series.find((s) => s.id === name)?.label ?? String(name),
                  ]}
                  contentStyle={{
                    background: "var(--chart-tooltip-bg)",
                    color: "var(--chart-tooltip-fg)",
                    borderColor: "var(--chart-grid)",
                    fontSize: 12,
                  }}
                  labelStyle={{ color: "var(--chart-tooltip-fg)" }}
                />
                {model.series.map((s) => (
                  <Bar key={s.id} dataKey={s.id} stackId="usage" fill={s.color} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
          {model.series.length ? (
            <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700" aria-label="Legend">
              {model.series.map((s) => (
                <li key={s.id} className="flex items-center gap-1.5">
                  <span
                    aria-hidden="true"
                    className="inline-block size-2.5 rounded-sm"
                    style={{ background: s.color }}
                  />
                  <span className="break-all">{s.label}</span>
                  <span className="tabular-nums text-slate-600">{formatValue(metric, s.total)}</span>
                </li>
              ))}
            </ul>
          ) : null}
          <ChartTable model={model} metric={metric} caption={caption} />
        </figure>
      ) : null}
    </section>
  );
}
