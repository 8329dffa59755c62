import { z } from "zod";
import { zId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { platformAdminProcedure } from "@/server/trpc/procedures";
import * as clocks from "./clock.service";
import {
  ZMonthCloseRequest,
  ZMonthCloseResult,
  ZTestClock,
  ZTestClockAdvance,
  ZTestClockRequest,
} from "./month-close.contract";
import * as closes from "./month-close.service";

/** Month close and test clocks (issue #36 item 1; docs/decisions.md "Month close and test clocks"). */
const tags = ["Billing"];
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const monthCloseRouter = router({
  close: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/billing/closes",
        tags,
        summary:
          "Close a month now: issue its invoices for one workspace or every workspace; a no-op where it is closed (ws_platform owner/admin)",
      },
    })
    .input(ZMonthCloseRequest)
    .output(ZMonthCloseResult)
    .mutation(({ input }) => closes.closeMonth(input.month, input.workspace_id)),

  createTestClock: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/billing/test-clocks",
        tags,
        summary:
          "Attach a test clock to a workspace with no billing history: it bills at the clock's time (CAPSTAN_TEST_CLOCKS; ws_platform owner/admin)",
      },
      successStatus: 201,
    })
    .input(ZTestClockRequest)
    .output(ZTestClock)
    .mutation(({ ctx, input }) => clocks.createTestClock(caller(ctx), input.workspace_id, new Date(input.frozen_time))),

  getTestClock: platformAdminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/platform/billing/test-clocks/{clk}",
        tags,
        summary: "A test clock (CAPSTAN_TEST_CLOCKS; ws_platform owner/admin)",
      },
    })
    .input(z.object({ clk: zId("clk") }))
    .output(ZTestClock)
    .query(({ input }) => clocks.getTestClock(input.clk)),

  advanceTestClock: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/billing/test-clocks/{clk}:advance",
        tags,
        summary:
          "Move a test clock forward; the workers bill what fell due (CAPSTAN_TEST_CLOCKS; ws_platform owner/admin)",
      },
    })
    .input(ZTestClockAdvance.extend({ clk: zId("clk") }))
    .output(ZTestClock)
    .mutation(({ ctx, input }) => clocks.advanceTestClock(caller(ctx), input.clk, new Date(input.frozen_time))),
});
