import { errors as joseErrors, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload } from "jose";
import { db } from "./db/client";
import { currentKekId, needsReseal, seal, unseal } from "./crypto";
import { env } from "./env";
import { AppError } from "./errors";
import { ulid } from "./ids";
import { logger } from "./logger";

/**
 * The service is its own token issuer: ES256 keys (kid), private halves sealed
 * at rest, public halves at /.well-known/jwks.json. Audiences: `control`
 * (people and scripts), `bridge` (service identities), `runner` (executions).
 * Signing uses the newest active key; verification accepts any non-retired key,
 * so rotation is: add a key, wait out the longest token lifetime, retire the old.
 */
export type TAudience = "control" | "bridge" | "runner";
const ALG = "ES256";
const CACHE_MS = 60_000;

type TKeyEntry = { kid: string; publicJwk: JWK; verifyKey: CryptoKey | Uint8Array; createdAt: Date };
type TKeyCache = { loadedAt: number; keys: TKeyEntry[]; signer?: { kid: string; key: CryptoKey | Uint8Array } };

const g = globalThis as unknown as { __capstanKeys?: TKeyCache };

export function issuer(): string {
  return env().CAPSTAN_PUBLIC_URL;
}

/** Creates the first signing key when none is active. Safe to race: both keys stay valid. */
export async function ensureSigningKey(): Promise<void> {
  const active = await db().signingKey.count({ where: { status: "active" } });
  if (active === 0) await rotateSigningKey();
}

