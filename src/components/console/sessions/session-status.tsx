"use client";

import { useQuery } from "@tanstack/react-query";
import { ChevronRight, CircleCheck, CircleMinus, CircleX, type LucideIcon } from "lucide-react";
import { useSession } from "next-auth/react";
import { useMemo } from "react";
import { Badge } from "@/components/ui/badge";
import { cn, focusRing } from "@/components/ui/cn";
import { useTRPC } from "@/lib/trpc/client";
import type {
  TAccess,
  TAdmission,
  TAdmissionReason,
  TExecution,
  TSession,
} from "@/server/domain/sessions/sessions.contract";
import { titleCase } from "../shared/format";
import { ReasonFixLink } from "../capabilities/reason-fix-link";

type TTone = "info" | "success" | "warning" | "danger" | "neutral";
type TCheckName = TAdmission["checks"][number]["name"];
type TCheckStatus = TAdmission["checks"][number]["status"];

/** The admission checks in the order the server runs them (the first failure decides). */
export const CHECK_NAMES: TCheckName[] = ["permission", "policy", "binding", "verification", "usage"];

export function SessionStateBadge({ state }: { state: TSession["state"] }) {
  return <Badge tone={state === "active" ? "success" : "neutral"}>{titleCase(state)}</Badge>;
}

const OUTCOME_TONE: Record<TAdmission["outcome"], TTone> = { admitted: "success", denied: "danger", pending: "info" };

/** Admitted, denied or pending; "Not decided" for an invocation without admission yet. */
export function OutcomeBadge({ admission }: { admission: Pick<TAdmission, "outcome"> | null }) {
  if (!admission) return <Badge tone="neutral">Not decided</Badge>;
  return <Badge tone={OUTCOME_TONE[admission.outcome]}>{titleCase(admission.outcome)}</Badge>;
}

const EXECUTION_TONE: Record<TExecution["status"], TTone> = {
  completed: "success",
  failed: "danger",
  cancelled: "neutral",
  timed_out: "warning",
};

export function ExecutionStatusBadge({ status }: { status: TExecution["status"] }) {
  return <Badge tone={EXECUTION_TONE[status]}>{titleCase(status.replace(/_/g, " "))}</Badge>;
}

/** "Active", "Revoked" or "Expired": an access is usable only while neither revoked nor past its expiry. */
export function AccessStateBadge({ access, now }: { access: Pick<TAccess, "revoked_at" | "expires_at">; now: number }) {
  if (access.revoked_at) return <Badge tone="danger">Revoked</Badge>;
  if (Date.parse(access.expires_at) <= now) return <Badge tone="neutral">Expired</Badge>;
  return <Badge tone="success">Active</Badge>;
}

/** Each admission reason in words, and where in the console to act on it. */
export const ADMISSION_REASONS: Record<TAdmissionReason, { text: string; fix?: { path: string; label: string } }> = {
  admitted: { text: "Every check passed and the request ran." },
  permission_denied: {
    text: "The access was revoked or expired, the caller is not the session's account or no longer a member, or an owner or admin denied the request.",
  },
  policy_blocked: {
    text: "The surface or its deployment is no longer active, or the operator no longer allows production without isolation.",
  },
  binding_unavailable: {
    text: "A capability the app requires has no ready provider binding in this workspace.",
    fix: { path: "/bindings", label: "Provider bindings" },
  },
  verification_blocked: {
    text: "Production serves requests once the product has a verified custom domain for production (Domains).",
  },
  usage_denied: {
    text: "The plan does not include runtime, or this month's runtime budget is used up.",
    fix: { path: "/plan", label: "Plan & budgets" },
  },
  rate_limited: { text: "Too many requests in this session: wait a moment and send again." },
  pending_consent: {
    text: "A viewer's POST, PUT, PATCH or DELETE waits for an owner or admin to approve it.",
    fix: { path: "/pending", label: "Pending operations" },
  },
};

const linkClass = cn("text-sky-700 underline-offset-4 hover:underline", focusRing);

