import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import { billingNow } from "./clock.service";
import { issueInvoices } from "./invoices.service";
import { emailUnsent } from "./invoice-delivery.service";
import type { TMonthCloseOutcome, TMonthCloseResult } from "./month-close.contract";
import { renewSubscription } from "./renewals.service";

/**
 * Nothing unbilled (issue #36 item 1; docs/decisions.md "Billing: month close
 * and test clocks"). Closing a month is a job per (workspace, month), a row of
 * `billing_month_closes`: the worker queues one for every month since the
 * workspace's first month that is over for its billing clock and has no job
 * yet (however long the workers were down), claims jobs with a lease (any
 * number of workers; a crashed worker's lease runs out and another takes the
 * job), and marks a job done once the month's invoices are issued. The
 * invoice itself is unique per (workspace, month, currency) and issued under
 * the wallet lock, so a job that runs twice (lease lost mid-run, an operator
 * run racing a worker) issues nothing twice. A job first rolls the
 * subscription forward to the billing clock, so every period that started in
 * the month is on its invoice even when renewal never ran on time.
 */

const LEASE_MS = 5 * 60_000;
const CLAIM_BATCH = 20;
const ENQUEUE_LIMIT = 5000;
const MAX_JOBS_PER_TICK = 500;

export function monthEnd(month: string): Date {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 1));
}

/**
 * Queues the close of every month that is over for each workspace's clock and
 * was never queued, when the month just ended has no job yet (one index probe
 * per workspace otherwise). Returns the jobs queued.
 */
export async function enqueueDueCloses(now = new Date()): Promise<number> {
  // platform-scoped: month close looks at every workspace; each job then runs scoped to its own.
  return db().$executeRaw`
    INSERT INTO billing_month_closes (workspace_id, month, status, created_at)
    SELECT w.id, to_char(m, 'YYYY-MM'), 'pending', ${now}
      FROM workspaces w
      LEFT JOIN billing_test_clocks tc ON tc.workspace_id = w.id
      CROSS JOIN LATERAL (SELECT date_trunc('month', coalesce(tc.frozen_time, ${now}) AT TIME ZONE 'UTC') - interval '1 month' AS last) l
      CROSS JOIN LATERAL generate_series(date_trunc('month', w.created_at AT TIME ZONE 'UTC'), l.last, interval '1 month') AS m
     WHERE NOT EXISTS (SELECT 1 FROM billing_month_closes c WHERE c.workspace_id = w.id AND c.month = to_char(l.last, 'YYYY-MM'))
     LIMIT ${ENQUEUE_LIMIT}
    ON CONFLICT DO NOTHING`;
}

/** Takes the job if nobody holds it and it is not done; the lease is wall-clock time (it guards a worker, not the bill). */
async function claim(workspaceId: string, month: string): Promise<boolean> {
  const n = await scopedDb(workspaceId).$executeRaw`
    UPDATE billing_month_closes SET status = 'running', attempts = attempts + 1, locked_until = now() + ${`${LEASE_MS} milliseconds`}::interval
     WHERE workspace_id = ${workspaceId} AND month = ${month} AND status <> 'done' AND (locked_until IS NULL OR locked_until <= now())`;
  return n === 1;
}

/** Runs a claimed job: renewal up to the clock, the month's invoices, done. Returns the month's invoice ids and how many this run issued. */
async function runClaimed(workspaceId: string, month: string, wall: Date): Promise<{ ids: string[]; issued: number }> {
  const scoped = scopedDb(workspaceId);
  try {
    const now = await billingNow(workspaceId, wall);
    if (monthEnd(month) > now)
      throw new AppError("validation_failed", `${month} is not over yet for this workspace`, {
        reason: "month_not_over",
      });
    await renewSubscription(workspaceId, now);
    const issued = (await issueInvoices(workspaceId, month, now)).length;
    const ids = (await scoped.invoice.findMany({ where: { month }, select: { id: true }, orderBy: { id: "asc" } })).map(
      (i) => i.id,
    );
    await scoped.billingMonthClose.update({
      where: { workspaceId_month: { workspaceId, month } },
      data: { status: "done", invoices: ids.length, closedAt: new Date(), lockedUntil: null, lastError: null },
    });
    // Mail is not transactional: sent after the invoices commit; a failure is recorded on the invoice and retried by a later close run.
    await emailUnsent(workspaceId, month).catch((err) =>
      logger.warn("billing.invoice_email_failed", { workspace_id: workspaceId, month, error: String(err) }),
    );
    return { ids, issued };
  } catch (err) {
    // Back to the queue, retried after a pause that grows with the attempts (at most an hour).
    const row = await scoped.billingMonthClose.findUnique({
      where: { workspaceId_month: { workspaceId, month } },
      select: { attempts: true },
    });
    const pause = Math.min(3_600_000, 30_000 * 2 ** Math.min(10, (row?.attempts ?? 1) - 1));
    await scoped.billingMonthClose.update({
      where: { workspaceId_month: { workspaceId, month } },
      data: { status: "pending", lockedUntil: new Date(Date.now() + pause), lastError: String(err).slice(0, 1000) },
    });
    throw err;
  }
}

