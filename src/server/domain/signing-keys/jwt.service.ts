import { createPrivateKey, sign as signBytes, type JsonWebKey, type KeyObject } from "node:crypto";
import { errors as joseErrors, importJWK, jwtVerify, type JWK, type JWTPayload } from "jose";
import { db } from "@/server/platform/db/client";
import { currentKekId, needsReseal, seal, unseal } from "@/server/platform/crypto";
import { env } from "@/server/platform/env";
import { AppError } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import {
  ensureSigningKey,
  invalidateKeyCache,
  keySchedules,
  liveKeyRows,
  noteSigned,
  persistKeyStates,
  rotationTimings,
  SIGNING_ALG,
} from "./signing-keys.service";

export { ensureSigningKey } from "./signing-keys.service";

/**
 * The service is its own token issuer: ES256 keys (kid), private halves sealed
 * at rest, public halves at /.well-known/jwks.json. Audiences: `control`
 * (people and scripts), `bridge` (service identities), `runner` (executions).
 * Keys rotate without downtime (signing-keys.service.ts): a new key is
 * published before it signs, and the previous one stays published until the
 * tokens it signed have expired. Each process caches the key set for
 * CAPSTAN_SIGNING_KEY_CACHE_MS (5 s) and reads every key's state off the clock,
 * so all processes switch signers at the same instant.
 */
export type TAudience = "control" | "bridge" | "runner";
const ALG = SIGNING_ALG;

/**
 * The longest life (exp - iat) a token of each kind may have; a token without
 * `exp` or `iat`, or living longer, is refused, and signToken never issues one.
 * control: personal API tokens (up to a year); bridge: OAuth client-credentials
 * access tokens (10 min issued); runner: one execution's token (its timeout + 60 s).
 */
export const MAX_TOKEN_LIFETIME_SECONDS: Record<TAudience, number> = {
  control: 365 * 24 * 3600,
  bridge: 3600,
  runner: 2 * 3600,
};

type TKeyEntry = {
  kid: string;
  publicJwk: JWK;
  verifyKey: CryptoKey | Uint8Array;
  activatesAt: number;
  /** Leaves the JWKS at this instant (Infinity while no newer key exists). */
  retiresAt: number;
  signedUntil: number;
  privateJwkSealed: string;
  signKey?: KeyObject;
};
type TKeyCache = { loadedAt: number; keys: TKeyEntry[] };

const g = globalThis as unknown as { __capstanKeys?: TKeyCache; __capstanKeyLoad?: Promise<TKeyCache> };

export function issuer(): string {
  return env().CAPSTAN_PUBLIC_URL;
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
  invalidateKeyCache();
  return { updated, failed };
}

async function loadKeys(previous: TKeyCache | undefined): Promise<TKeyCache> {
  const rows = await liveKeyRows();
  const now = Date.now();
  const schedules = keySchedules(rows, now, rotationTimings().skewSeconds);
  const keys: TKeyEntry[] = [];
  for (const row of rows) {
    const s = schedules.find((x) => x.kid === row.kid)!;
    if (s.state === "retired") continue;
    const old = previous?.keys.find((k) => k.kid === row.kid && k.privateJwkSealed === row.privateJwkSealed);
    const publicJwk = row.publicJwk as JWK;
    keys.push({
      kid: row.kid,
      publicJwk,
      verifyKey: old?.verifyKey ?? (await importJWK(publicJwk, ALG)),
      activatesAt: row.activatesAt.getTime(),
      retiresAt: s.retiresAt?.getTime() ?? Infinity,
      signedUntil: Math.max(row.signedUntil?.getTime() ?? 0, old?.signedUntil ?? 0),
      privateJwkSealed: row.privateJwkSealed,
      signKey: old?.signKey,
    });
  }
  // Write state changes back (and audit them) off the request path.
  void persistKeyStates(rows, schedules);
  return { loadedAt: Date.now(), keys };
}

async function keyCache(force = false): Promise<TKeyCache> {
  const cached = g.__capstanKeys;
  if (cached && !force && Date.now() - cached.loadedAt < rotationTimings().cacheMs) return cached;
  // One load at a time per process; callers during a load share it.
  let pending = g.__capstanKeyLoad;
  if (!pending) {
    pending = loadKeys(cached).finally(() => {
      g.__capstanKeyLoad = undefined;
    });
    g.__capstanKeyLoad = pending;
  }
  const next = await pending;
  g.__capstanKeys = next;
  return next;
}

function published(k: TKeyEntry, now: number): boolean {
  return k.retiresAt > now;
}

/** The key that signs now: the newest whose activation time has passed. */
function signerOf(cache: TKeyCache, now: number): TKeyEntry | undefined {
  let best: TKeyEntry | undefined;
  for (const k of cache.keys) {
    if (k.activatesAt > now || !published(k, now)) continue;
    if (!best || k.activatesAt > best.activatesAt || (k.activatesAt === best.activatesAt && k.kid > best.kid)) best = k;
  }
  return best;
}

/**
 * The published key set and how long it may be cached: the configured
 * max-age, shortened so no cache outlives the next scheduled retirement.
 */
export async function jwksWithMaxAge(): Promise<{ jwks: { keys: JWK[] }; maxAgeSeconds: number }> {
  const now = Date.now();
  const keys = (await keyCache()).keys.filter((k) => published(k, now));
  let maxAge = rotationTimings().jwksMaxAgeSeconds;
  for (const k of keys) {
    if (Number.isFinite(k.retiresAt)) maxAge = Math.min(maxAge, Math.max(0, Math.floor((k.retiresAt - now) / 1000)));
  }
  return { jwks: { keys: keys.map((k) => k.publicJwk) }, maxAgeSeconds: maxAge };
}

