import { identityRouter } from "@/server/domain/identity/identity.router";
import { usageRouter } from "@/server/domain/usage/usage.router";
import { workspacesRouter } from "@/server/domain/workspaces/workspaces.router";
import { webhooksRouter } from "@/server/domain/webhooks/webhooks.router";
import { router } from "./init";

export const appRouter = router({
  identity: identityRouter,
  workspaces: workspacesRouter,
  usage: usageRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;
