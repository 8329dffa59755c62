import { db } from "@/server/platform/db/client";
import { onChange, signalChange } from "@/server/platform/change-signals";
import { isId } from "@/server/platform/ids";
import { invalidToken, verifyToken } from "@/server/domain/signing-keys/jwt.service";

/**
 * The Bridge's check of a bridge token (token.service.ts issues them): signature, audience, and that the identity is
 * still active, with its row cached for at most REVOCATION_CACHE_MS.
 */

export type TIdentityRow = {
  id: string;
  workspaceId: string;
  kind: string;
  productId: string | null;
  environmentType: string | null;
  federation: unknown;
  status: string;
  secretRotatedAt: Date | null;
  permissions?: unknown;
  previousSecretRotatedAt: Date | null;
  previousSecretExpiresAt: Date | null;
  previousSecretRevokedAt: Date | null;
};

/** The `srot` of tokens obtained with a secret: that secret's rotation time in epoch ms (0: the original secret). */
export const generation = (rotatedAt: Date | null) => rotatedAt?.getTime() ?? 0;

export const REVOCATION_CACHE_MS = 5_000;

// On globalThis: Next.js bundles route handlers separately, and a revocation
// seen by the REST route must reach the Bridge route's cache in this process.
const g = globalThis as unknown as {
  __capstanBridgeIdentities?: Map<string, { at: number; row: TIdentityRow | null }>;
};
const cache = (g.__capstanBridgeIdentities ??= new Map<string, { at: number; row: TIdentityRow | null }>());

/** Tests (through resetTokenCaches): forget cached revocation checks. */
export function resetBridgeIdentityCache(): void {
  cache.clear();
}

export type TBridgeCaller = {
  serviceIdentityId: string;
  workspaceId: string;
  productId: string | null;
  environmentType: string | null;
  kind: "workspace" | "platform";
  /** The external subject when the token came from a token exchange. */
  federatedSubject: string | null;
  tokenId: string;
  /** Bridge permissions of the identity (null: every action of the contract). */
  permissions: string[] | null;
};

/**
 * Drops the cached revocation state of an identity (called on revoke, delete
 * and rotate): at once in this process, within the NOTIFY delay in every other.
 */
export function forgetBridgeIdentity(id: string): void {
  signalChange("service-identity", id);
}
onChange("service-identity", (id) => (id === null ? cache.clear() : cache.delete(id)));

async function bridgeIdentity(id: string): Promise<TIdentityRow | null> {
  const hit = cache.get(id);
  if (hit && Date.now() - hit.at < REVOCATION_CACHE_MS) return hit.row;
  // platform-scoped: a Bridge token's subject, by id (the token names its workspace, checked by the caller).
  const row = await db().serviceIdentity.findUnique({
    where: { id },
    select: {
      id: true,
      workspaceId: true,
      kind: true,
      productId: true,
      environmentType: true,
      federation: true,
      status: true,
      secretRotatedAt: true,
      permissions: true,
      previousSecretRotatedAt: true,
      previousSecretExpiresAt: true,
      previousSecretRevokedAt: true,
    },
  });
  if (cache.size > 10_000) cache.clear();
  cache.set(id, { at: Date.now(), row });
  return row;
}

/**
 * Verifies a bridge token (signature, issuer, audience `bridge`, expiry) and
 * that its identity is still active. The identity lookup is cached in-process
 * for at most REVOCATION_CACHE_MS (5 s), so a revocation (or a secret
 * rotation, for client_credentials tokens) takes effect everywhere within 5 s,
 * and at once in the process that performed it. Throws invalidToken (401).
 */
export async function authenticateBridgeToken(token: string): Promise<TBridgeCaller> {
  const claims = await verifyToken(token, "bridge");
  if (!isId("svc", claims.sub)) throw invalidToken("claims check failed: sub is not a service identity");
  const row = await bridgeIdentity(claims.sub);
  if (!row) throw invalidToken("revocation check failed: the service identity no longer exists");
  if (row.status !== "active") throw invalidToken("revocation check failed: the service identity has been revoked");
  if (typeof claims.srot === "number" && claims.srot !== generation(row.secretRotatedAt)) {
    // A token obtained with the previous secret of an overlapping rotation lives until its own exp,
    // unless that secret was revoked early (or a later rotation replaced it).
    const previousKept = row.previousSecretExpiresAt !== null && row.previousSecretRevokedAt === null;
    if (!previousKept || claims.srot !== generation(row.previousSecretRotatedAt)) {
      throw invalidToken("revocation check failed: the client secret was rotated after this token was issued");
    }
  }
  return {
    serviceIdentityId: row.id,
    workspaceId: row.workspaceId,
    productId: row.productId,
    environmentType: row.environmentType,
    kind: row.kind as TBridgeCaller["kind"],
    federatedSubject: typeof claims.fed_sub === "string" ? claims.fed_sub : null,
    tokenId: claims.jti,
    permissions: (row.permissions as string[] | null | undefined) ?? null,
  };
}
