"use client";

import { Download } from "lucide-react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { csvFilename, downloadCsv, toCsv, type TCsvCell } from "@/lib/csv";

/**
 * Filters kept in the URL's query string, so a filtered view can be shared,
 * bookmarked and survives a reload. `set` replaces the history entry (a filter
 * change is not a navigation) and leaves every other parameter alone.
 */
export function useUrlFilters<K extends string>(keys: readonly K[]) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const values = Object.fromEntries(keys.map((k) => [k, searchParams.get(k) ?? ""])) as Record<K, string>;

  function set(changes: Partial<Record<K, string | null>>) {
    const next = new URLSearchParams(searchParams.toString());
    for (const [k, v] of Object.entries(changes) as [K, string | null | undefined][]) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  }

  return { values, set, clear: () => router.replace(pathname, { scroll: false }) };
}

/** Relative ranges kept as `range=24h` in the URL: a shared link means "the last 24 hours" when it is opened. */
export const RANGES = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;
const RANGE_LABEL: Record<keyof typeof RANGES, string> = {
  "1h": "Last hour",
  "24h": "Last 24 hours",
  "7d": "Last 7 days",
  "30d": "Last 30 days",
};
type TRange = keyof typeof RANGES;
const isRange = (v: string): v is TRange => Object.hasOwn(RANGES, v);

/** `2024-05-01T10:00` (datetime-local, the browser's zone) -> UTC ISO with Z; "" when invalid or empty. */
export function localToIso(value: string): string {
  if (!value) return "";
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString();
}

/** UTC ISO -> the datetime-local value of that instant in the browser's zone (to the second). */
export function isoToLocal(iso: string): string {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * The [since, until) window a query asks for: a relative `range` counts back
 * from when it was chosen or the page was opened (kept stable across renders,
 * so the query and its pages do not drift); otherwise the explicit since/until.
 */
export function useTimeWindow(values: { range: string; since: string; until: string }): {
  since?: string;
  until?: string;
} {
  const { range, since, until } = values;
  return useMemo(() => {
    if (isRange(range)) return { since: new Date(Date.now() - RANGES[range]).toISOString() };
    return { ...(since ? { since } : {}), ...(until ? { until } : {}) };
  }, [range, since, until]);
}

/**
 * The time-range picker: a preset (relative, `range=`) or a custom window
 * (`since` inclusive, `until` exclusive, entered in the browser's time zone and
 * kept in the URL as UTC).
 */
export function TimeRangeFilter({
  idPrefix,
  values,
  onChange,
}: {
  idPrefix: string;
  values: { range: string; since: string; until: string };
  onChange: (changes: { range?: string | null; since?: string | null; until?: string | null }) => void;
}) {
  const custom = !isRange(values.range) && (values.range === "custom" || Boolean(values.since || values.until));
  const selected = isRange(values.range) ? values.range : custom ? "custom" : "";
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <>
      <div className="space-y-1.5">
        <Label htmlFor={`${idPrefix}-range`}>Time range</Label>
        <Select
          id={`${idPrefix}-range`}
          value={selected}
          onChange={(e) => {
            const v = e.target.value;
            if (v === "custom") onChange({ range: "custom" });
            else onChange({ range: v || null, since: null, until: null });
          }}
        >
          <option value="">Any time</option>
          {(Object.keys(RANGES) as TRange[]).map((r) => (
            <option key={r} value={r}>
              {RANGE_LABEL[r]}
            </option>
          ))}
          <option value="custom">Custom range</option>
        </Select>
      </div>
      {custom ? (
        <>
          <div className="space-y-1.5">
            <Label htmlFor={`${idPrefix}-since`}>From ({zone})</Label>
            <Input
              id={`${idPrefix}-since`}
              type="datetime-local"
              step={1}
              value={isoToLocal(values.since)}
              onChange={(e) => onChange({ range: "custom", since: localToIso(e.target.value) || null })}
            />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor={`${idPrefix}-until`}>To, not including ({zone})</Label>
            <Input
              id={`${idPrefix}-until`}
              type="datetime-local"
              step={1}
              value={isoToLocal(values.until)}
              onChange={(e) => onChange({ range: "custom", until: localToIso(e.target.value) || null })}
            />
          </div>
        </>
      ) : null}
    </>
  );
}

/** "Export CSV" of exactly the rows on screen (the current filters, the pages loaded so far). */
export function ExportCsvButton({
  ws,
  what,
  header,
  rows,
  more,
}: {
  ws: string;
  what: string;
  header: readonly string[];
  rows: readonly (readonly TCsvCell[])[];
  /** Whether more pages exist than are loaded: said next to the button, as the file holds only what is shown. */
  more: boolean;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Button
        variant="secondary"
        size="sm"
        disabled={rows.length === 0}
        onClick={() => downloadCsv(csvFilename(what, ws), toCsv(header, rows))}
      >
        <Download aria-hidden="true" />
        Export CSV
      </Button>
      <span className="text-xs text-slate-600">
        {rows.length} row{rows.length === 1 ? "" : "s"} shown{more ? "; load more to export more" : ""}
      </span>
    </div>
  );
}
