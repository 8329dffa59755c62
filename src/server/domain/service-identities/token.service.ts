import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
} from "jose";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { egressBlocked, egressFetch, type TEgressResponse } from "@/server/platform/egress";
import { sha256Hex, safeEqual } from "@/server/platform/crypto";
import { isId, newId } from "@/server/platform/ids";
import { issuer as ownIssuer, signToken } from "@/server/domain/signing-keys/jwt.service";
import type { TFederation } from "./service-identities.contract";
import { generation, resetBridgeIdentityCache, type TIdentityRow } from "./bridge-token.service";

/**
 * OAuth 2.0 token issuance for service identities (POST /v1/oauth/token) and
 * the Bridge's check of the tokens it issues.
 *
 * - client_credentials (RFC 6749 4.4): client_id + client_secret; the secret
 *   is compared as sha256 in constant time.
 * - token exchange (RFC 8693): an external OIDC JWT whose issuer, subject and
 *   audience are registered on the identity. The issuer is compared with the
 *   token's `iss` BEFORE anything is fetched, so the server only ever fetches
 *   issuers an admin registered. Discovery + JWKS are cached per issuer for 10
 *   minutes; an unknown `kid` refreshes them at most once a minute.
 *
 * Both grants yield a Bridge token: ES256 JWT, audience `bridge`, 10 minutes,
 * `sub` = svc id, `jti` = a fresh `tok_` id (no row: bridge tokens are revoked
 * per identity, not one by one), claims `ws`, `prod`, `env`, `kind`, plus
 * `fed_sub` (exchange) or `srot` (client_credentials: the rotation time in
 * epoch ms of the secret that obtained it, 0 for the original secret, so
 * rotating the secret also ends tokens obtained with the old one, unless the
 * rotation keeps the old secret for an overlap: then they live until `exp`).
 */
export const BRIDGE_TOKEN_TTL_SECONDS = 600;
export const BRIDGE_SCOPE = "bridge";
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
export const SUBJECT_TOKEN_TYPES = [
  "urn:ietf:params:oauth:token-type:jwt",
  "urn:ietf:params:oauth:token-type:id_token",
];
/** How long a revocation may take to reach authenticateBridgeToken in another process. */
const DISCOVERY_TTL_MS = 10 * 60_000;
const JWKS_REFRESH_MIN_MS = 60_000;
const FETCH_TIMEOUT_MS = 5_000;
const FETCH_MAX_BYTES = 512 * 1024;
const CLOCK_TOLERANCE_S = 60;
const EXTERNAL_ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

export type TOAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_target";

/** An RFC 6749 5.2 error. invalid_client is 401, the rest 400. */
export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly error: TOAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = "OAuthError";
    this.status = error === "invalid_client" ? 401 : 400;
  }
}

export type TTokenResponse = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  issued_token_type?: string;
};

const unknownClient = () => new OAuthError("invalid_client", "client authentication failed: unknown client");

async function findClient(
  clientId: string,
  withSecret: boolean,
): Promise<(TIdentityRow & { secretHash?: string; previousSecretHash?: string | null }) | null> {
  if (!isId("svc", clientId)) return null;
  // platform-scoped: the OAuth client id is globally unique and names no workspace before it is found.
  return db().serviceIdentity.findUnique({
    where: { id: clientId },
    omit: { secretHash: !withSecret, previousSecretHash: !withSecret },
  });
}

async function issueBridgeToken(
  row: TIdentityRow,
  claims: Record<string, unknown>,
  exchange: boolean,
): Promise<TTokenResponse> {
  const { token } = await signToken({
    audience: "bridge",
    subject: row.id,
    jti: newId("tok"),
    ttlSeconds: BRIDGE_TOKEN_TTL_SECONDS,
    claims: { ws: row.workspaceId, prod: row.productId, env: row.environmentType, kind: row.kind, ...claims },
  });
  await scopedDb(row.workspaceId).serviceIdentity.update({ where: { id: row.id }, data: { lastTokenAt: new Date() } });
  return {
    access_token: token,
    token_type: "Bearer",
    expires_in: BRIDGE_TOKEN_TTL_SECONDS,
    scope: BRIDGE_SCOPE,
    ...(exchange ? { issued_token_type: ACCESS_TOKEN_TYPE } : {}),
  };
}

