import { writeAudit } from "@/server/platform/audit";
import { onChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { iso, isoOrNull } from "@/server/platform/time";
import { toWire, type TCurrency, remainingMinor } from "../money";
import type { TDunningPolicy, TStanding } from "./collection.contract";
import { DEFAULT_POLICY, describeStanding, retryDays, type TPolicy, type TStandingName } from "./dunning.service";

/**
 * What a workspace's dunning standing allows (docs/decisions.md "Billing:
 * collection and dunning"): restricted → no new deployments and no priced
 * Bridge call; suspended → no deployment, no Bridge call, no invocation of its
 * apps. Read on the hot path through a per-process cache (5 s, dropped by the
 * `plan` change signal every standing change sends after its commit).
 */

type TCaller = { userId: string; correlationId: string };
const TTL_MS = 5_000;
const cache = new Map<string, { at: number; standing: TStandingName; reason: string | null }>();
onChange("plan", (id) => (id === null ? cache.clear() : cache.delete(id)));

export async function standingOf(workspaceId: string): Promise<{ standing: TStandingName; reason: string | null }> {
  const hit = cache.get(workspaceId);
  if (hit && Date.now() - hit.at < TTL_MS) return hit;
  // Bridge hot path (cached): one keyed read of the workspace's own row.
  const row = await scopedDb(workspaceId).billingAccount.findFirst({
    select: { standing: true, standingReason: true },
  });
  const v = {
    at: Date.now(),
    standing: (row?.standing ?? "good") as TStandingName,
    reason: row?.standingReason ?? null,
  };
  cache.set(workspaceId, v);
  return v;
}

/** Why a restricted or suspended workspace may not do `what`, in words; null when it may. */
export async function refusal(
  workspaceId: string,
  what: "deploy" | "priced_call" | "any_call",
): Promise<string | null> {
  const s = await standingOf(workspaceId);
  const blocked = s.standing === "suspended" || (s.standing === "restricted" && what !== "any_call");
  if (!blocked) return null;
  const head =
    s.standing === "suspended"
      ? "the workspace is suspended for non-payment"
      : "the workspace is restricted for non-payment";
  return `${head}: ${s.reason ?? "an invoice is unpaid"}; pay it on the Billing page to lift this at once`;
}

/** New deployments of a restricted or suspended workspace are refused (403 billing_restricted) with the reason in words. */
export async function assertMayDeploy(workspaceId: string): Promise<void> {
  const why = await refusal(workspaceId, "deploy");
  if (why) throw new AppError("forbidden", `No new deployments: ${why}`, { reason: "billing_restricted" });
}

export async function getStanding(workspaceId: string): Promise<TStanding> {
  const scoped = scopedDb(workspaceId);
  if (!(await scoped.workspace.findFirst({ select: { id: true } }))) throw notFound(`Workspace ${workspaceId}`);
  const acc = await scoped.billingAccount.findFirst();
  const dunnings = await scoped.invoiceDunning.findMany({
    where: { status: { in: ["active", "exhausted"] } },
    orderBy: { startedAt: "asc" },
    take: 50,
  });
  const invoices = new Map(
    (await scoped.invoice.findMany({ where: { id: { in: dunnings.map((d) => d.invoiceId) } } })).map((i) => [i.id, i]),
  );
  return {
    workspace_id: workspaceId,
    standing: (acc?.standing ?? "good") as TStandingName,
    description: describeStanding(acc),
    invoice_id: acc?.standingInvoiceId ?? null,
    since: isoOrNull(acc?.standingSince ?? null),
    dunning: dunnings.map((d) => {
      const inv = invoices.get(d.invoiceId)!;
      return {
        invoice_id: d.invoiceId,
        number: inv.number,
        status: d.status as "active" | "exhausted",
        step: d.step,
        retries: retryDays().length,
        next_attempt_at: isoOrNull(d.nextAttemptAt),
        started_at: iso(d.startedAt),
        policy: d.policy as TPolicy | null,
        amount_remaining_minor: toWire(remainingMinor(inv)),
        currency: inv.currency as TCurrency,
      };
    }),
  };
}

export async function getPolicy(tier: string): Promise<TDunningPolicy> {
  // platform-scoped: the dunning policy is the platform's, per tier (PLATFORM_GLOBAL).
  const t = await db().subscriptionTier.findUnique({ where: { tier }, select: { tier: true } });
  if (!t) throw notFound(`Subscription tier ${tier}`);
  // platform-scoped: as above.
  const row = await db().tierDunningPolicy.findUnique({ where: { tier } });
  return {
    tier,
    policy: (row?.policy ?? DEFAULT_POLICY) as TPolicy,
    retry_days: retryDays(),
    updated_at: isoOrNull(row?.updatedAt ?? null),
  };
}

/** Sets a tier's dunning policy (ws_platform owner/admin), audited on ws_platform like the tier itself. Applies to dunnings exhausted from now on. */
export async function putPolicy(caller: TCaller, tier: string, policy: TPolicy): Promise<TDunningPolicy> {
  const before = await getPolicy(tier);
  const now = new Date();
  // platform-scoped: the platform's table; the audit goes to ws_platform.
  await db().$transaction(async (tx) => {
    await tx.tierDunningPolicy.upsert({
      where: { tier },
      create: { tier, policy, updatedBy: caller.userId, updatedAt: now },
      update: { policy, updatedBy: caller.userId, updatedAt: now },
    });
    await writeAudit(tx, {
      workspaceId: "ws_platform",
      actor: { kind: "user", id: caller.userId },
      action: "billing.tier_changed",
      target: { kind: "subscription_tier", id: tier },
      correlationId: caller.correlationId,
      details: { dunning_policy: { from: before.policy, to: policy } },
    });
  });
  return getPolicy(tier);
}
