import { refusal as billingRefusal } from "@/server/domain/billing/collection/standing.service";
import type { Access, Deployment, Session, Surface } from "@/generated/prisma/client";
import { entriesWithoutReadyBinding, providerOrder } from "@/server/domain/credentials/binding-reads.service";
import { revisionContract } from "@/server/domain/source/contract-reads.service";
import { workspacePlan } from "@/server/domain/usage/plan-reads.service";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { resetLocalLimits, takeShared } from "@/server/platform/shared-rate-limit";
import { PLAN_ENTITLEMENTS } from "@/server/domain/usage/plan.service";
import { admitUsage, type TTicket } from "@/server/domain/usage/leases.service";
import { flatHold } from "@/server/domain/billing/prepaid.service";
import type { TRole } from "@/server/domain/identity/workspace-access.service";
import { AUDIENCE_WORDS, roleAdmitted, type TAudience } from "@/server/domain/deployments/surface-audience";
import { CHECK_NAMES, type TAdmission, type TAdmissionReason } from "./sessions.contract";

/**
 * The five admission checks of an invocation, in order; the first failure
 * decides (later checks `skipped`); what each checks is written down in
 * docs/decisions.md ("Sessions and invocations"):
 *  - permission: the access is neither revoked nor expired, the caller is
 *    the session's account and still a member, and in the audience of the
 *    release the deployment serves (if any); a viewer's mutating request
 *    (POST, PUT, PATCH, DELETE) waits for an owner/admin (pending_consent);
 *  - policy: the surface is active and unexpired, its deployment active,
 *    and the isolation policy still allows it to serve (production on an
 *    unenforced runner needs CAPSTAN_ALLOW_UNENFORCED_PRODUCTION now);
 *  - binding: every `required` capability of the deployed revision's
 *    contract that a workspace provider serves has a ready binding;
 *  - verification: a production deployment needs a verified custom domain
 *    of its product routing to the production environment (read live, so a
 *    domain failing its re-check stops admitting at once);
 *  - usage: the plan entitles `runtime`, the session's rate limit
 *    (CAPSTAN_SESSION_RATE_PER_SEC / _BURST, rate_limited) and the monthly
 *    `runtime` budget: the invocation's deadline in ms is reserved
 *    atomically (as the Bridge does) and settled to the measured duration.
 */
export type TCheck = TAdmission["checks"][number];
export type TDecision = {
  outcome: "admitted" | "denied" | "pending";
  reason: TAdmissionReason;
  checks: TCheck[];
  message: string;
  /** The runtime reservation (a lease draw or a per-call reservation) an admitted invocation holds until its execution is recorded. */
  ticket: TTicket | null;
};

export type TAdmissionInput = {
  callerId: string;
  role: TRole | null;
  method: string;
  session: Session;
  access: Access;
  surface: Surface;
  deployment: Deployment;
  /** The audience of the release the deployment serves, when the caller read it already (null: none; absent: read here). */
  release?: { audience: unknown } | null;
  /** The invocation being decided (its runtime draw is journaled under this id). */
  invocationId: string;
  /** An owner/admin approved this invocation (pending_consent resolved). */
  consented?: boolean;
};

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

type TStep = { reason: TAdmissionReason; message: string; pending?: boolean } | null;

async function permission(i: TAdmissionInput): Promise<TStep> {
  if (i.access.revokedAt)
    return {
      reason: "permission_denied",
      message: "The session's access was revoked; ask an owner or admin, then open a new session.",
    };
  if (i.access.expiresAt <= new Date())
    return {
      reason: "permission_denied",
      message: "The session's access has expired; open a new session (POST /v1/sessions).",
    };
  if (!i.role) return { reason: "permission_denied", message: "You are no longer a member of this workspace." };
  if (i.session.accountId !== i.callerId)
    return {
      reason: "permission_denied",
      message: "Only the session's own account may send invocations through it; open your own session.",
    };
  if (i.deployment.releaseId) {
    // The release's audience (surface-audience.ts): internal needs a developer or above.
    const rel =
      i.release !== undefined
        ? i.release
        : await scopedDb(i.deployment.workspaceId).release.findUnique({
            where: { id: i.deployment.releaseId },
            select: { audience: true },
          });
    const kind = (rel?.audience as { kind?: TAudience } | null)?.kind;
    if (kind && !roleAdmitted(kind, i.role))
      return {
        reason: "permission_denied",
        message: `This release is for ${AUDIENCE_WORDS[kind]}; a ${i.role} is not in its audience.`,
      };
  }
  if (i.role === "viewer" && MUTATING.has(i.method) && !i.consented) {
    return {
      reason: "pending_consent",
      pending: true,
      message: `A viewer's ${i.method} request waits for an owner or admin to approve it (pending operations).`,
    };
  }
  return null;
}

async function policy(i: TAdmissionInput): Promise<TStep> {
  if (i.surface.status !== "active" || i.surface.expiresAt <= new Date())
    return {
      reason: "policy_blocked",
      message: `The surface is ${i.surface.status}; deploy again to get an active one.`,
    };
  if (i.deployment.status !== "active")
    return { reason: "policy_blocked", message: `The deployment is ${i.deployment.status}; deploy again.` };
  const isolation = i.deployment.isolation as { enforced?: boolean } | null;
  if (
    i.deployment.environmentType === "production" &&
    !isolation?.enforced &&
    !env().CAPSTAN_ALLOW_UNENFORCED_PRODUCTION
  ) {
    return {
      reason: "policy_blocked",
      message:
        "Production runs without the isolated-vm profile are no longer allowed by the operator (CAPSTAN_ALLOW_UNENFORCED_PRODUCTION is off).",
    };
  }
  return null;
}

