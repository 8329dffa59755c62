"use client";

import { Badge } from "@/components/ui/badge";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { formatDateTime } from "./format";

/** Choices for how long the old secret keeps working after a rotation (seconds). */
export const OVERLAP_CHOICES: { seconds: number; label: string }[] = [
  { seconds: 0, label: "Stop the old secret now" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "24 hours" },
  { seconds: 7 * 86_400, label: "7 days (the maximum)" },
];

/** The overlap picker of a rotate-secret dialog. */
export function OverlapField({ id, value, onChange, hint }: { id: string; value: number; onChange: (s: number) => void; hint: string }) {
  return (
    <div className="space-y-1.5 pb-3">
      <Label htmlFor={id}>Keep the old secret working for</Label>
      <Select id={id} value={String(value)} onChange={(e) => onChange(Number(e.target.value))} aria-describedby={`${id}-hint`}>
        {OVERLAP_CHOICES.map((c) => (
          <option key={c.seconds} value={c.seconds}>{c.label}</option>
        ))}
      </Select>
      <p id={`${id}-hint`} className="text-xs text-slate-600">{hint}</p>
    </div>
  );
}

/**
 * Rotation state of a secret: the current one (never expires) and, during a
 * rotation's overlap, the previous one with its expiry. Never the secret itself.
 */
export function SecretState({ rotatedAt, previousExpiresAt }: { rotatedAt: string | null; previousExpiresAt: string | null }) {
  return (
    <div className="space-y-1 text-xs">
      <div>
        <Badge tone="success">Current</Badge>{" "}
        <span className="text-slate-600">{rotatedAt ? `since ${formatDateTime(rotatedAt)}` : "since creation"}, no expiry</span>
      </div>
      {previousExpiresAt ? (
        <div>
          <Badge tone="warning">Previous</Badge>{" "}
          <span className="text-slate-600">works until <time dateTime={previousExpiresAt}>{formatDateTime(previousExpiresAt)}</time></span>
        </div>
      ) : null}
    </div>
  );
}
