import { LoaderCircle } from "lucide-react";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";

export type TTone = "neutral" | "info" | "success" | "warning" | "danger";

/** "pending_approval" -> "Pending approval". */
export const statusLabel = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, " ");

/**
 * A resource's status as a chip: its tone from the status's table (so a new
 * status is a compile error until it gets one), its label in words, a spinner
 * while it changes on its own, and an optional note under it (why it failed).
 */
export function StatusChip<S extends string>({
  status,
  tones,
  labels,
  busy = false,
  note,
}: {
  status: S;
  tones: Record<S, TTone>;
  labels?: Partial<Record<S, string>>;
  /** The status changes on its own (planned, applying): a spinner. */
  busy?: boolean;
  note?: ReactNode;
}) {
  const chip = (
    <Badge tone={tones[status]} className={busy ? "gap-1" : undefined}>
      {busy ? <LoaderCircle aria-hidden="true" className="size-3 animate-spin motion-reduce:animate-none" /> : null}
      {labels?.[status] ?? statusLabel(status)}
    </Badge>
  );
  if (!note) return chip;
  return (
    <div>
      {chip}
      <div className="pt-1 text-xs text-slate-600">{note}</div>
    </div>
  );
}