export async function jwks(): Promise<{ keys: JWK[] }> {
  return (await jwksWithMaxAge()).jwks;
}

export async function signToken(opts: {
  audience: TAudience;
  subject: string;
  jti: string;
  ttlSeconds: number;
  claims?: Record<string, unknown>;
}): Promise<{ token: string; expiresAt: Date; kid: string }> {
  let cache = await keyCache();
  let signer = signerOf(cache, Date.now());
  if (!signer) {
    await ensureSigningKey();
    cache = await keyCache(true);
    signer = signerOf(cache, Date.now());
    if (!signer) throw new AppError("unavailable", "No signing key is active");
  }
  signer.signKey ??= createPrivateKey({
    key: JSON.parse(unseal(signer.privateJwkSealed, `signing_key:${signer.kid}`)) as JsonWebKey,
    format: "jwk",
  });
  if (!(opts.ttlSeconds <= MAX_TOKEN_LIFETIME_SECONDS[opts.audience])) {
    throw new Error(
      `a ${opts.audience} token may live at most ${MAX_TOKEN_LIFETIME_SECONDS[opts.audience]} s (asked ${opts.ttlSeconds} s)`,
    );
  }
  const now = Math.floor(Date.now() / 1000);
  const exp = now + opts.ttlSeconds;
  // The key must stay published until this token expires: record it before handing the token out.
  if (exp * 1000 > signer.signedUntil) signer.signedUntil = await noteSigned(signer.kid, exp, opts.ttlSeconds);
  const token = compactJws(
    { alg: ALG, kid: signer.kid, typ: "JWT" },
    { ...opts.claims, iss: issuer(), sub: opts.subject, aud: opts.audience, jti: opts.jti, iat: now, exp },
    signer.signKey,
  );
  return { token, expiresAt: new Date(exp * 1000), kid: signer.kid };
}

/**
 * An ES256 JWS in compact form (RFC 7515 section 7.1; the signature is R || S, RFC 7518 section 3.4), signed with
 * node:crypto directly: jose signs through WebCrypto, whose job machinery cost 150 us a token against 27 us for the
 * same signature here, and an invocation signs one (its runner token). Verification stays jose's (jwtVerify).
 */
function compactJws(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  const signature = signBytes("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
  return `${input}.${signature.toString("base64url")}`;
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
const verified = new Map<string, { payload: JWTPayload & { sub: string; jti: string }; until: number; kid: string }>();

export async function verifyToken(
  token: string,
  audience: TAudience,
): Promise<JWTPayload & { sub: string; jti: string }> {
  const cacheKey = `${audience}:${token}`;
  const hit = verified.get(cacheKey);
  if (hit && hit.until > Date.now()) {
    // A key retired (or removed by an emergency rotation) ends cached verifications too.
    const now = Date.now();
    if ((await keyCache()).keys.some((k) => k.kid === hit.kid && published(k, now))) return hit.payload;
  }
  if (hit) verified.delete(cacheKey);
  const { payload, kid } = await verifyTokenUncached(token, audience);
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(cacheKey, { payload, kid, until: Math.min(Date.now() + VERIFIED_TTL_MS, (payload.exp ?? 0) * 1000) });
  return payload;
}

async function verifyTokenUncached(
  token: string,
  audience: TAudience,
): Promise<{ payload: JWTPayload & { sub: string; jti: string }; kid: string }> {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) {
    throw invalidToken("token is not a well-formed JWT");
  }
  const getKey = async (header: { kid?: string; alg?: string }) => {
    if (header.alg !== ALG) throw invalidToken(`algorithm check failed: expected ${ALG}`);
    const find = (c: TKeyCache) => c.keys.find((k) => k.kid === header.kid && published(k, Date.now()));
    const entry = find(await keyCache()) ?? find(await keyCache(true));
    if (!entry) throw invalidToken("signature check failed: unknown or retired signing key (kid)");
    return entry.verifyKey;
  };
  try {
    // Clock skew: CAPSTAN_JWT_CLOCK_SKEW_SECONDS (default 60 s) either way on exp, nbf and iat.
    const skew = env().CAPSTAN_JWT_CLOCK_SKEW_SECONDS;
    const { payload, protectedHeader } = await jwtVerify(token, getKey, {
      issuer: issuer(),
      audience,
      algorithms: [ALG],
      clockTolerance: skew,
    });
    if (typeof payload.sub !== "string" || typeof payload.jti !== "string") {
      throw invalidToken("claims check failed: sub and jti are required");
    }
    if (typeof payload.exp !== "number" || typeof payload.iat !== "number") {
      throw invalidToken("claims check failed: exp and iat are required");
    }
    if (payload.iat > Date.now() / 1000 + skew) throw invalidToken("claims check failed: iat is in the future");
    if (payload.exp - payload.iat > MAX_TOKEN_LIFETIME_SECONDS[audience]) {
      throw invalidToken(
        `lifetime check failed: a ${audience} token may live at most ${MAX_TOKEN_LIFETIME_SECONDS[audience]} s`,
      );
    }
    return { payload: payload as JWTPayload & { sub: string; jti: string }, kid: protectedHeader.kid ?? "" };
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
