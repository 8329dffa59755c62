import { issuer } from "@/server/platform/jwt";

export const dynamic = "force-dynamic";

/** Served at /.well-known/openid-configuration (rewrite in next.config.mjs). */
export function GET(): Response {
  const iss = issuer();
  return Response.json({
    issuer: iss,
    jwks_uri: `${iss}/.well-known/jwks.json`,
    token_endpoint: `${iss}/v1/oauth/token`,
    id_token_signing_alg_values_supported: ["ES256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    grant_types_supported: ["client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange"],
    response_types_supported: ["token"],
    subject_types_supported: ["public"],
  });
}