/**
 * Worker tick: queue what fell due, then run claimable jobs, oldest month
 * first, until none is left (at most MAX_JOBS_PER_TICK). `now` is the wall
 * clock (workspaces on a test clock use theirs). Returns the invoices issued.
 */
export async function closeDueMonths(now = new Date()): Promise<number> {
  await enqueueDueCloses(now);
  let issued = 0;
  const failed = new Set<string>();
  for (let ran = 0; ran < MAX_JOBS_PER_TICK;) {
    // platform-scoped: the job queue spans every workspace; each claimed job then runs scoped.
    const jobs = await db().$queryRaw<{ workspace_id: string; month: string }[]>`
      SELECT workspace_id, month FROM billing_month_closes
       WHERE status <> 'done' AND (locked_until IS NULL OR locked_until <= now())
       ORDER BY month, workspace_id LIMIT ${CLAIM_BATCH}`;
    const todo = jobs.filter((j) => !failed.has(`${j.workspace_id}|${j.month}`));
    if (todo.length === 0) break;
    for (const job of todo) {
      ran += 1;
      if (!(await claim(job.workspace_id, job.month))) continue; // another worker took it
      try {
        issued += (await runClaimed(job.workspace_id, job.month, now)).issued;
      } catch (err) {
        failed.add(`${job.workspace_id}|${job.month}`);
        logger.error("billing.close_failed", { workspace_id: job.workspace_id, month: job.month, error: String(err) });
      }
    }
  }
  return issued;
}

/** Closes one month of one workspace now (the operator's run); a no-op when it is done. Queues the workspace's earlier months never queued. */
export async function closeWorkspaceMonth(workspaceId: string, month: string): Promise<TMonthCloseOutcome> {
  const scoped = scopedDb(workspaceId);
  const ws = await scoped.workspace.findFirst({ select: { createdAt: true } });
  if (!ws) throw new AppError("not_found", `Workspace ${workspaceId} was not found`);
  const now = await billingNow(workspaceId);
  if (monthEnd(month) > now) {
    throw new AppError("validation_failed", `${month} is not over yet (billing time ${now.toISOString()})`, {
      reason: "month_not_over",
      errors: [{ path: "/month", message: "is not over yet" }],
    });
  }
  await scoped.$executeRaw`
    INSERT INTO billing_month_closes (workspace_id, month, status, created_at)
    SELECT ${workspaceId}, to_char(m, 'YYYY-MM'), 'pending', ${new Date()}
      FROM generate_series(least(date_trunc('month', ${ws.createdAt}::timestamptz AT TIME ZONE 'UTC'), ${`${month}-01`}::timestamp), ${`${month}-01`}::timestamp, interval '1 month') AS m
    ON CONFLICT DO NOTHING`;
  const invoiceIds = async () =>
    (await scoped.invoice.findMany({ where: { month }, select: { id: true }, orderBy: { id: "asc" } })).map(
      (i) => i.id,
    );
  const job = await scoped.billingMonthClose.findUniqueOrThrow({
    where: { workspaceId_month: { workspaceId, month } },
  });
  if (job.status === "done")
    return { workspace_id: workspaceId, status: "already_closed", invoice_ids: await invoiceIds() };
  if (!(await claim(workspaceId, month)))
    return { workspace_id: workspaceId, status: "in_progress", invoice_ids: await invoiceIds() };
  return { workspace_id: workspaceId, status: "closed", invoice_ids: (await runClaimed(workspaceId, month, now)).ids };
}

/**
 * The operator's close (`capstan billing close --month 2026-12`, `POST
 * /v1/platform/billing/closes`): one workspace, or every workspace that
 * existed before the month ended and for whose clock it is over.
 */
export async function closeMonth(month: string, workspaceId?: string): Promise<TMonthCloseResult> {
  if (workspaceId) return { month, workspaces: [await closeWorkspaceMonth(workspaceId, month)] };
  if (monthEnd(month) > new Date()) {
    throw new AppError("validation_failed", `${month} is not over yet`, {
      reason: "month_not_over",
      errors: [{ path: "/month", message: "is not over yet" }],
    });
  }
  // platform-scoped: the operator closes the month of every workspace; each one is closed scoped.
  const all = await db().$queryRaw<{ id: string }[]>`
    SELECT w.id FROM workspaces w LEFT JOIN billing_test_clocks tc ON tc.workspace_id = w.id
     WHERE w.created_at < ${monthEnd(month)} AND coalesce(tc.frozen_time, now()) >= ${monthEnd(month)} ORDER BY w.id`;
  const out: TMonthCloseOutcome[] = [];
  for (const { id } of all) out.push(await closeWorkspaceMonth(id, month));
  return { month, workspaces: out };
}

/** The operator CLI's report of a close: one line per workspace. */
export async function closeMonthReport(month: string, workspaceId?: string): Promise<string> {
  const r = await closeMonth(month, workspaceId);
  const lines = r.workspaces.map(
    (w) => `${w.workspace_id} ${w.status} ${w.invoice_ids.length ? w.invoice_ids.join(",") : "(nothing to bill)"}`,
  );
  return `month ${r.month}: ${r.workspaces.length} workspace(s)\n${lines.map((l) => `  ${l}\n`).join("")}`;
}
