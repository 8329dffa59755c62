import { Badge } from "@/components/ui/badge";
import type { TEvaluation, TRelease } from "@/server/domain/releases/releases.contract";

/** Labels and tones of evaluation, release and fix states. */
const EVALUATION_TONE = {
  queued: "neutral",
  deploying: "info",
  checking: "info",
  passed: "success",
  failed: "danger",
} as const;
export const RELEASE_LABEL: Record<TRelease["status"], string> = {
  draft: "Draft",
  ready: "Ready",
  live: "Live",
  retired: "Retired",
  blocked: "Blocked",
  pending_approval: "Pending approval",
};
const RELEASE_TONE = {
  draft: "neutral",
  ready: "info",
  live: "success",
  retired: "neutral",
  blocked: "danger",
  pending_approval: "warning",
} as const;
const CHECK_TONE = { pending: "neutral", passed: "success", failed: "danger", skipped: "neutral" } as const;
const FIX_TONE = { proposed: "info", approved: "success", rejected: "neutral", failed: "danger" } as const;

const label = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, " ");

export function EvaluationStatusBadge({ status }: { status: TEvaluation["status"] }) {
  return <Badge tone={EVALUATION_TONE[status]}>{label(status)}</Badge>;
}

export function CheckStatusBadge({ status }: { status: keyof typeof CHECK_TONE }) {
  return <Badge tone={CHECK_TONE[status]}>{label(status)}</Badge>;
}

export function ReleaseStatusBadge({ status }: { status: TRelease["status"] }) {
  return <Badge tone={RELEASE_TONE[status]}>{RELEASE_LABEL[status]}</Badge>;
}

export function FixStatusBadge({ status }: { status: keyof typeof FIX_TONE }) {
  return <Badge tone={FIX_TONE[status]}>{label(status)}</Badge>;
}

export const evaluationRunning = (s: TEvaluation["status"]) => s !== "passed" && s !== "failed";
