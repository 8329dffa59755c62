import { db } from "@/server/platform/db/client";
import type { AppError } from "@/server/platform/errors";
import { invalidToken, verifyToken } from "@/server/platform/jwt";
import type { TPrincipal } from "@/server/trpc/context";

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Resolves `Authorization: Bearer <jwt>` (audience `control`) to a principal.
 * Never throws for a bad credential: it returns the 401 error so that public
 * routes still work and authed procedures can rethrow it with its challenge.
 */
export async function authenticateRequest(
  authorization: string | null,
): Promise<{ principal: TPrincipal | null; error?: AppError }> {
  if (authorization === null) return { principal: null };
  const m = /^Bearer ([^\s]+)$/i.exec(authorization.trim());
  if (!m) return { principal: null, error: invalidToken("the Authorization header must be 'Bearer <token>'") };
  try {
    return { principal: await authenticateControlToken(m[1]!) };
  } catch (err) {
    return { principal: null, error: err as AppError };
  }
}

export async function authenticateControlToken(token: string): Promise<TPrincipal> {
  const claims = await verifyToken(token, "control");
  // platform-scoped: API tokens are a user's (PLATFORM_GLOBAL), found by jti before any workspace is known.
  const row = await db().apiToken.findUnique({
    where: { id: claims.jti },
    select: { id: true, userId: true, revokedAt: true, lastUsedAt: true, expiresAt: true },
  });
  if (!row || row.userId !== claims.sub) throw invalidToken("revocation check failed: the token is not known");
  if (row.revokedAt) throw invalidToken("revocation check failed: the token has been revoked");
  if (row.expiresAt.getTime() <= Date.now()) throw invalidToken("expiry check failed: the token has expired");
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
    // Coarse and off the request path: last-used is informational.
    // platform-scoped: the same user's token row.
    void db().apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => undefined);
  }
  return { kind: "user", userId: row.userId, via: { kind: "api_token", tokenId: row.id } };
}
