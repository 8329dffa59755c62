import type { BillingAccount, Invoice, InvoiceDunning, Prisma } from "@/generated/prisma/client";
import { writeAudit, type TActor } from "@/server/platform/audit";
import { signalChange } from "@/server/platform/change-signals";
import { env } from "@/server/platform/env";
import { emitEvent } from "@/server/platform/outbox";
import { iso } from "@/server/platform/time";
import { formatMinor, remainingMinor } from "../money";
import type { TStanding } from "./collection.contract";

/**
 * Dunning (issue #36 item 4; docs/decisions.md "Billing: collection and
 * dunning"). A failed automatic collection (or an invoice past its due date
 * with no saved method to charge) starts dunning: retries on the written
 * schedule (CAPSTAN_DUNNING_RETRY_DAYS, default 1, 3, 5, 7 days after the
 * first failure, by the workspace's billing clock), an email at each step,
 * then the tier's policy (keep serving, restrict, suspend). Paying or voiding
 * the invoice resolves it and lifts the standing at once. Each step is an
 * audit record and a `dunning.changed` event, in the step's transaction.
 */

type TTx = Prisma.TransactionClient;
const DAY_MS = 86_400_000;
const SYSTEM: TActor = { kind: "system", id: null };
export type TPolicy = "keep_serving" | "restrict" | "suspend";
export type TStandingName = TStanding["standing"];
/** The policy of a tier the platform admin never set: restrict (serving continues, nothing new is started or charged). */
export const DEFAULT_POLICY: TPolicy = "restrict";

export function retryDays(): number[] {
  return env().CAPSTAN_DUNNING_RETRY_DAYS.split(",").map(Number);
}

/** A message for the billing contact, sent after the step's transaction commits (mail is not transactional). */
export type TDunningMail = { workspaceId: string; invoiceId: string; subject: string; lines: string[] };

const STANDING_OF: Record<TPolicy, TStandingName> = {
  keep_serving: "past_due",
  restrict: "restricted",
  suspend: "suspended",
};
const RANK: Record<TStandingName, number> = { good: 0, past_due: 1, restricted: 2, suspended: 3 };

function payLink(workspaceId: string, invoiceId: string): string {
  return `${env().CAPSTAN_PUBLIC_URL}/console/w/${workspaceId}/billing/invoices/${invoiceId}`;
}

async function emitDunning(
  tx: TTx,
  invoice: Invoice,
  d: InvoiceDunning,
  standing: TStandingName,
  correlationId: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await emitEvent(tx, {
    workspaceId: invoice.workspaceId,
    type: "dunning.changed",
    correlationId,
    subject: invoice.id,
    data: {
      invoice_id: invoice.id,
      number: invoice.number,
      status: d.status,
      step: d.step,
      retries: retryDays().length,
      next_attempt_at: d.nextAttemptAt ? iso(d.nextAttemptAt) : null,
      policy: d.policy,
      standing,
      amount_remaining_minor: Number(remainingMinor(invoice)),
      currency: invoice.currency,
      ...extra,
    },
  });
}

/**
 * A collection of `invoice` failed (declined, 3-D Secure required, or nothing
 * to charge) at `now` (billing clock): starts dunning at its first failure,
 * schedules the next retry, or — the schedule spent — applies the tier's
 * policy. Returns the mail for the billing contact.
 */
