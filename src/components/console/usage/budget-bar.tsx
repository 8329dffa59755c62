import { cn } from "@/components/ui/cn";
import { formatUnits } from "../shared/format";

type TBudgetBarProps = { label: string; used: number; reserved: number; limit: number | null; className?: string };

/**
 * Used + reserved against the monthly limit. With a limit it is an ARIA meter
 * (amber from 75 %, red from 90 %); without one the text says "unlimited".
 */
export function BudgetBar({ label, used, reserved, limit, className }: TBudgetBarProps) {
  const consumed = used + reserved;
  const summary =
    limit === null
      ? `${formatUnits(used)} used + ${formatUnits(reserved)} reserved · unlimited`
      : `${formatUnits(used)} used + ${formatUnits(reserved)} reserved of ${formatUnits(limit)}`;
  if (limit === null) {
    return (
      <div className={cn("space-y-1", className)}>
        <div className="h-2 rounded-full bg-slate-100" aria-hidden="true" />
        <p className="text-xs text-slate-600">{summary}</p>
      </div>
    );
  }
  const ratio = limit === 0 ? (consumed > 0 ? 1 : 0) : consumed / limit;
  const usedPct = limit === 0 ? (used > 0 ? 100 : 0) : Math.min(100, (used / limit) * 100);
  const totalPct = Math.min(100, ratio * 100);
  const tone = ratio >= 0.9 ? "bg-rose-600" : ratio >= 0.75 ? "bg-amber-500" : "bg-sky-600";
  return (
    <div className={cn("space-y-1", className)}>
      <div
        role="meter"
        aria-label={`${label} budget`}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(consumed, limit)}
        aria-valuetext={summary}
        className="relative h-2 overflow-hidden rounded-full bg-slate-100"
      >
        <div className={cn("absolute inset-y-0 left-0 opacity-40", tone)} style={{ width: `${totalPct}%` }} />
        <div className={cn("absolute inset-y-0 left-0", tone)} style={{ width: `${usedPct}%` }} />
      </div>
      <p className="text-xs text-slate-600">
        {summary} ({Math.round(ratio * 100)}%)
      </p>
    </div>
  );
}
