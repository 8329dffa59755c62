import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { cn, focusRing } from "@/components/ui/cn";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { TCapabilityCall } from "@/server/domain/capabilities/capability-calls.contract";
import { formatDateTime, formatUnits } from "../shared/format";
import { workspaceHref } from "../shell/nav-config";
import { OUTCOME_TONE, type useCallerNames } from "./invocation-callers";
import { reasonOf } from "./invocation-reasons";
import { ReasonFixLink } from "./reason-fix-link";

const linkClass = cn("text-sky-800 underline underline-offset-4 hover:text-sky-950", focusRing);

function ReasonCell({ ws, reason }: { ws: string; reason: string | null }) {
  if (!reason) return <>—</>;
  const known = reasonOf(reason);
  return (
    <div className="max-w-80 space-y-0.5">
      <code className="font-mono text-xs">{reason}</code>
      {known ? (
        <p className="text-xs text-slate-600">
          {known.text}
          <ReasonFixLink ws={ws} fix={known.fix} className={linkClass} />
        </p>
      ) : null}
    </div>
  );
}

/** The Bridge calls shown, newest first, each opening its drill-down from its time. */
export function InvocationsTable({
  ws,
  rows,
  names,
}: {
  ws: string;
  rows: TCapabilityCall[];
  names: ReturnType<typeof useCallerNames>;
}) {
  return (
    <Table>
      <TableCaption>{rows.length ? `${rows.length} invocation(s)` : "No capability invocations match."}</TableCaption>
      <TableHeader>
        <TableRow>
          <TableHead>Time</TableHead>
          <TableHead>Capability</TableHead>
          <TableHead>Outcome</TableHead>
          <TableHead>Reason</TableHead>
          <TableHead>Provider</TableHead>
          <TableHead>Usage</TableHead>
          <TableHead>Overhead</TableHead>
          <TableHead>Caller</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.id}>
            <TableCell className="whitespace-nowrap">
              <Link href={workspaceHref(ws, `/invocations/${r.id}`)} className={linkClass}>
                <time dateTime={r.created_at} title={r.created_at}>
                  {formatDateTime(r.created_at)}
                </time>
                <span className="sr-only">, open invocation {r.id}</span>
              </Link>
            </TableCell>
            <TableCell>
              <code>{r.capability}</code> {r.action}
            </TableCell>
            <TableCell>
              <Badge tone={OUTCOME_TONE[r.outcome]}>{r.outcome}</Badge>
            </TableCell>
            <TableCell>
              <ReasonCell ws={ws} reason={r.reason} />
            </TableCell>
            <TableCell>
              {r.provider ?? "—"}
              {r.fallback_used ? (
                <Badge tone="info" className="ml-2">
                  fallback
                </Badge>
              ) : null}
            </TableCell>
            <TableCell>
              {formatUnits(r.usage.units)} {r.usage.unit}
            </TableCell>
            <TableCell>{r.overhead_ms === null ? "—" : `${r.overhead_ms} ms`}</TableCell>
            <TableCell className="text-xs">
              <span className="block">
                {names.productName.get(r.product_id) ?? <code className="font-mono">{r.product_id}</code>}
              </span>
              <span className="block text-slate-600">
                {r.service_identity_id ? (
                  (names.identityName.get(r.service_identity_id) ?? (
                    <code className="font-mono">{r.service_identity_id}</code>
                  ))
                ) : r.deployment_id ? (
                  <>
                    deployment <code className="font-mono">{r.deployment_id}</code>
                  </>
                ) : (
                  "—"
                )}
              </span>
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
