import { z } from "zod";
import { zId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { authedProcedure, platformAdminProcedure } from "@/server/trpc/procedures";
import { createApiToken, listApiTokens, revokeApiToken } from "./tokens.service";
import { createUser } from "./users.service";

const ZUser = z
  .object({ id: zId("usr"), email: z.string(), name: z.string(), created_at: z.string() })
  .meta({ id: "User" });

export const identityRouter = router({
  /** Personal API tokens: console and tRPC only (a token cannot mint tokens over REST). */
  tokens: router({
    list: authedProcedure.query(({ ctx }) => listApiTokens(ctx.principal.userId)),
    create: authedProcedure
      .input(
        z.strictObject({
          name: z.string().trim().min(1).max(100),
          ttl_seconds: z
            .number()
            .int()
            .min(60)
            .max(365 * 24 * 3600),
        }),
      )
      .mutation(({ ctx, input }) => createApiToken(ctx.principal.userId, input.name, input.ttl_seconds)),
    revoke: authedProcedure
      .input(z.strictObject({ id: zId("tok") }))
      .mutation(({ ctx, input }) => revokeApiToken(ctx.principal.userId, input.id)),
  }),

  createUser: platformAdminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/platform/users",
        tags: ["Platform"],
        summary: "Create a user (platform admins)",
      },
      successStatus: 201,
    })
    .input(
      z.strictObject({
        email: z.string().trim().toLowerCase().email().max(254),
        name: z.string().trim().min(1).max(100),
        password: z.string().min(12).max(256),
      }),
    )
    .output(ZUser)
    .mutation(({ ctx, input }) =>
      createUser({ userId: ctx.principal.userId, correlationId: ctx.correlationId }, input),
    ),
});
