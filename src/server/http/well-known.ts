import { getDb } from "@/server/platform/db/client";
import { issuer, jwksWithMaxAge } from "@/server/domain/signing-keys/jwt.service";
import { SIGNING_ALG } from "@/server/domain/signing-keys/signing-keys.service";

/**
 * The three /.well-known documents, framework-free (Next.js routes and the
 * test server call these). The JWKS carries Cache-Control max-age equal to
 * the JWKS cache lifetime that signing-key activation waits out (shortened
 * before a scheduled retirement), so a verifier that honours it always holds
 * a key before anything is signed with it.
 */
export async function handleJwks(): Promise<Response> {
  await getDb();
  const { jwks, maxAgeSeconds } = await jwksWithMaxAge();
  return Response.json(jwks, {
    headers: { "cache-control": `public, max-age=${maxAgeSeconds}` },
  });
}

/** What the OIDC discovery document and the RFC 8414 metadata share. */
function sharedMetadata(): Record<string, unknown> {
  const iss = issuer();
  return {
    issuer: iss,
    jwks_uri: `${iss}/.well-known/jwks.json`,
    token_endpoint: `${iss}/v1/oauth/token`,
    // client_secret_basic / _post: client_credentials. none: token exchange, where the
    // client is identified by client_id and authenticated by its federated subject token.
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    grant_types_supported: ["client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange"],
    // No authorization endpoint: no response type is supported.
    response_types_supported: [],
    scopes_supported: ["bridge"],
  };
}

const DISCOVERY_HEADERS = { "cache-control": "public, max-age=3600" };

/** /.well-known/openid-configuration */
export function handleOpenIdConfiguration(): Response {
  return Response.json(
    { ...sharedMetadata(), id_token_signing_alg_values_supported: [SIGNING_ALG], subject_types_supported: ["public"] },
    { headers: DISCOVERY_HEADERS },
  );
}

/** /.well-known/oauth-authorization-server (RFC 8414). */
export function handleOAuthAuthorizationServer(): Response {
  return Response.json(sharedMetadata(), { headers: DISCOVERY_HEADERS });
}
