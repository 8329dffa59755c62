import Link from "next/link";
import { cn, focusRing } from "@/components/ui/cn";
import { workspaceHref } from "../shell/nav-config";

const EVT_RE = /^evt_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const timeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });

export function formatAuditTime(iso: string): string {
  return timeFormat.format(new Date(iso));
}

/** Red for refusals and failures, amber for owner/admin-only areas, grey otherwise. */
export function actionTone(action: string): "danger" | "warning" | "neutral" {
  if (action.startsWith("authz.") || /(denied|blocked|failed|rejected|revoked)$/.test(action)) return "danger";
  if (/^(billing|credential|binding|service_identity)\./.test(action)) return "warning";
  return "neutral";
}

/** The link to a correlation's event timeline; only evt_ correlation ids have one. */
export function CorrelationLink({ ws, id }: { ws: string; id: string }) {
  if (!EVT_RE.test(id)) return <code className="font-mono text-xs break-all">{id}</code>;
  return (
    <Link
      href={workspaceHref(ws, `/correlations/${id}`)}
      className={cn("font-mono text-xs break-all text-sky-700 underline-offset-4 hover:underline", focusRing)}
      title="Show the events of this correlation"
    >
      {id}
    </Link>
  );
}
