import type { inferRouterOutputs } from "@trpc/server";
import { CopyButton } from "@/components/ui/copy-button";
import type { AppRouter } from "@/server/trpc/root";

export type TAuditRow = inferRouterOutputs<AppRouter>["audit"]["list"]["items"][number];

/** The expanded part of a row: ids, chain position, hashes and the details JSON. */
export function AuditRecordDetails({ record }: { record: TAuditRow }) {
  return (
    <div className="space-y-3">
      <dl className="grid gap-x-6 gap-y-2 text-xs sm:grid-cols-[auto_1fr]">
        <dt className="text-slate-600">Record id</dt>
        <dd className="flex flex-wrap items-center gap-2">
          <code className="font-mono break-all">{record.id}</code>
          <CopyButton value={record.id} size="sm" label="Copy id" />
        </dd>
        <dt className="text-slate-600">Created (UTC)</dt>
        <dd>
          <time dateTime={record.created_at} className="font-mono">
            {record.created_at}
          </time>
        </dd>
        <dt className="text-slate-600">Sequence</dt>
        <dd className="font-mono">{record.sequence}</dd>
        <dt className="text-slate-600">Hash</dt>
        <dd className="font-mono break-all">{record.hash}</dd>
        <dt className="text-slate-600">Previous hash</dt>
        <dd className="font-mono break-all">{record.prev_hash ?? "none (first record of the chain)"}</dd>
      </dl>
      <div className="space-y-1">
        <p className="text-xs text-slate-600">Details</p>
        <pre className="max-h-80 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">
          {JSON.stringify(record.details, null, 2)}
        </pre>
      </div>
    </div>
  );
}
