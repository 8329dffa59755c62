import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { billingNow } from "../clock.service";
import { writeAudit } from "@/server/platform/audit";
import { emitEvent } from "@/server/platform/outbox";
import { invoiceMoney, lockInvoice } from "../invoice-lifecycle.service";
import { inWallet } from "../wallet.service";
import { chargeOrder, checkWorkspace } from "./auto-top-up.service";
import { chargeInvoice, resendCharge } from "./collect.service";
import { onCollectionFailed, standingChanged, type TDunningMail } from "./dunning.service";
import { sendDunningMail } from "./dunning-mail";

/**
 * The `billing-collections` worker loop (docs/decisions.md "Billing:
 * collection and dunning"), every CAPSTAN_BILLING_CLOSE_POLL_MS: charges
 * newly open invoices of workspaces with a default card, runs the dunning
 * steps that fell due (by each workspace's billing clock), starts dunning for
 * invoices past due with nothing to charge, re-sends charges left in flight
 * (same idempotency key), and checks automatic top-ups. Any number of workers:
 * every step is claimed by a conditional write, so a race does a step once.
 */

const STALE_MS = 120_000;
const RETRY_LATER_MS = 3_600_000;
const SYSTEM = { kind: "system" as const, id: null };

async function safely(what: string, ws: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    const reason = err instanceof AppError ? (err.reason ?? err.code) : String(err);
    if (reason !== "collection_in_progress" && reason !== "invoice_not_payable")
      logger.warn("billing.collection_step_failed", {
        what,
        workspace_id: ws,
        reason,
        error: String((err as Error).message ?? err),
      });
  }
}

export async function collectDue(wall = new Date()): Promise<void> {
  // platform-scoped: the worker looks across workspaces for due work; each step then runs scoped to its workspace.
  const sql = db();
  // 1. Charges left in flight (a crash or an outage between claim and answer): the same key again.
  const stale = await sql.invoiceCollection.findMany({
    where: { status: "processing", updatedAt: { lt: new Date(wall.getTime() - STALE_MS) } },
    take: 100,
  });
  for (const c of stale) await safely("resend", c.workspaceId, () => resendCharge(c));
  const staleOrders = await sql.paymentOrder.findMany({
    where: { kind: "auto_top_up", status: "pending", updatedAt: { lt: new Date(wall.getTime() - STALE_MS) } },
    take: 100,
  });
  for (const o of staleOrders) {
    await safely("resend top-up", o.workspaceId, async () => {
      const scoped = scopedDb(o.workspaceId);
      const [acc, pm] = await Promise.all([
        scoped.billingAccount.findFirst(),
        scoped.paymentMethod.findFirst({ where: { id: o.paymentMethodId ?? "" } }),
      ]);
      if (acc?.stripeCustomerId && pm) await chargeOrder(o, acc.stripeCustomerId, pm.gatewayReference, newId("evt"));
    });
  }

  // 2. Newly open invoices of workspaces with a default card and no collection yet: the automatic charge.
  const fresh = await sql.$queryRaw<{ id: string; workspace_id: string }[]>`
    SELECT i.id, i.workspace_id FROM invoices i JOIN billing_accounts a ON a.workspace_id = i.workspace_id
     WHERE i.status = 'open' AND i.amount_due_minor - i.amount_paid_minor - i.credited_minor > 0 AND a.default_payment_method_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM invoice_collections c WHERE c.invoice_id = i.id AND c.method = 'card')
       AND NOT EXISTS (SELECT 1 FROM invoice_dunnings d WHERE d.invoice_id = i.id)
     ORDER BY i.finalized_at LIMIT 100`;
  for (const i of fresh)
    await safely("automatic charge", i.workspace_id, () =>
      chargeInvoice({ actor: SYSTEM, correlationId: newId("evt") }, i.workspace_id, i.id, { trigger: "automatic" }),
    );

  // 3. Dunning steps due (each workspace's billing clock) and invoices past due with nothing to charge.
  const candidates = await sql.$queryRaw<{ invoice_id: string; workspace_id: string; kind: string }[]>`
    SELECT d.invoice_id, d.workspace_id, 'step' AS kind FROM invoice_dunnings d WHERE d.status = 'active' AND d.next_attempt_at IS NOT NULL
    UNION ALL
    SELECT i.id, i.workspace_id, 'overdue' FROM invoices i
     WHERE i.status = 'open' AND i.due_at IS NOT NULL AND i.amount_due_minor - i.amount_paid_minor - i.credited_minor > 0
       AND NOT EXISTS (SELECT 1 FROM invoice_dunnings d WHERE d.invoice_id = i.id)
       AND NOT EXISTS (SELECT 1 FROM billing_accounts a WHERE a.workspace_id = i.workspace_id AND a.default_payment_method_id IS NOT NULL)
    LIMIT 500`;
  for (const c of candidates) {
    const now = await billingNow(c.workspace_id, wall);
    await safely(c.kind, c.workspace_id, () =>
      c.kind === "step" ? runStep(c.workspace_id, c.invoice_id, now) : startOverdue(c.workspace_id, c.invoice_id, now),
    );
  }

  // 4. Automatic top-ups and the low-balance signal.
  const accounts = await sql.billingAccount.findMany({
    where: { autoTopUpThresholdMinor: { not: null } },
    select: { workspaceId: true },
    take: 1000,
  });
  for (const a of accounts) await safely("auto top-up", a.workspaceId, () => checkWorkspace(a.workspaceId));
}

