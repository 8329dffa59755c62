import type { ApiToken } from "@/generated/prisma/client";
import { forgetApiToken } from "./authenticate";
import { db } from "@/server/platform/db/client";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { signToken } from "@/server/domain/signing-keys/jwt.service";
import { iso, isoOrNull } from "@/server/platform/time";

/** Personal API tokens: JWTs with audience `control`; the row (jti) makes them revocable. */
export const MAX_TOKEN_TTL_SECONDS = 365 * 24 * 3600;

export type TApiTokenView = {
  id: string;
  name: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
};

function toView(t: ApiToken): TApiTokenView {
  return {
    id: t.id,
    name: t.name,
    expires_at: iso(t.expiresAt),
    revoked_at: isoOrNull(t.revokedAt),
    last_used_at: isoOrNull(t.lastUsedAt),
    created_at: iso(t.createdAt),
  };
}

/** Creates a token; the JWT is returned only here, never again. */
export async function createApiToken(
  userId: string,
  name: string,
  ttlSeconds: number,
): Promise<TApiTokenView & { token: string }> {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 60 || ttlSeconds > MAX_TOKEN_TTL_SECONDS) {
    throw new AppError("validation_failed", `ttl must be between 60 seconds and ${MAX_TOKEN_TTL_SECONDS} seconds`, {
      errors: [{ path: "/ttl_seconds", message: "out of range" }],
    });
  }
  const id = newId("tok");
  const { token, expiresAt } = await signToken({ audience: "control", subject: userId, jti: id, ttlSeconds });
  // platform-scoped: API tokens and users belong to no workspace (PLATFORM_GLOBAL).
  const row = await db().apiToken.create({ data: { id, userId, name, expiresAt } });
  return { ...toView(row), token };
}

export async function listApiTokens(userId: string): Promise<TApiTokenView[]> {
  // platform-scoped: API tokens and users belong to no workspace (PLATFORM_GLOBAL).
  const rows = await db().apiToken.findMany({
    where: { userId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 200,
  });
  return rows.map(toView);
}

export async function revokeApiToken(userId: string, tokenId: string): Promise<TApiTokenView> {
  // platform-scoped: API tokens and users belong to no workspace (PLATFORM_GLOBAL).
  const row = await db().apiToken.findUnique({ where: { id: tokenId } });
  if (!row || row.userId !== userId) throw notFound(`API token ${tokenId}`);
  const updated = row.revokedAt
    ? row
    : // platform-scoped: the same token row (PLATFORM_GLOBAL).
      await db().apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
  forgetApiToken(tokenId); // the authentication caches of every process (authenticate.ts)
  return toView(updated);
}

/** Operator CLI: a token for an existing user, straight from the database. */
export async function issueTokenForEmail(email: string, ttlSeconds: number, name = "cli"): Promise<string> {
  // platform-scoped: API tokens and users belong to no workspace (PLATFORM_GLOBAL).
  const user = await db().user.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!user) throw notFound(`A user with email ${email}`);
  return (await createApiToken(user.id, name, ttlSeconds)).token;
}

/** Parses "90s", "15m", "1h", "7d" into seconds. */
export function parseTtl(raw: string): number {
  const m = /^(\d+)([smhd])$/.exec(raw.trim());
  if (!m) throw new Error(`invalid ttl "${raw}": use e.g. 30m, 1h, 7d`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as "s" | "m" | "h" | "d"];
}
