"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RotateCcw } from "lucide-react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatMinor } from "@/server/domain/billing/currencies";
import type { TSubscription } from "@/server/domain/billing/subscriptions.contract";
import { ConfirmAction } from "../shared/confirm-action";
import { formatDate } from "../shared/format";

/** The subscription's state in words: what renews, ends or converts, and when. */
export function subscriptionState(s: TSubscription): {
  chip: string;
  tone: "success" | "info" | "warning" | "neutral";
  words: string;
} {
  if (!s.tier)
    return {
      chip: "No subscription",
      tone: "neutral",
      words: `The workspace is on the ${s.plan} plan without a subscription.`,
    };
  const price =
    s.monthly_price_minor !== null && s.currency ? `${formatMinor(s.monthly_price_minor, s.currency)} a month` : "";
  if (s.cancel_at_period_end && s.cancel_at) {
    return {
      chip: "Cancelling",
      tone: "warning",
      words: `Cancels on ${formatDate(s.cancel_at)}: the subscription to ${s.tier} ends then and the workspace drops to the free plan. Resume before then to keep it.`,
    };
  }
  if (s.status === "trialing" && s.trial_end) {
    return {
      chip: "Trial",
      tone: "info",
      words: `Free trial of ${s.tier} until ${formatDate(s.trial_end)}; then it converts to ${price || "the paid tier"}, or lapses to the free plan without a payment method.`,
    };
  }
  const renews = s.current_period_end ? ` Renews on ${formatDate(s.current_period_end)}` : "";
  const scheduled =
    s.scheduled_tier && s.scheduled_at ? `; changes to ${s.scheduled_tier} on ${formatDate(s.scheduled_at)}` : "";
  return {
    chip: "Active",
    tone: "success",
    words: `Subscribed to ${s.tier}${price ? ` at ${price}` : ""}.${renews}${scheduled}${renews ? "." : ""}`,
  };
}

/**
 * The subscription on the Billing page (docs/decisions.md "Billing: credit
 * notes, subscriptions that end, every metered category priced"): its state in
 * words; the owner cancels at the period's end (resumable until then) or at
 * once, and resumes a scheduled cancellation.
 */
export function SubscriptionCard({ ws, isOwner }: { ws: string; isOwner: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sub = useQuery(trpc.billing.subscriptions.getSubscription.queryOptions({ ws }));
  const refresh = async () => {
    await queryClient.invalidateQueries(trpc.billing.subscriptions.getSubscription.pathFilter());
    await queryClient.invalidateQueries(trpc.billing.invoices.pathFilter());
  };
  const resume = useMutation(trpc.billing.subscriptions.resumeSubscription.mutationOptions({ onSuccess: refresh }));
  const s = sub.data;
  const state = s ? subscriptionState(s) : null;
  return (
    <SectionCard
      title="Subscription"
      description={
        <>
          Cancelling at the period&apos;s end keeps the tier until then; cancelling at once credits the unused time on
          this month&apos;s invoice and drops the workspace to the free plan.
        </>
      }
      contentClassName="space-y-3"
    >
      {sub.error ? <Alert problem={problemOf(sub.error)} /> : null}
      {s && state ? (
        <div className="flex flex-wrap items-center gap-3" aria-label="Subscription state">
          <Badge tone={state.tone}>{state.chip}</Badge>
          <p className="text-sm text-slate-800">{state.words}</p>
        </div>
      ) : null}
      {s?.tier && isOwner ? (
        <div className="flex flex-wrap gap-2">
          {s.cancel_at_period_end ? (
            <Button type="button" disabled={resume.isPending} onClick={() => resume.mutate({ ws })}>
              <RotateCcw aria-hidden="true" />
              Resume subscription
            </Button>
          ) : (
            <ConfirmAction
              mutation={trpc.billing.subscriptions.cancelSubscription.mutationOptions({ onSuccess: refresh })}
              variables={{ ws, when: "period_end" as const }}
              label="Cancel at period end"
              variant="secondary"
              title={`Cancel ${s.tier} at the period's end?`}
              description={
                s.current_period_end
                  ? `The subscription stays in force until ${formatDate(s.current_period_end)} and is not renewed. You can resume it until then.`
                  : "The subscription is not renewed."
              }
              confirmLabel="Cancel at period end"
              pendingLabel="Cancelling…"
              confirmVariant="danger"
            />
          )}
          <ConfirmAction
            mutation={trpc.billing.subscriptions.cancelSubscription.mutationOptions({ onSuccess: refresh })}
            variables={{ ws, when: "immediately" as const }}
            label="Cancel now"
            title={`Cancel ${s.tier} now?`}
            description="The subscription ends at once: the workspace drops to the free plan and the unused time is credited on this month's invoice. This cannot be resumed."
            confirmLabel="Cancel now"
            pendingLabel="Cancelling…"
          />
        </div>
      ) : null}
      {s?.tier && !isOwner ? (
        <p className="text-xs text-slate-600">Only the workspace&apos;s owners cancel or resume the subscription.</p>
      ) : null}
      {resume.error ? <Alert problem={problemOf(resume.error)} /> : null}
    </SectionCard>
  );
}
