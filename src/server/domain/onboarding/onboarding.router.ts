import { z } from "zod";
import { zWorkspaceId } from "@/server/platform/ids";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { ZOnboarding } from "./onboarding.contract";
import { getOnboarding, setOnboardingDismissed } from "./onboarding.service";

/** Console only (no REST route): the workspace's onboarding checklist and the caller's choice to hide it. */
export const onboardingRouter = router({
  get: workspaceProcedure("viewer")
    .output(ZOnboarding)
    .query(({ ctx }) => getOnboarding(ctx.workspace.workspaceId, ctx.principal.userId)),

  setDismissed: workspaceProcedure("viewer")
    .input(z.object({ ws: zWorkspaceId, dismissed: z.boolean() }))
    .mutation(({ ctx, input }) =>
      setOnboardingDismissed(ctx.workspace.workspaceId, ctx.principal.userId, input.dismissed),
    ),
});
