import {
  checkTarget,
  clientCredentialsGrant,
  OAuthError,
  SUBJECT_TOKEN_TYPES,
  TOKEN_EXCHANGE_GRANT,
  tokenExchangeGrant,
  ACCESS_TOKEN_TYPE,
  BRIDGE_TOKEN_TTL_SECONDS,
  type TTokenResponse,
} from "@/server/domain/service-identities/token.service";
import { readBodyLimited } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";

/**
 * POST /v1/oauth/token (RFC 6749 section 3.2). Form-encoded in, RFC 6749 JSON
 * out (not problem+json): `{access_token, token_type, expires_in, scope}` or
 * `{error, error_description}`, always with `Cache-Control: no-store`. The
 * description names the check that failed. Parameters are read from the body
 * only; a repeated parameter is invalid_request (RFC 6749 3.2). Client
 * credentials come from HTTP Basic (2.3.1, form-urlencoded id and secret) or
 * the body, never both. The form is never logged.
 */
const MAX_FORM_BYTES = 64 * 1024;
const JSON_HEADERS = {
  "content-type": "application/json;charset=UTF-8",
  "cache-control": "no-store",
  pragma: "no-cache",
};
const BASIC_CHALLENGE = 'Basic realm="capstan"';

const invalidRequest = (d: string) => new OAuthError("invalid_request", d);

type TBasic = { clientId: string; clientSecret: string } | null;

function formDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, " "));
}

function parseBasic(authorization: string | null): TBasic {
  if (authorization === null) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=._~-]*)\s*$/i.exec(authorization);
  if (!m) {
    if (/^Basic\b/i.test(authorization))
      throw new OAuthError("invalid_client", "client authentication failed: malformed Basic credentials");
    throw invalidRequest("the Authorization header of the token endpoint must use the Basic scheme");
  }
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new OAuthError("invalid_client", "client authentication failed: malformed Basic credentials");
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError("invalid_client", "client authentication failed: malformed Basic credentials");
  }
}

function readForm(text: string): Map<string, string> {
  const params = new URLSearchParams(text);
  const out = new Map<string, string>();
  for (const [k, v] of params) {
    if (out.has(k)) throw invalidRequest(`parameter ${k} is repeated`);
    out.set(k, v);
  }
  return out;
}

async function grant(
  form: Map<string, string>,
  basic: TBasic,
): Promise<{ clientId: string | null; result: TTokenResponse }> {
  const grantType = form.get("grant_type");
  const bodyId = form.get("client_id") ?? null;
  const bodySecret = form.get("client_secret") ?? null;
  if (!grantType) throw invalidRequest("grant_type is required");
  if (grantType !== "client_credentials" && grantType !== TOKEN_EXCHANGE_GRANT) {
    throw new OAuthError(
      "unsupported_grant_type",
      `grant_type ${JSON.stringify(grantType)} is not supported; use client_credentials or ${TOKEN_EXCHANGE_GRANT}`,
    );
  }
  checkTarget(form.get("audience") ?? null, form.get("resource") ?? null);

  if (grantType === "client_credentials") {
    if (basic && (bodySecret !== null || (bodyId !== null && bodyId !== basic.clientId))) {
      throw invalidRequest("client credentials were sent both in the Authorization header and in the body; use one");
    }
    const clientId = basic?.clientId ?? bodyId;
    const clientSecret = basic?.clientSecret ?? bodySecret;
    if (!clientId) throw new OAuthError("invalid_client", "client authentication failed: no client credentials");
    if (!clientSecret) throw new OAuthError("invalid_client", "client authentication failed: no client secret");
    return { clientId, result: await clientCredentialsGrant(clientId, clientSecret) };
  }

  if (basic || bodySecret !== null) {
    throw invalidRequest("token exchange authenticates with the subject token: send client_id without a client secret");
  }
  if (!bodyId) throw new OAuthError("invalid_client", "client authentication failed: client_id is required");
  const subjectToken = form.get("subject_token");
  const subjectType = form.get("subject_token_type");
  if (!subjectToken) throw invalidRequest("subject_token is required");
  if (!subjectType) throw invalidRequest("subject_token_type is required");
  if (!SUBJECT_TOKEN_TYPES.includes(subjectType)) {
    throw invalidRequest(`subject_token_type must be one of ${SUBJECT_TOKEN_TYPES.join(", ")}`);
  }
  if (form.has("actor_token") || form.has("actor_token_type"))
    throw invalidRequest("actor tokens (delegation) are not supported");
  const requested = form.get("requested_token_type");
  if (
    requested !== undefined &&
    requested !== ACCESS_TOKEN_TYPE &&
    requested !== "urn:ietf:params:oauth:token-type:jwt"
  ) {
    throw invalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  return { clientId: bodyId, result: await tokenExchangeGrant(bodyId, subjectToken) };
}

function oauthError(err: OAuthError, basicUsed: boolean, correlationId: string): Response {
  const headers: Record<string, string> = { ...JSON_HEADERS, "x-correlation-id": correlationId };
  if (err.status === 401 && basicUsed) headers["www-authenticate"] = BASIC_CHALLENGE;
  return new Response(JSON.stringify({ error: err.error, error_description: err.description }), {
    status: err.status,
    headers,
  });
}

export async function handleOAuthToken(req: Request): Promise<Response> {
  let correlationId = newId("evt");
  let basicUsed = false;
  let clientId: string | null = null;
  try {
    try {
      correlationId = resolveCorrelation(req.headers).correlationId;
    } catch (err) {
      throw invalidRequest(err instanceof AppError ? err.message : "invalid X-Correlation-Id");
    }
    const url = new URL(req.url);
    if (url.searchParams.has("client_secret") || url.searchParams.has("subject_token")) {
      throw invalidRequest("credentials must be sent in the request body, never in the URL");
    }
    const contentType = req.headers.get("content-type") ?? "";
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
      throw invalidRequest("the request body must be application/x-www-form-urlencoded");
    }
    let text: string;
    try {
      text = await readBodyLimited(req, MAX_FORM_BYTES);
    } catch {
      throw invalidRequest(`the request body exceeds ${MAX_FORM_BYTES} bytes`);
    }
    const authorization = req.headers.get("authorization");
    basicUsed = authorization !== null && /^Basic\b/i.test(authorization);
    const basic = parseBasic(authorization);
    const form = readForm(text);
    clientId = basic?.clientId ?? form.get("client_id") ?? null;
    await getDb();
    const { result } = await grant(form, basic);
    logger.info("oauth.token_issued", {
      client_id: clientId,
      grant_type: form.get("grant_type"),
      correlation_id: correlationId,
    });
    return new Response(JSON.stringify(result), {
      status: 200,
      headers: { ...JSON_HEADERS, "x-correlation-id": correlationId },
    });
  } catch (err) {
    if (err instanceof OAuthError) {
      logger.info("oauth.token_denied", {
        client_id: clientId,
        error: err.error,
        error_description: err.description,
        correlation_id: correlationId,
      });
      return oauthError(err, basicUsed, correlationId);
    }
    logger.error("oauth.token_failed", { correlation_id: correlationId, error: String((err as Error)?.stack ?? err) });
    return new Response(
      JSON.stringify({
        error: "server_error",
        error_description: `internal error; quote correlation id ${correlationId}`,
      }),
      { status: 500, headers: { ...JSON_HEADERS, "x-correlation-id": correlationId } },
    );
  }
}

