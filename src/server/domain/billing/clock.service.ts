import type { BillingTestClock } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { iso } from "@/server/platform/time";
import type { TTestClock } from "./month-close.contract";

/**
 * Billing time (docs/decisions.md "Month close and test clocks").
 * Every billing decision that depends on "now" (a subscription's period
 * start, renewal, which months are over) asks `billingNow(ws)`. A workspace
 * attached to a test clock (Stripe's test clocks: created frozen at a time,
 * moved forward by an API call, never backward) bills at the clock's time;
 * every other workspace at the wall clock. Nothing patches Date: the clock is
 * a row the workers read like any other. Test clocks exist only where
 * CAPSTAN_TEST_CLOCKS is on.
 */

type TCaller = { userId: string; correlationId: string };

function toClock(c: BillingTestClock): TTestClock {
  return {
    id: c.id,
    workspace_id: c.workspaceId,
    frozen_time: iso(c.frozenTime),
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
  };
}

/** The time billing runs at for this workspace: its test clock's frozen time, or the wall clock (`wall`). */
export async function billingNow(workspaceId: string, wall = new Date()): Promise<Date> {
  const clock = await scopedDb(workspaceId).billingTestClock.findFirst({ select: { frozenTime: true } });
  return clock?.frozenTime ?? wall;
}

function assertEnabled(): void {
  if (!env().CAPSTAN_TEST_CLOCKS) {
    throw new AppError("not_found", "Test clocks are off on this platform (CAPSTAN_TEST_CLOCKS)", {
      reason: "test_clocks_disabled",
    });
  }
}

/**
 * Attaches a new test clock to a workspace that has no billing history yet
 * (no subscription, no invoice): its billing then runs at `frozen_time`.
 */
export async function createTestClock(caller: TCaller, workspaceId: string, frozenTime: Date): Promise<TTestClock> {
  assertEnabled();
  const scoped = scopedDb(workspaceId);
  if (!(await scoped.workspace.findFirst({ select: { id: true } }))) throw notFound(`Workspace ${workspaceId}`);
  return scoped.$transaction(async (tx) => {
    const [clock, sub, invoice] = await Promise.all([
      tx.billingTestClock.findFirst({ select: { id: true } }),
      tx.subscription.findFirst({ select: { tier: true } }),
      tx.invoice.findFirst({ select: { id: true } }),
    ]);
    if (clock)
      throw new AppError("conflict", `Workspace ${workspaceId} already has test clock ${clock.id}`, {
        reason: "test_clock_exists",
      });
    if (sub || invoice)
      throw new AppError(
        "conflict",
        "A test clock can only be attached to a workspace with no subscription and no invoice yet",
        { reason: "billing_history_exists" },
      );
    const now = new Date();
    const row = await tx.billingTestClock.create({
      data: { id: newId("clk"), workspaceId, frozenTime, createdAt: now, updatedAt: now },
    });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "billing.adjusted",
      target: { kind: "test_clock", id: row.id },
      correlationId: caller.correlationId,
      details: { test_clock: "created", frozen_time: iso(frozenTime) },
    });
    return toClock(row);
  });
}

async function findClock(clockId: string): Promise<BillingTestClock> {
  // platform-scoped: a clock is addressed by its own id by the platform operator; the workspace is read from it.
  const row = await db().billingTestClock.findUnique({ where: { id: clockId } });
  if (!row) throw notFound(`Test clock ${clockId}`);
  return row;
}

export async function getTestClock(clockId: string): Promise<TTestClock> {
  assertEnabled();
  return toClock(await findClock(clockId));
}

/** Moves a test clock forward (never back: billing already done at a later time cannot be undone). The workers bill what fell due. */
export async function advanceTestClock(caller: TCaller, clockId: string, frozenTime: Date): Promise<TTestClock> {
  assertEnabled();
  const found = await findClock(clockId);
  return scopedDb(found.workspaceId).$transaction(async (tx) => {
    const moved = await tx.billingTestClock.updateMany({
      where: { id: clockId, frozenTime: { lte: frozenTime } },
      data: { frozenTime, updatedAt: new Date() },
    });
    if (moved.count === 0) {
      throw new AppError("validation_failed", "A test clock only moves forward", {
        reason: "clock_backwards",
        errors: [{ path: "/frozen_time", message: "is before the clock's time" }],
      });
    }
    await writeAudit(tx, {
      workspaceId: found.workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "billing.adjusted",
      target: { kind: "test_clock", id: clockId },
      correlationId: caller.correlationId,
      details: { test_clock: "advanced", from: iso(found.frozenTime), to: iso(frozenTime) },
    });
    return toClock(await tx.billingTestClock.findFirstOrThrow({ where: { id: clockId } }));
  });
}
