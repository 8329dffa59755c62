import { currentVersion, onChange, signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import type { AppError } from "@/server/platform/errors";
import { invalidToken, verifyToken } from "@/server/domain/signing-keys/jwt.service";
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

type TTokenRow = { id: string; userId: string; revokedAt: Date | null; lastUsedAt: Date | null; expiresAt: Date };

/**
 * The revocation state of API tokens, cached per process like the Bridge's
 * identities (service-identities/token.service.ts): a revocation is signalled
 * ("api-token") after its commit, so this process sees it at once and every
 * other within the NOTIFY delay; a lost notification is bounded by
 * API_TOKEN_CACHE_MS. Saves a round trip per authenticated /v1 request (the
 * invocation hot path, issue #34 item 3).
 */
export const API_TOKEN_CACHE_MS = 5_000;
const tokens = new Map<string, { at: number; row: TTokenRow | null }>();
onChange("api-token", (id) => (id === null ? tokens.clear() : tokens.delete(id)));

/** Drops the cached state of an API token (on revoke): at once here, within the NOTIFY delay elsewhere. */
export function forgetApiToken(id: string): void {
  signalChange("api-token", id);
}

async function tokenRow(jti: string): Promise<TTokenRow | null> {
  const hit = tokens.get(jti);
  if (hit && Date.now() - hit.at < API_TOKEN_CACHE_MS) return hit.row;
  const version = currentVersion("api-token");
  // platform-scoped: API tokens are a user's (PLATFORM_GLOBAL), found by jti before any workspace is known.
  const row = await db().apiToken.findUnique({
    where: { id: jti },
    select: { id: true, userId: true, revokedAt: true, lastUsedAt: true, expiresAt: true },
  });
  // A read that raced a revocation is not cached (it may predate it).
  if (currentVersion("api-token") === version) {
    if (tokens.size > 10_000) tokens.clear();
    tokens.set(jti, { at: Date.now(), row });
  }
  return row;
}

export async function authenticateControlToken(token: string): Promise<TPrincipal> {
  const claims = await verifyToken(token, "control");
  const row = await tokenRow(claims.jti);
  if (!row || row.userId !== claims.sub) throw invalidToken("revocation check failed: the token is not known");
  if (row.revokedAt) throw invalidToken("revocation check failed: the token has been revoked");
  if (row.expiresAt.getTime() <= Date.now()) throw invalidToken("expiry check failed: the token has expired");
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
    // Coarse and off the request path: last-used is informational.
    // platform-scoped: the same user's token row.
    row.lastUsedAt = new Date(); // the cached row too: one write per granularity, not one per request until the TTL
    void db()
      .apiToken.update({ where: { id: row.id }, data: { lastUsedAt: row.lastUsedAt } })
      .catch(() => undefined);
  }
  return { kind: "user", userId: row.userId, via: { kind: "api_token", tokenId: row.id } };
}
