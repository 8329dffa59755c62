"use client";

import type { inferRouterOutputs } from "@trpc/server";
import { CopyButton } from "@/components/ui/copy-button";
import type { AppRouter } from "@/server/trpc/root";

export type TDomain = inferRouterOutputs<AppRouter>["domains"]["list"]["items"][number];
type TRecordCheck = "passed" | "failed" | "unchecked" | "unknown";

/**
 * Each record's result of the last DNS check, from the domain's status and
 * failure code: the checker reads the TXT record first and the routing
 * record only once the TXT record is right (domains/dns-check.ts), so a TXT
 * failure leaves routing unchecked, a routing failure means TXT passed, and
 * a verified domain passed both.
 */
export function recordChecks(d: Pick<TDomain, "status" | "failure" | "last_checked_at">): {
  verification: TRecordCheck;
  routing: TRecordCheck;
} {
  const code = d.failure?.code;
  if (code === "verification_record_missing" || code === "verification_record_mismatch")
    return { verification: "failed", routing: "unchecked" };
  if (code === "routing_record_missing" || code === "routing_record_mismatch")
    return { verification: "passed", routing: "failed" };
  if (code === "dns_unavailable") return { verification: "unknown", routing: "unknown" };
  if (d.status === "verified") return { verification: "passed", routing: "passed" };
  return { verification: d.last_checked_at ? "unknown" : "unchecked", routing: "unchecked" };
}

const MARK: Record<TRecordCheck, { mark: string; words: string; className: string }> = {
  passed: { mark: "✓", words: "found and correct", className: "text-emerald-700" },
  failed: { mark: "✗", words: "missing or wrong", className: "text-rose-700" },
  unchecked: { mark: "–", words: "not checked yet", className: "text-slate-500" },
  unknown: { mark: "?", words: "not known: DNS did not answer", className: "text-slate-500" },
};

/**
 * The DNS records to create, each with its ✓/✗ from the last check. Names and values never wrap a
 * character per line: their columns share the row equally and the copy buttons say just "Copy".
 */
export function DnsRecords({ d }: { d: TDomain }) {
  const checks = recordChecks(d);
  const records = [
    { ...d.verification_record, check: checks.verification },
    ...d.routing_records.map((r) => ({ ...r, check: checks.routing })),
  ];
  return (
    <div className="space-y-2">
      <p className="text-sm text-slate-700">
        Create these records at your DNS provider
        {d.apex ? " (an apex name: use A/AAAA records, or ALIAS / CNAME flattening where your provider offers it)" : ""}
        :
      </p>
      <ul
        aria-label={`DNS records for ${d.hostname}`}
        className="divide-y divide-slate-100 rounded-md border border-slate-200 text-xs"
      >
        {records.map((r) => {
          const m = MARK[r.check];
          return (
            <li
              key={`${r.type} ${r.name} ${r.value}`}
              className="grid gap-x-4 gap-y-1 p-2 md:grid-cols-[5rem_minmax(12rem,1fr)_minmax(16rem,1fr)] md:items-center"
            >
              <div className="flex items-center gap-2">
                <span
                  aria-hidden="true"
                  className={`text-base leading-none font-semibold ${m.className}`}
                  data-record-check={r.check}
                >
                  {m.mark}
                </span>
                <span className="font-mono font-medium">{r.type}</span>
                <span className="sr-only">record: {m.words}</span>
              </div>
              <RecordField label="Name" attr="name" type={r.type} value={r.name} />
              <RecordField label="Value" attr="value" type={r.type} value={r.value} />
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** One copyable part of a record (its name or value): a label below md, the text, a copy button named after it. */
function RecordField({
  label,
  attr,
  type,
  value,
}: {
  label: "Name" | "Value";
  attr: "name" | "value";
  type: string;
  value: string;
}) {
  return (
    <div className="flex min-w-0 items-center gap-1">
      <span className="w-12 shrink-0 text-slate-600 md:sr-only">{label}</span>
      <code
        className="min-w-0 font-mono [overflow-wrap:anywhere]"
        data-dns-name={attr === "name" ? "" : undefined}
        data-dns-value={attr === "value" ? "" : undefined}
      >
        {value}
      </code>
      <CopyButton
        value={value}
        label="Copy"
        aria-label={`Copy ${type} ${attr}`}
        size="sm"
        variant="ghost"
        className="shrink-0"
      />
    </div>
  );
}
