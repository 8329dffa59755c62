import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { consolePrincipal } from "@/server/auth/console-principal";
import { getDb } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { createContextInner } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/root";

export const dynamic = "force-dynamic";

/** The console's tRPC endpoint: the same procedures as /v1, authenticated by the session cookie. */
async function handler(req: Request): Promise<Response> {
  await getDb();
  const principal = await consolePrincipal();
  const correlationId = newId("evt");
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () =>
      createContextInner({
        correlationId,
        principal,
        transport: "trpc",
        request: { method: req.method, path: new URL(req.url).pathname },
      }),
    responseMeta: () => ({ headers: { "x-correlation-id": correlationId } }),
  });
}

export { handler as GET, handler as POST };
