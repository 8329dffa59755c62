import type { Prisma, Subscription } from "@/generated/prisma/client";
import { writeAudit, type TActor } from "@/server/platform/audit";
import { emitEvent } from "@/server/platform/outbox";
import { iso, isoOrNull } from "@/server/platform/time";
import { toWire } from "./money";

/**
 * Every change of a workspace's subscription is one audit record
 * (`billing.subscription_changed`, the spec's action) and one
 * `subscription.changed` event (issue #36 item 6), written in the change's
 * own transaction. `change` names what happened; `subscription` is the row
 * after it (null: the subscription ended).
 */
export type TSubscriptionChange =
  | "created"
  | "trial_started"
  | "upgraded"
  | "downgrade_scheduled"
  | "scheduled_change_cancelled"
  | "trial_tier_changed"
  | "cancel_scheduled"
  | "resumed"
  | "canceled"
  | "renewed"
  | "trial_converted"
  | "trial_lapsed"
  | "ended";

export function subscriptionSnapshot(s: Subscription | null): Record<string, unknown> {
  if (!s)
    return {
      status: "ended",
      tier: null,
      currency: null,
      monthly_price_minor: null,
      current_period_start: null,
      current_period_end: null,
      cancel_at_period_end: false,
      trial_end: null,
    };
  return {
    status: s.status,
    tier: s.tier,
    currency: s.currency,
    monthly_price_minor: toWire(s.monthlyPriceMinor),
    current_period_start: iso(s.currentPeriodStart),
    current_period_end: iso(s.currentPeriodEnd),
    cancel_at_period_end: s.cancelAtPeriodEnd,
    trial_end: s.status === "trialing" ? isoOrNull(s.trialEnd) : null,
    scheduled_tier: s.scheduledTier,
  };
}

export async function recordSubscriptionChange(
  tx: Prisma.TransactionClient,
  c: {
    workspaceId: string;
    actor: TActor;
    correlationId: string;
    change: TSubscriptionChange;
    subscription: Subscription | null;
    details: Record<string, unknown>;
  },
): Promise<void> {
  await writeAudit(tx, {
    workspaceId: c.workspaceId,
    actor: c.actor,
    action: "billing.subscription_changed",
    target: { kind: "subscription", id: c.workspaceId },
    correlationId: c.correlationId,
    details: { change: c.change, ...c.details },
  });
  await emitEvent(tx, {
    workspaceId: c.workspaceId,
    type: "subscription.changed",
    correlationId: c.correlationId,
    subject: c.workspaceId,
    data: {
      workspace_id: c.workspaceId,
      change: c.change,
      ...c.details,
      subscription: subscriptionSnapshot(c.subscription),
    },
  });
}