/** The reason code, with its explanation (and where to act) unless `compact` (then a hover hint). */
export function AdmissionReason({
  ws,
  reason,
  compact = false,
}: {
  ws: string;
  reason: TAdmissionReason;
  compact?: boolean;
}) {
  const known = ADMISSION_REASONS[reason];
  if (compact) {
    return (
      <code className="font-mono text-xs" title={known?.text}>
        {reason}
      </code>
    );
  }
  return (
    <span>
      <code className="font-mono text-xs">{reason}</code>
      {known ? (
        <span className="text-slate-600">
          {" "}
          · {known.text}
          <ReasonFixLink ws={ws} fix={known.fix} className={linkClass} />
        </span>
      ) : null}
    </span>
  );
}

const CHECK_STYLE: Record<TCheckStatus, { icon: LucideIcon; className: string; iconClass: string }> = {
  passed: {
    icon: CircleCheck,
    className: "border-emerald-200 bg-emerald-50 text-emerald-800",
    iconClass: "text-emerald-600",
  },
  failed: { icon: CircleX, className: "border-rose-300 bg-rose-50 text-rose-800", iconClass: "text-rose-600" },
  skipped: { icon: CircleMinus, className: "border-slate-200 bg-slate-50 text-slate-600", iconClass: "text-slate-400" },
};

/**
 * The five admission checks as a strip, permission → policy → binding →
 * verification → usage, each passed (green), failed (red) or skipped (grey,
 * after the failure that decided). `compact` shows the icons only, for a
 * table cell; the words stay for screen readers and as a hover hint.
 */
export function AdmissionChecks({ checks, compact = false }: { checks: TAdmission["checks"]; compact?: boolean }) {
  return (
    <ol aria-label="Admission checks" className={cn("flex items-center", compact ? "gap-0.5" : "flex-wrap gap-1")}>
      {CHECK_NAMES.map((name, i) => {
        // The server always reports all five; a missing one was never reached.
        const status = checks.find((c) => c.name === name)?.status ?? "skipped";
        const { icon: Icon, className, iconClass } = CHECK_STYLE[status];
        return (
          <li
            key={name}
            className="flex items-center gap-1"
            title={compact ? `${titleCase(name)}: ${status}` : undefined}
          >
            {i > 0 && !compact ? <ChevronRight aria-hidden="true" className="size-3 text-slate-400" /> : null}
            {compact ? (
              <>
                <Icon aria-hidden="true" className={cn("size-4", iconClass)} />
                <span className="sr-only">
                  {titleCase(name)}: {status}
                </span>
              </>
            ) : (
              <span
                className={cn(
                  "inline-flex items-center gap-1 rounded-md border px-2 py-0.5 text-xs font-medium",
                  className,
                )}
              >
                <Icon aria-hidden="true" className="size-3.5" />
                {titleCase(name)}
                <span className="font-normal opacity-80">{status}</span>
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** Member user id -> email, to name accounts (sessions, accesses, pending requests). */
export function useMemberEmails(ws: string): ReadonlyMap<string, string> {
  const trpc = useTRPC();
  const members = useQuery(trpc.workspaces.members.queryOptions({ ws, limit: 200, order: "asc" }));
  return useMemo(() => new Map((members.data?.items ?? []).map((m) => [m.user_id, m.email])), [members.data]);
}

/** The signed-in user's id (next-auth session), to tell "your" sessions from others'. */
export function useCurrentUserId(): string | undefined {
  const { data } = useSession();
  return (data?.user as { id?: string } | undefined)?.id;
}

/** An account as its email when it is a member, else its id; "you" marks the signed-in user. */
export function AccountLabel({
  id,
  emails,
  me,
}: {
  id: string | null;
  emails: ReadonlyMap<string, string>;
  me?: string;
}) {
  if (!id) return <span className="text-slate-600">Anonymous</span>;
  const email = emails.get(id);
  return (
    <span title={id}>
      {email ?? <code className="font-mono text-xs">{id}</code>}
      {id === me ? <span className="text-slate-600"> (you)</span> : null}
    </span>
  );
}
