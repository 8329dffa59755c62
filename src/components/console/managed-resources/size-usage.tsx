import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { formatBytes, formatDateTime } from "../shared/format";

type TSized = {
  id: string;
  name: string;
  kind: "postgres" | "object_bucket";
  size_bytes: number;
  size_measured_at: string | null;
  limits: { max_size_bytes: number };
  failure: { code: string; message: string } | null;
};

const overLimit = (r: TSized) => r.failure?.code === "size_limit_exceeded";

/**
 * A resource's measured size against its plan's limit, as an ARIA meter
 * (amber from 80 %, red at the limit), with a "Read-only" badge while the
 * resource refuses writes for being over it (docs/decisions.md "Managed data: limits").
 */
export function SizeUsage({ r }: { r: TSized }) {
  const max = r.limits.max_size_bytes;
  const ratio = max > 0 ? r.size_bytes / max : 0;
  const tone = ratio >= 1 ? "bg-rose-600" : ratio >= 0.8 ? "bg-amber-500" : "bg-sky-600";
  const summary = `${formatBytes(r.size_bytes)} of ${formatBytes(max)}`;
  return (
    <div className="space-y-1 pt-1">
      <div
        role="meter"
        aria-label={`Size of ${r.name}`}
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={Math.min(r.size_bytes, max)}
        aria-valuetext={summary}
        className="relative h-1.5 max-w-56 overflow-hidden rounded-full bg-slate-100"
      >
        <div className={cn("absolute inset-y-0 left-0", tone)} style={{ width: `${Math.min(100, ratio * 100)}%` }} />
      </div>
      <p className="text-xs text-slate-600">
        {r.kind === "object_bucket" ? "Stored" : "Size"}: {summary} (
        {r.size_measured_at ? `measured ${formatDateTime(r.size_measured_at)}` : "not measured yet"})
        {overLimit(r) ? (
          <Badge tone="danger" className="ml-2">
            Read-only
          </Badge>
        ) : null}
      </p>
    </div>
  );
}

/** The page's banner: which resources are over their size limit, what that refuses, and how to get back. */
export function SizeLimitBanner({ rows }: { rows: TSized[] }) {
  const over = rows.filter(overLimit);
  if (!over.length) return null;
  return (
    <Alert
      tone="danger"
      title={
        over.length === 1
          ? `${over[0]!.name} is over its size limit and read-only`
          : `${over.length} resources are over their size limits and read-only`
      }
    >
      <ul className="space-y-1">
        {over.map((r) => (
          <li key={r.id}>
            <span className="font-medium">{r.name}</span>: {r.failure!.message}
          </li>
        ))}
      </ul>
    </Alert>
  );
}