async function binding(i: TAdmissionInput): Promise<TStep> {
  const contract = await revisionContract(i.deployment.revisionId);
  const needed = (contract?.capabilities ?? []).filter((c) => c.required && c.credential_owner === "workspace");
  if (!needed.length) return null;
  // The Bridge's own resolution (binding-reads.service): the same provider order, the same cached reads.
  const missing = await entriesWithoutReadyBinding(i.deployment.workspaceId, needed);
  if (!missing.length) return null;
  return {
    reason: "binding_unavailable",
    message: `The app requires ${missing.map((c) => `${c.id} (${providerOrder(c).join(" or ")})`).join(", ")} but the workspace has no ready binding for it; an admin adds one under Provider bindings.`,
  };
}

async function verification(i: TAdmissionInput): Promise<TStep> {
  if (i.deployment.environmentType !== "production") return null;
  // Read live (no cache): a domain the re-check worker fails stops admitting at once, so the bound is
  // CAPSTAN_DOMAIN_RECHECK_SECONDS plus one worker poll (docs/decisions.md "Production path").
  const domains = await scopedDb(i.deployment.workspaceId).domain.findMany({
    where: { productId: i.deployment.productId, environmentType: "production", status: { not: "released" } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { hostname: true, status: true, failureMessage: true },
  });
  if (domains.some((d) => d.status === "verified")) return null;
  const first = domains[0];
  const message = !first
    ? `Production serves invocations once product ${i.deployment.productId} has a verified custom domain for its production environment: an owner or admin adds one under Domains, publishes its TXT and routing records and verifies it.`
    : first.status === "failed"
      ? `The product's production domain ${first.hostname} failed its DNS check${first.failureMessage ? ` (${first.failureMessage})` : ""}; fix its records and verify it again under Domains.`
      : `The product's production domain ${first.hostname} is not verified yet: publish its TXT and routing records, then verify it under Domains.`;
  return { reason: "verification_blocked", message };
}

async function usage(i: TAdmissionInput, holder: { ticket: TTicket | null }): Promise<TStep> {
  const e = env();
  // A workspace suspended for non-payment serves nothing (docs/decisions.md "Billing: collection and dunning").
  const unpaid = await billingRefusal(i.session.workspaceId, "any_call");
  if (unpaid) return { reason: "usage_denied", message: `${unpaid.charAt(0).toUpperCase()}${unpaid.slice(1)}.` };
  if (!PLAN_ENTITLEMENTS[await workspacePlan(i.session.workspaceId)].runtime) {
    return { reason: "usage_denied", message: "The workspace's plan does not include runtime; change the plan." };
  }
  // Per process, or shared by every replica through Redis (CAPSTAN_REDIS_URL).
  const wait = await takeShared("session", i.session.id, {
    rate: e.CAPSTAN_SESSION_RATE_PER_SEC,
    burst: e.CAPSTAN_SESSION_BURST,
  });
  if (wait > 0) return { reason: "rate_limited", message: `Too many invocations in this session; retry in ${wait} s.` };
  // A prepaid workspace is admitted only while its wallet is above zero (held in the reservation's statement).
  // Drawn from this process's runtime lease and journaled (one commit per invocation: leases.service.ts).
  const reserved = await admitUsage(i.session.workspaceId, "runtime", e.CAPSTAN_INVOCATION_TIMEOUT_MS, {
    bindingIds: [],
    invocationId: i.invocationId,
    hold: await flatHold(i.session.workspaceId),
  });
  if (!reserved.ok && reserved.why === "wallet")
    return { reason: "usage_denied", message: "The workspace's prepaid wallet is empty; top up the wallet." };
  if (!reserved.ok)
    return {
      reason: "usage_denied",
      message:
        "This month's runtime budget cannot cover another invocation; raise the runtime budget or wait for next month.",
    };
  holder.ticket = reserved.ticket;
  return null;
}

const STEPS = { permission, policy, binding, verification } as const;

export async function admit(i: TAdmissionInput): Promise<TDecision> {
  const checks: TCheck[] = [];
  const holder = { ticket: null as TTicket | null };
  for (const name of CHECK_NAMES) {
    const failed = name === "usage" ? await usage(i, holder) : await STEPS[name](i);
    if (failed) {
      checks.push({ name, status: "failed" });
      for (const rest of CHECK_NAMES.slice(CHECK_NAMES.indexOf(name) + 1))
        checks.push({ name: rest, status: "skipped" });
      return {
        outcome: failed.pending ? "pending" : "denied",
        reason: failed.reason,
        checks,
        message: failed.message.slice(0, 512),
        ticket: null,
      };
    }
    checks.push({ name, status: "passed" });
  }
  return {
    outcome: "admitted",
    reason: "admitted",
    checks,
    message: "Admitted: every check passed.",
    ticket: holder.ticket,
  };
}

export function resetSessionRateLimits(): void {
  resetLocalLimits();
}