/** OpenAPI 3.1 path item of the token endpoint, for registerOpenApiPaths (it lives outside tRPC). */
export function oauthTokenOpenApiPaths(): Record<string, unknown> {
  const str = (description: string) => ({ type: "string", description });
  const error = (description: string) => ({
    description,
    headers: { "Cache-Control": { schema: { type: "string", const: "no-store" } } },
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["error", "error_description"],
          properties: {
            error: {
              type: "string",
              enum: [
                "invalid_request",
                "invalid_client",
                "invalid_grant",
                "unauthorized_client",
                "unsupported_grant_type",
                "invalid_target",
                "server_error",
              ],
            },
            error_description: str("Names the check that failed"),
          },
        },
      },
    },
  });
  return {
    "/v1/oauth/token": {
      post: {
        operationId: "oauthToken",
        tags: ["Service identities"],
        summary: "Issue a Bridge token to a service identity (client_credentials or RFC 8693 token exchange)",
        description:
          "OAuth 2.0 token endpoint. client_credentials: client_id and client_secret via HTTP Basic (RFC 6749 2.3.1) or the body, " +
          "not both. Token exchange: client_id (no secret) plus an external OIDC JWT whose issuer, subject and audience match the " +
          `identity's federation. The result is an ES256 JWT with audience \`bridge\`, valid ${BRIDGE_TOKEN_TTL_SECONDS} s. ` +
          "Responses are RFC 6749 JSON, not problem documents.",
        security: [],
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                required: ["grant_type"],
                properties: {
                  grant_type: { type: "string", enum: ["client_credentials", TOKEN_EXCHANGE_GRANT] },
                  client_id: str("The service identity id (svc_...)"),
                  client_secret: str("client_credentials only, when not sent with HTTP Basic"),
                  subject_token: str("Token exchange: the external OIDC JWT"),
                  subject_token_type: { type: "string", enum: SUBJECT_TOKEN_TYPES },
                  requested_token_type: { type: "string", enum: [ACCESS_TOKEN_TYPE] },
                  audience: str('Optional: "bridge"'),
                  resource: str("Optional (RFC 8707): a URL of this service"),
                  scope: str('Ignored; the granted scope is always "bridge"'),
                },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "Token issued",
            headers: { "Cache-Control": { schema: { type: "string", const: "no-store" } } },
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["access_token", "token_type", "expires_in"],
                  properties: {
                    access_token: { type: "string" },
                    token_type: { type: "string", const: "Bearer" },
                    expires_in: { type: "integer" },
                    scope: { type: "string" },
                    issued_token_type: { type: "string", description: "Token exchange only" },
                  },
                },
              },
            },
          },
          "400": error("invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type or invalid_target"),
          "401": {
            ...error("invalid_client"),
            headers: {
              "Cache-Control": { schema: { type: "string", const: "no-store" } },
              "WWW-Authenticate": {
                schema: { type: "string" },
                description: `${BASIC_CHALLENGE} when HTTP Basic was used`,
              },
            },
          },
          "500": error("server_error (quote the correlation id of the description)"),
        },
      },
    },
  };
}
