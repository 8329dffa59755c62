import { z } from "zod";
import { router } from "@/server/trpc/init";
import { platformAdminProcedure } from "@/server/trpc/procedures";
import { ZRunnerHost, ZRunnerHostList, ZRunnerHostPath } from "./runners.contract";
import * as hosts from "./runner-hosts-admin.service";
import { startDrain } from "./drain.service";

/** Runner hosts for operators (issue #35 item 4; docs/decisions.md "Operations"). */
const tags = ["Runner hosts"];
const base = "/v1/platform/runner-hosts";
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});

export const runnerHostsRouter = router({
  list: platformAdminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: base,
        tags,
        summary: "Runner hosts with their capacity, load, state, last heartbeat and sandbox (ws_platform owner/admin)",
      },
    })
    .input(z.object({}))
    .output(ZRunnerHostList)
    .query(() => hosts.listRunnerHostViews()),

  cordon: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{host}:cordon`,
        tags,
        summary: "Place nothing new on this host; its apps keep running (idempotent, audited)",
      },
    })
    .input(ZRunnerHostPath)
    .output(ZRunnerHost)
    .mutation(({ ctx, input }) => hosts.setCordon(caller(ctx), input.host, true)),

  uncordon: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{host}:uncordon`,
        tags,
        summary: "Let the host take new deployments again (idempotent, audited)",
      },
    })
    .input(ZRunnerHostPath)
    .output(ZRunnerHost)
    .mutation(({ ctx, input }) => hosts.setCordon(caller(ctx), input.host, false)),

  drain: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/{host}:drain`,
        tags,
        summary:
          "Cordon the host and replace its deployments on other hosts one by one, each new one active before the old one stops (idempotent, audited; 409 for a lost host)",
      },
      successStatus: 202,
    })
    .input(ZRunnerHostPath)
    .output(ZRunnerHost)
    .mutation(({ ctx, input }) => startDrain(caller(ctx), input.host)),
});