/** RFC 6749 4.4. The caller (the HTTP handler) has already resolved Basic vs body credentials. */
export async function clientCredentialsGrant(clientId: string, clientSecret: string): Promise<TTokenResponse> {
  const row = await findClient(clientId, true);
  if (!row?.secretHash) throw unknownClient();
  const presented = sha256Hex(clientSecret);
  const current = safeEqual(presented, row.secretHash);
  // During a rotation's overlap the previous secret works too (until previous_secret_expires_at).
  const previousValid = Boolean(
    row.previousSecretHash &&
    row.previousSecretExpiresAt &&
    !row.previousSecretRevokedAt &&
    row.previousSecretExpiresAt.getTime() > Date.now(),
  );
  const previous = previousValid && safeEqual(presented, row.previousSecretHash!);
  if (!current && !previous) {
    throw new OAuthError("invalid_client", "client authentication failed: secret mismatch");
  }
  if (row.status !== "active") throw new OAuthError("invalid_client", "client is revoked");
  return issueBridgeToken(
    row,
    { srot: generation(current ? row.secretRotatedAt : row.previousSecretRotatedAt) },
    false,
  );
}

/** RFC 8693 with an external OIDC JWT as subject token; the federation on the identity authenticates the client. */
export async function tokenExchangeGrant(clientId: string, subjectToken: string): Promise<TTokenResponse> {
  const row = await findClient(clientId, false);
  if (!row) throw unknownClient();
  if (row.status !== "active") throw new OAuthError("invalid_client", "client is revoked");
  const fed = row.federation as TFederation | null;
  if (!fed)
    throw new OAuthError(
      "unauthorized_client",
      "client has no federation: token exchange is not enabled for this identity",
    );

  let iss: unknown;
  try {
    decodeProtectedHeader(subjectToken);
    iss = decodeJwt(subjectToken).iss;
  } catch {
    throw grant("subject token is not a well-formed JWT");
  }
  // Before any fetch: only registered issuers are ever contacted.
  if (iss !== fed.issuer)
    throw grant(`issuer check failed: expected ${JSON.stringify(fed.issuer)}, got ${JSON.stringify(iss ?? null)}`);

  const payload = await verifyExternal(subjectToken, fed);
  if (payload.sub !== fed.subject) {
    throw grant(
      `subject check failed: expected ${JSON.stringify(fed.subject)}, got ${JSON.stringify(payload.sub ?? null)}`,
    );
  }
  return issueBridgeToken(row, { fed_sub: payload.sub }, true);
}

const grant = (description: string) => new OAuthError("invalid_grant", description);

// ---------------------------------------------------------------------------
// External issuers: discovery + JWKS, cached per issuer
// ---------------------------------------------------------------------------

type TIssuerKeys = { keySet: ReturnType<typeof createLocalJWKSet>; fetchedAt: number };
type TCaches = {
  issuers: Map<string, TIssuerKeys>;
  inflight: Map<string, Promise<TIssuerKeys>>;
};
// On globalThis: Next.js bundles route handlers separately, and a revocation
// seen by the REST route must reach the Bridge route's cache in this process.
const g = globalThis as unknown as { __capstanTokenCaches?: TCaches };
const caches: TCaches = (g.__capstanTokenCaches ??= { issuers: new Map(), inflight: new Map() });

/** Tests: forget cached discovery documents, JWKS and revocation checks. */
export function resetTokenCaches(): void {
  caches.issuers.clear();
  caches.inflight.clear();
  resetBridgeIdentityCache();
}

async function fetchJson(url: string, what: string): Promise<Record<string, unknown>> {
  let res: TEgressResponse;
  try {
    res = await egressFetch("oidc", url, {
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: "application/json" },
    });
  } catch (err) {
    const blocked = egressBlocked(err);
    if (blocked) throw grant(`discovery failed: ${blocked.message} (${url})`);
    const timedOut = (err as Error)?.name === "TimeoutError";
    throw grant(`discovery failed: ${what} ${timedOut ? "timed out" : "could not be fetched"} (${url})`);
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw grant(`discovery failed: ${what} answered HTTP ${res.status} (${url})`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > FETCH_MAX_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw grant(`discovery failed: ${what} is larger than ${FETCH_MAX_BYTES} bytes`);
    }
    chunks.push(value);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw grant(`discovery failed: ${what} is not a JSON object`);
}