/** A due dunning step, claimed by moving its step forward: a retry of the default card, or (none) a reminder. */
async function runStep(workspaceId: string, invoiceId: string, now: Date): Promise<void> {
  const scoped = scopedDb(workspaceId);
  const d = await scoped.invoiceDunning.findFirst({ where: { invoiceId } });
  if (!d || d.status !== "active" || !d.nextAttemptAt || d.nextAttemptAt > now) return;
  const claimed = await scoped.invoiceDunning.updateMany({
    where: { invoiceId, status: "active", step: d.step, nextAttemptAt: d.nextAttemptAt },
    data: { step: d.step + 1, nextAttemptAt: null, updatedAt: new Date() },
  });
  if (claimed.count !== 1) return;
  const acc = await scoped.billingAccount.findFirst({ select: { defaultPaymentMethodId: true } });
  const correlationId = newId("evt");
  if (acc?.defaultPaymentMethodId) {
    try {
      await chargeInvoice({ actor: SYSTEM, correlationId }, workspaceId, invoiceId, { trigger: "dunning" });
    } catch (err) {
      // Not charged at all (outage, a charge of the owner in flight): the step is given back, tried again later.
      if (err instanceof AppError && err.reason === "invoice_not_payable") return;
      await scoped.invoiceDunning.updateMany({
        where: { invoiceId, status: "active", nextAttemptAt: null },
        data: { step: d.step, nextAttemptAt: new Date(now.getTime() + RETRY_LATER_MS) },
      });
      throw err;
    }
    return;
  }
  await remind(workspaceId, invoiceId, now, correlationId);
}

async function startOverdue(workspaceId: string, invoiceId: string, now: Date): Promise<void> {
  const inv = await scopedDb(workspaceId).invoice.findFirst({ where: { id: invoiceId }, select: { dueAt: true } });
  if (!inv?.dueAt || inv.dueAt > now) return;
  await remind(workspaceId, invoiceId, now, newId("evt"));
}

/** A dunning step with nothing to charge: the failure is the missing payment (audited, evented, emailed). */
async function remind(workspaceId: string, invoiceId: string, now: Date, correlationId: string): Promise<void> {
  let mail: TDunningMail | null = null;
  let changed = false;
  await inWallet(workspaceId, async (tx) => {
    const row = await lockInvoice(tx, workspaceId, invoiceId);
    if (!row || (row.status !== "open" && row.status !== "uncollectible")) return;
    const existing = await tx.invoiceDunning.findFirst({ where: { invoiceId } });
    if (!existing && row.dueAt && row.dueAt > now) return;
    const why = { code: "no_payment_method", message: "the invoice is past due and there is no saved card to charge" };
    const step = await onCollectionFailed(tx, row, now, why, correlationId);
    mail = step.mail;
    changed = step.standingChanged;
    const details = {
      ...invoiceMoney(row),
      method: null,
      trigger: "dunning",
      failure_code: why.code,
      message: why.message,
      next_attempt_at: step.nextAttemptAt?.toISOString() ?? null,
    };
    await writeAudit(tx, {
      workspaceId,
      actor: SYSTEM,
      action: "billing.payment_failed",
      target: { kind: "invoice", id: row.id },
      correlationId,
      details,
    });
    await emitEvent(tx, { workspaceId, type: "invoice.payment_failed", correlationId, subject: row.id, data: details });
  });
  if (mail) await sendDunningMail(mail);
  if (changed) standingChanged(workspaceId);
}
