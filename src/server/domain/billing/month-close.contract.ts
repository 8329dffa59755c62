import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zTimestamp } from "@/server/platform/time";

/** Month close (issue #36 item 1; docs/decisions.md "Month close and test clocks"). */
export const zMonth = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, "must be a month YYYY-MM");

export const ZMonthCloseRequest = z
  .strictObject({
    /** The UTC month to close; it must be over (for the workspace's billing clock). */
    month: zMonth,
    /** One workspace; absent: every workspace. */
    workspace_id: zWorkspaceId.optional(),
  })
  .meta({ id: "MonthCloseRequest" });
export type TMonthCloseRequest = z.infer<typeof ZMonthCloseRequest>;

export const ZMonthCloseOutcome = z.object({
  workspace_id: zWorkspaceId,
  /** closed: this call issued the month's invoices (or found nothing to bill); already_closed: a no-op; in_progress: a worker holds the job right now. */
  status: z.enum(["closed", "already_closed", "in_progress"]),
  invoice_ids: z.array(zId("ivc")),
});

export const ZMonthCloseResult = z
  .object({ month: zMonth, workspaces: z.array(ZMonthCloseOutcome) })
  .meta({ id: "MonthCloseResult" });
export type TMonthCloseResult = z.infer<typeof ZMonthCloseResult>;
export type TMonthCloseOutcome = z.infer<typeof ZMonthCloseOutcome>;

export const ZTestClock = z
  .object({
    id: zId("clk"),
    workspace_id: zWorkspaceId,
    /** The time the attached workspace bills at. */
    frozen_time: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "TestClock" });
export type TTestClock = z.infer<typeof ZTestClock>;

export const ZTestClockRequest = z
  .strictObject({ workspace_id: zWorkspaceId, frozen_time: zTimestamp })
  .meta({ id: "TestClockRequest" });
export const ZTestClockAdvance = z.strictObject({ frozen_time: zTimestamp }).meta({ id: "TestClockAdvanceRequest" });
