import "server-only";
import { getServerSession } from "next-auth";
import { authOptions } from "@/server/auth/options";
import type { TPrincipal } from "@/server/trpc/context";

/**
 * The console user behind the next-auth session cookie, or null. Used by the
 * console's tRPC endpoint and by the raw-bytes routes (uploads, evidence)
 * when a request carries no Authorization header. The session cookie is
 * SameSite=Lax, so another site cannot make a browser send it with a POST.
 */
export async function consolePrincipal(): Promise<TPrincipal | null> {
  const session = await getServerSession(authOptions());
  const userId = (session?.user as { id?: string } | undefined)?.id;
  return userId ? { kind: "user", userId, via: { kind: "session" } } : null;
}