export async function onCollectionFailed(
  tx: TTx,
  invoice: Invoice,
  now: Date,
  why: { code: string; message: string; actionUrl?: string | null },
  correlationId: string,
): Promise<{ mail: TDunningMail; nextAttemptAt: Date | null; standingChanged: boolean }> {
  const days = retryDays();
  let d = await tx.invoiceDunning.findFirst({ where: { invoiceId: invoice.id } });
  if (!d || d.status === "resolved") {
    d = d
      ? await tx.invoiceDunning.update({
          where: { invoiceId: invoice.id },
          data: {
            status: "active",
            step: 0,
            startedAt: now,
            nextAttemptAt: new Date(now.getTime() + days[0]! * DAY_MS),
            policy: null,
            resolvedAt: null,
            updatedAt: new Date(),
          },
        })
      : await tx.invoiceDunning.create({
          data: {
            invoiceId: invoice.id,
            workspaceId: invoice.workspaceId,
            startedAt: now,
            nextAttemptAt: new Date(now.getTime() + days[0]! * DAY_MS),
          },
        });
  } else if (d.status === "active") {
    const next = d.step < days.length ? new Date(d.startedAt.getTime() + days[d.step]! * DAY_MS) : null;
    d = await tx.invoiceDunning.update({
      where: { invoiceId: invoice.id },
      data: { nextAttemptAt: next, updatedAt: new Date() },
    });
  }
  const amount = formatMinor(Number(remainingMinor(invoice)), invoice.currency);
  const lines = [
    `We could not collect ${amount} for invoice ${invoice.number}: ${why.message}.`,
    ...(why.actionUrl ? [`Your bank asks you to confirm this payment (3-D Secure): ${why.actionUrl}`] : []),
  ];
  let standingChanged = false;
  if (d.status === "active" && !d.nextAttemptAt) {
    // The schedule is spent: the tier's policy.
    const policy = await policyOf(tx);
    d = await tx.invoiceDunning.update({
      where: { invoiceId: invoice.id },
      data: { status: "exhausted", policy, updatedAt: new Date() },
    });
    const standing = await recomputeStanding(tx, invoice.workspaceId, correlationId, invoice);
    standingChanged = standing.changed;
    await writeAudit(tx, {
      workspaceId: invoice.workspaceId,
      actor: SYSTEM,
      action: "billing.adjusted",
      target: { kind: "invoice", id: invoice.id },
      correlationId,
      details: {
        dunning: "exhausted",
        policy,
        standing: standing.standing,
        retries: d.step,
        amount_remaining_minor: Number(remainingMinor(invoice)),
        currency: invoice.currency,
      },
    });
    await emitDunning(tx, invoice, d, standing.standing, correlationId);
    lines.push(`All ${d.step} retries have failed. ${CONSEQUENCE[policy]}`);
  } else {
    const standing = await recomputeStanding(tx, invoice.workspaceId, correlationId, invoice);
    standingChanged = standing.changed;
    await emitDunning(tx, invoice, d, standing.standing, correlationId, { failure_code: why.code });
    if (d.nextAttemptAt)
      lines.push(`We will try again on ${iso(d.nextAttemptAt).slice(0, 10)} (retry ${d.step + 1} of ${days.length}).`);
  }
  lines.push(`Pay it now from the console: ${payLink(invoice.workspaceId, invoice.id)}`);
  return {
    mail: {
      workspaceId: invoice.workspaceId,
      invoiceId: invoice.id,
      subject: `Payment failed for invoice ${invoice.number}: ${amount} due`,
      lines,
    },
    nextAttemptAt: d.nextAttemptAt,
    standingChanged,
  };
}

const CONSEQUENCE: Record<TPolicy, string> = {
  keep_serving: "Your workspace keeps running; the invoice stays due.",
  restrict:
    "Your workspace is restricted until it is paid: new deployments and priced capability calls are refused; running apps keep serving.",
  suspend: "Your workspace is suspended until it is paid: its apps are not served and no capability call is admitted.",
};

/** The policy of the workspace's tier (platform setting), else the default. */
async function policyOf(tx: TTx): Promise<TPolicy> {
  const sub = await tx.subscription.findFirst({ select: { tier: true } });
  if (!sub) return DEFAULT_POLICY;
  // tier_dunning_policies is the platform's (PLATFORM_GLOBAL): raw SQL, read by the tier's key.
  const rows = await tx.$queryRaw<
    { policy: TPolicy }[]
  >`SELECT policy FROM tier_dunning_policies WHERE tier = ${sub.tier}`;
  return rows[0]?.policy ?? DEFAULT_POLICY;
}