async function loadIssuerKeys(issuer: string): Promise<TIssuerKeys> {
  const base = issuer.replace(/\/$/, "");
  const doc = await fetchJson(`${base}/.well-known/openid-configuration`, "the discovery document");
  if (doc.issuer !== issuer)
    throw grant(`discovery failed: the discovery document names issuer ${JSON.stringify(doc.issuer ?? null)}`);
  let jwksUri: URL;
  try {
    jwksUri = new URL(String(doc.jwks_uri));
  } catch {
    throw grant("discovery failed: the discovery document has no valid jwks_uri");
  }
  if (jwksUri.origin !== new URL(issuer).origin)
    throw grant("discovery failed: jwks_uri is not on the issuer's origin");
  const jwks = await fetchJson(jwksUri.toString(), "the JWKS");
  if (!Array.isArray(jwks.keys)) throw grant("discovery failed: the JWKS has no keys array");
  let keySet: TIssuerKeys["keySet"];
  try {
    keySet = createLocalJWKSet(jwks as unknown as JSONWebKeySet);
  } catch {
    throw grant("discovery failed: the JWKS is malformed");
  }
  return { keySet, fetchedAt: Date.now() };
}

/** Cached keys of an issuer; `refresh` refetches unless the cache is younger than a minute. */
async function issuerKeys(issuer: string, refresh: boolean): Promise<TIssuerKeys> {
  const cached = caches.issuers.get(issuer);
  const age = cached ? Date.now() - cached.fetchedAt : Infinity;
  if (cached && (refresh ? age < JWKS_REFRESH_MIN_MS : age < DISCOVERY_TTL_MS)) return cached;
  let pending = caches.inflight.get(issuer);
  if (!pending) {
    pending = loadIssuerKeys(issuer).finally(() => caches.inflight.delete(issuer));
    caches.inflight.set(issuer, pending);
  }
  const keys = await pending;
  caches.issuers.set(issuer, keys);
  return keys;
}

async function verifyExternal(token: string, fed: TFederation): Promise<{ sub?: string }> {
  const opts = {
    issuer: fed.issuer,
    audience: fed.audience,
    clockTolerance: CLOCK_TOLERANCE_S,
    algorithms: EXTERNAL_ALGS,
    requiredClaims: ["exp", "sub"],
  };
  let keys = await issuerKeys(fed.issuer, false);
  try {
    try {
      return (await jwtVerify(token, keys.keySet, opts)).payload;
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey)) throw err;
      const before = keys;
      keys = await issuerKeys(fed.issuer, true);
      if (keys === before) throw err;
      return (await jwtVerify(token, keys.keySet, opts)).payload;
    }
  } catch (err) {
    throw externalError(err, token, fed);
  }
}

function externalError(err: unknown, token: string, fed: TFederation): OAuthError {
  if (err instanceof OAuthError) return err;
  if (err instanceof joseErrors.JWTExpired)
    return grant(`expiry check failed: token expired (clock tolerance ${CLOCK_TOLERANCE_S} s)`);
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === "aud")
      return grant(`audience check failed: expected the aud claim to contain ${JSON.stringify(fed.audience)}`);
    if (err.claim === "nbf") return grant("not-before check failed: token is not yet valid");
    if (err.claim === "iss") return grant(`issuer check failed: expected ${JSON.stringify(fed.issuer)}`);
    return grant(`claims check failed: ${err.claim} (${err.reason})`);
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey) {
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      kid = undefined;
    }
    return grant(`signature check failed: no key of the issuer's JWKS matches kid ${JSON.stringify(kid ?? null)}`);
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return grant("signature check failed");
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return grant("signature check failed: algorithm not allowed");
  if (err instanceof joseErrors.JWKSMultipleMatchingKeys)
    return grant("signature check failed: several keys match; the token needs a kid");
  if (err instanceof joseErrors.JOSENotSupported) return grant("signature check failed: unsupported key or algorithm");
  return grant("subject token is not a well-formed JWT");
}

/** Accepted `audience` / `resource` parameters (RFC 8693 / RFC 8707): this service only. */
export function checkTarget(audience: string | null, resource: string | null): void {
  const own = ownIssuer().replace(/\/$/, "");
  if (audience !== null && audience !== BRIDGE_SCOPE && audience !== own) {
    throw new OAuthError("invalid_target", `audience must be "bridge" or ${JSON.stringify(own)}`);
  }
  if (resource !== null && resource !== own && !resource.startsWith(`${own}/`)) {
    throw new OAuthError("invalid_target", `resource must be a URL of this service (${own})`);
  }
}
