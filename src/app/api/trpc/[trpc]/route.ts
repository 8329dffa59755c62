import { consolePrincipal } from "@/server/auth/console-principal";
import { handleTrpc } from "@/server/http/trpc-handler";

export const dynamic = "force-dynamic";

/** The console's tRPC endpoint: the same procedures as /v1, authenticated by the session cookie. */
async function handler(req: Request): Promise<Response> {
  return handleTrpc(req, consolePrincipal);
}

export { handler as GET, handler as POST };
