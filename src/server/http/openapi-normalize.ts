/**
 * The last pass over the published document, applied to every operation
 * whatever produced it (trpc-to-openapi, the Bridge, raw routes), so a new
 * operation is normalised without anyone remembering to:
 * - only standard formats: a `format` outside JSON Schema 2020-12 and the
 *   OpenAPI registry (zod emits e.g. `starts_with`) is dropped; zod always
 *   pairs such formats with an equivalent `pattern`, which stays;
 * - every operation states its security (`[]` when public) and has an
 *   operationId;
 * - components nothing refers to (the generator's error.* leftovers) are removed.
 */
type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const STANDARD_FORMATS = new Set([
  // JSON Schema 2020-12
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
  // OpenAPI format registry
  "int32",
  "int64",
  "float",
  "double",
  "byte",
  "binary",
  "password",
]);

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Removes non-standard formats in place; a format without a pattern beside it is an error (it would silently stop constraining). */
function standardFormats(node: unknown, where: string): void {
  if (Array.isArray(node)) {
    node.forEach((n, i) => standardFormats(n, `${where}/${i}`));
    return;
  }
  if (!node || typeof node !== "object") return;
  const o = node as TJson;
  if (typeof o.format === "string" && !STANDARD_FORMATS.has(o.format) && o.type === "string") {
    if (typeof o.pattern !== "string")
      throw new Error(`OpenAPI: non-standard format "${o.format}" without a pattern at ${where}`);
    delete o.format;
  }
  for (const [k, v] of Object.entries(o)) standardFormats(v, `${where}/${k}`);
}

function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/v1\//, "")
    .split(/[/:{}.\-_]+/)
    .filter(Boolean);
  return [method, ...words].map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
}

/** Removes components nothing refers to (the generator's error.* leftovers), until none is left. */
function dropUnused(doc: TJson, kind: "responses" | "schemas"): void {
  const bag = doc.components?.[kind] as TJson | undefined;
  if (!bag) return;
  for (let removed = true; removed;) {
    removed = false;
    const text = JSON.stringify({ ...doc, components: { ...doc.components, [kind]: undefined } }) + JSON.stringify(bag);
    for (const name of Object.keys(bag)) {
      const ref = JSON.stringify(`#/components/${kind}/${name}`);
      const own = JSON.stringify(bag[name]);
      // Referenced from anywhere but its own definition.
      if (text.split(ref).length - 1 - (own.split(ref).length - 1) > 0) continue;
      delete bag[name];
      removed = true;
    }
  }
  if (!Object.keys(bag).length) delete doc.components[kind];
}

export function normalizeDocument(doc: TJson): TJson {
  standardFormats(doc.paths, "#/paths");
  standardFormats(doc.components?.schemas, "#/components/schemas");
  for (const [path, item] of Object.entries<TJson>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as TJson | undefined;
      if (!op) continue;
      op.security ??= [];
      op.operationId ??= operationId(method, path);
    }
  }
  dropUnused(doc, "responses");
  dropUnused(doc, "schemas");
  return doc;
}

/** Discovery routes outside /v1 (served through rewrites) and the document itself. */
export function discoveryOpenApiPaths(): TJson {
  const json = (description: string, schema: TJson) => ({ description, content: { "application/json": { schema } } });
  const jwk = {
    type: "object",
    required: ["kty", "kid"],
    properties: {
      kty: { type: "string" },
      kid: { type: "string" },
      alg: { type: "string" },
      use: { type: "string" },
      crv: { type: "string" },
      x: { type: "string" },
      y: { type: "string" },
    },
  };
  return {
    "/v1/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        summary: "This document (OpenAPI 3.1)",
        tags: ["Health"],
        security: [],
        responses: {
          "200": json("The OpenAPI document", {
            type: "object",
            required: ["openapi", "info", "paths"],
            properties: { openapi: { type: "string" }, info: { type: "object" }, paths: { type: "object" } },
          }),
        },
      },
    },
    "/.well-known/jwks.json": {
      get: {
        operationId: "getJwks",
        summary: "Public keys that verify Capstan-issued tokens (ES256)",
        tags: ["Service identities"],
        security: [],
        responses: {
          "200": json("JSON Web Key Set", {
            type: "object",
            required: ["keys"],
            properties: { keys: { type: "array", items: jwk } },
          }),
        },
      },
    },
    "/.well-known/oauth-authorization-server": {
      get: {
        operationId: "getOAuthAuthorizationServerMetadata",
        summary: "OAuth 2.0 authorization server metadata (RFC 8414)",
        tags: ["Service identities"],
        security: [],
        responses: {
          "200": json("Authorization server metadata", {
            type: "object",
            required: ["issuer", "jwks_uri", "token_endpoint"],
            properties: {
              issuer: { type: "string" },
              jwks_uri: { type: "string" },
              token_endpoint: { type: "string" },
            },
          }),
        },
      },
    },
    "/.well-known/openid-configuration": {
      get: {
        operationId: "getOpenIdConfiguration",
        summary: "Issuer metadata: issuer, JWKS and token endpoint",
        tags: ["Service identities"],
        security: [],
        responses: {
          "200": json("OpenID provider metadata", {
            type: "object",
            required: ["issuer", "jwks_uri", "token_endpoint"],
            properties: {
              issuer: { type: "string" },
              jwks_uri: { type: "string" },
              token_endpoint: { type: "string" },
              id_token_signing_alg_values_supported: { type: "array", items: { type: "string" } },
              token_endpoint_auth_methods_supported: { type: "array", items: { type: "string" } },
              grant_types_supported: { type: "array", items: { type: "string" } },
              response_types_supported: { type: "array", items: { type: "string" } },
              subject_types_supported: { type: "array", items: { type: "string" } },
            },
          }),
        },
      },
    },
  };
}