/**
 * The standing is the worst of the workspace's dunnings: an exhausted one
 * by its policy, an active one past_due, none good. Written with an audit
 * record and the event when it changes.
 */
export async function recomputeStanding(
  tx: TTx,
  workspaceId: string,
  correlationId: string,
  about: Invoice | null,
): Promise<{ standing: TStandingName; changed: boolean }> {
  const open = await tx.invoiceDunning.findMany({
    where: { status: { in: ["active", "exhausted"] } },
    orderBy: { startedAt: "asc" },
  });
  let standing: TStandingName = "good";
  let invoiceId: string | null = null;
  for (const d of open) {
    const s: TStandingName =
      d.status === "exhausted" ? STANDING_OF[(d.policy ?? DEFAULT_POLICY) as TPolicy] : "past_due";
    if (RANK[s] > RANK[standing]) {
      standing = s;
      invoiceId = d.invoiceId;
    }
  }
  const acc = await tx.billingAccount.upsert({ where: { workspaceId }, create: { workspaceId }, update: {} });
  if (acc.standing === standing && acc.standingInvoiceId === invoiceId) return { standing, changed: false };
  const reason = standing === "good" ? null : await describe(tx, standing, invoiceId);
  await tx.billingAccount.updateMany({
    where: {},
    data: {
      standing,
      standingInvoiceId: invoiceId,
      standingReason: reason,
      standingSince: standing === acc.standing ? acc.standingSince : new Date(),
      updatedAt: new Date(),
    },
  });
  await writeAudit(tx, {
    workspaceId,
    actor: SYSTEM,
    action: "billing.adjusted",
    target: { kind: "workspace", id: workspaceId },
    correlationId,
    details: {
      dunning: standing === "good" ? "lifted" : "standing",
      from: acc.standing,
      to: standing,
      invoice_id: invoiceId,
      because_of: about?.id ?? null,
    },
  });
  return { standing, changed: RANK[standing] !== RANK[acc.standing as TStandingName] };
}

async function describe(tx: TTx, standing: TStandingName, invoiceId: string | null): Promise<string> {
  const inv = invoiceId ? await tx.invoice.findFirst({ where: { id: invoiceId } }) : null;
  const what = inv ? `invoice ${inv.number} (${formatMinor(Number(remainingMinor(inv)), inv.currency)})` : "an invoice";
  if (standing === "past_due") return `${what} is past due; collection is being retried`;
  if (standing === "restricted")
    return `${what} is unpaid after every retry: new deployments and priced capability calls are refused until it is paid`;
  return `${what} is unpaid after every retry: the workspace is suspended until it is paid`;
}

/** The invoice was paid or voided (inside its transition's transaction): its dunning ends and the standing is recomputed. */
export async function resolveIn(tx: TTx, invoice: Invoice, correlationId: string): Promise<boolean> {
  const moved = await tx.invoiceDunning.updateMany({
    where: { invoiceId: invoice.id, status: { in: ["active", "exhausted"] } },
    data: { status: "resolved", nextAttemptAt: null, resolvedAt: new Date(), updatedAt: new Date() },
  });
  if (moved.count === 0) return false;
  const d = await tx.invoiceDunning.findFirstOrThrow({ where: { invoiceId: invoice.id } });
  const standing = await recomputeStanding(tx, invoice.workspaceId, correlationId, invoice);
  await emitDunning(tx, invoice, d, standing.standing, correlationId);
  return true;
}

/** After a commit that may have changed a standing: every process's Bridge and admission caches drop it. */
export function standingChanged(workspaceId: string): void {
  signalChange("plan", workspaceId);
}

export function describeStanding(acc: Pick<BillingAccount, "standing" | "standingReason"> | null): string {
  if (!acc || acc.standing === "good") return "In good standing: nothing is overdue.";
  const head = { past_due: "Past due", restricted: "Restricted", suspended: "Suspended", good: "" }[
    acc.standing as TStandingName
  ];
  return `${head}: ${acc.standingReason ?? "an invoice is unpaid"}.`;
}