export async function rotateSigningKey(): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
  const kid = `key_${ulid()}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: ALG };
  await db().signingKey.create({
    data: {
      kid,
      alg: ALG,
      publicJwk,
      privateJwkSealed: seal(JSON.stringify(privateJwk), `signing_key:${kid}`),
      kekId: currentKekId(),
      status: "active",
    },
  });
  g.__capstanKeys = undefined;
  return kid;
}

/**
 * Master key rotation for signing keys: re-seals every private key not sealed
 * under the current master key (the old one must still be in
 * CAPSTAN_PREVIOUS_MASTER_KEYS). Compare-and-swap per row, so it is safe to
 * run repeatedly and next to a running server.
 */
export async function reencryptSigningKeys(): Promise<{ updated: number; failed: number }> {
  let updated = 0;
  let failed = 0;
  for (const row of await db().signingKey.findMany({ select: { kid: true, privateJwkSealed: true } })) {
    if (!needsReseal(row.privateJwkSealed)) continue;
    const aad = `signing_key:${row.kid}`;
    try {
      const resealed = seal(unseal(row.privateJwkSealed, aad), aad);
      const r = await db().signingKey.updateMany({
        where: { kid: row.kid, privateJwkSealed: row.privateJwkSealed },
        data: { privateJwkSealed: resealed, kekId: currentKekId() },
      });
      updated += r.count;
    } catch (err) {
      logger.error("jwt.reencrypt_failed", { kid: row.kid, error: (err as Error).name });
      failed++;
    }
  }
  g.__capstanKeys = undefined;
  return { updated, failed };
}

async function keyCache(force = false): Promise<TKeyCache> {
  const cached = g.__capstanKeys;
  if (cached && !force && Date.now() - cached.loadedAt < CACHE_MS) return cached;
  const rows = await db().signingKey.findMany({ where: { status: "active" }, orderBy: { createdAt: "desc" } });
  const keys: TKeyEntry[] = [];
  for (const row of rows) {
    const publicJwk = row.publicJwk as JWK;
    keys.push({ kid: row.kid, publicJwk, verifyKey: await importJWK(publicJwk, ALG), createdAt: row.createdAt });
  }
  const newest = rows[0];
  const signer = newest
    ? { kid: newest.kid, key: await importJWK(JSON.parse(unseal(newest.privateJwkSealed, `signing_key:${newest.kid}`)) as JWK, ALG) }
    : undefined;
  const next = { loadedAt: Date.now(), keys, signer };
  g.__capstanKeys = next;
  return next;
}

export async function jwks(): Promise<{ keys: JWK[] }> {
  return { keys: (await keyCache()).keys.map((k) => k.publicJwk) };
}

export async function signToken(opts: {
  audience: TAudience;
  subject: string;
  jti: string;
  ttlSeconds: number;
  claims?: Record<string, unknown>;
}): Promise<{ token: string; expiresAt: Date }> {
  let cache = await keyCache();
  if (!cache.signer) {
    await ensureSigningKey();
    cache = await keyCache(true);
  }
  const signer = cache.signer!;
  const now = Math.floor(Date.now() / 1000);
  const exp = now + opts.ttlSeconds;
  const token = await new SignJWT({ ...opts.claims })
    .setProtectedHeader({ alg: ALG, kid: signer.kid, typ: "JWT" })
    .setIssuer(issuer())
    .setSubject(opts.subject)
    .setAudience(opts.audience)
    .setJti(opts.jti)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(signer.key);
  return { token, expiresAt: new Date(exp * 1000) };
}

/** 401 with the RFC 6750 challenge naming the check that failed. */
export function invalidToken(description: string): AppError {
  const safe = description.replace(/["\\]/g, "'");
  return new AppError("unauthenticated", description, {
    reason: "invalid_token",
    headers: { "www-authenticate": `Bearer realm="capstan", error="invalid_token", error_description="${safe}"` },
  });
}

/**
 * Verified claims are cached per (audience, token) until the token expires or
 * 60 s pass, whichever is first: an ES256 verification costs more than the
 * rest of a Bridge call's CPU. Revocation is not cached here (callers check it).
 */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;
const verified = new Map<string, { payload: JWTPayload & { sub: string; jti: string }; until: number }>();

export async function verifyToken(token: string, audience: TAudience): Promise<JWTPayload & { sub: string; jti: string }> {
  const cacheKey = `${audience}:${token}`;
  const hit = verified.get(cacheKey);
  if (hit && hit.until > Date.now()) return hit.payload;
  if (hit) verified.delete(cacheKey);
  const payload = await verifyTokenUncached(token, audience);
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(cacheKey, { payload, until: Math.min(Date.now() + VERIFIED_TTL_MS, (payload.exp ?? 0) * 1000) });
  return payload;
}

async function verifyTokenUncached(token: string, audience: TAudience): Promise<JWTPayload & { sub: string; jti: string }> {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) {
    throw invalidToken("token is not a well-formed JWT");
  }
  const getKey = async (header: { kid?: string; alg?: string }) => {
    if (header.alg !== ALG) throw invalidToken(`algorithm check failed: expected ${ALG}`);
    let cache = await keyCache();
    let entry = cache.keys.find((k) => k.kid === header.kid);
    if (!entry) {
      cache = await keyCache(true);
      entry = cache.keys.find((k) => k.kid === header.kid);
    }
    if (!entry) throw invalidToken("signature check failed: unknown signing key (kid)");
    return entry.verifyKey;
  };
  try {
    const { payload } = await jwtVerify(token, getKey, { issuer: issuer(), audience, algorithms: [ALG] });
    if (typeof payload.sub !== "string" || typeof payload.jti !== "string") {
      throw invalidToken("claims check failed: sub and jti are required");
    }
    return payload as JWTPayload & { sub: string; jti: string };
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (err instanceof joseErrors.JWTExpired) throw invalidToken("expiry check failed: the token has expired");
    if (err instanceof joseErrors.JWTClaimValidationFailed) {
      if (err.claim === "aud") throw invalidToken(`audience check failed: expected "${audience}"`);
      if (err.claim === "iss") throw invalidToken(`issuer check failed: expected "${issuer()}"`);
      throw invalidToken(`claims check failed: ${err.claim}`);
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) throw invalidToken("signature check failed");
    throw invalidToken("token is not a well-formed JWT");
  }
}
