import "server-only";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getDb } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { createContextInner, type TPrincipal } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/root";

/**
 * The console's tRPC endpoint (/api/trpc), framework-free: the Next.js route
 * passes the session's principal. The same procedures as /v1; the status of
 * an error is the REST one (trpc/init.ts errorFormatter) and the headers an
 * error needs (Retry-After, WWW-Authenticate) are sent too.
 */
export async function handleTrpc(req: Request, principal: () => Promise<TPrincipal | null>): Promise<Response> {
  await getDb();
  const who = await principal();
  const correlationId = newId("evt");
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () =>
      createContextInner({
        correlationId,
        principal: who,
        transport: "trpc",
        request: { method: req.method, path: new URL(req.url).pathname },
      }),
    responseMeta: ({ errors }) => {
      const headers: Record<string, string> = { "x-correlation-id": correlationId };
      // One failing call of a batch: its headers apply to the whole response.
      if (errors.length === 1 && errors[0]!.cause instanceof AppError) Object.assign(headers, errors[0]!.cause.headers);
      return { headers };
    },
  });
}
