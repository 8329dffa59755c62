import { z } from "zod";
import { BRIDGE_ACTIONS, REASON_STATUS } from "./bridge.contract";

type TJson = Record<string, unknown>;

/** JSON Schema of a request; recursive parts (any JSON value) become `{}` since refs to local $defs do not resolve inside OpenAPI. */
function schemaOf(s: z.ZodType): TJson {
  const { $schema: _ignored, $defs: _defs, ...rest } = z.toJSONSchema(s, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as TJson;
  return JSON.parse(JSON.stringify(rest).replace(/\{"\$ref":"#\/\$defs\/[^"]+"\}/g, "{}")) as TJson;
}

const problem = (description: string, headers?: TJson): TJson => ({
  description,
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  ...(headers ? { headers } : {}),
});

/** OpenAPI paths of the Bridge and the runner endpoint (outside tRPC), with BridgeRequest per capability and action. */
export function bridgeOpenApiPaths(): TJson {
  const requests: TJson[] = [];
  for (const [capability, actions] of Object.entries(BRIDGE_ACTIONS)) {
    for (const [action, schema] of Object.entries(actions as Record<string, z.ZodType | null>)) {
      if (schema) requests.push({ title: `${capability} ${action}`, ...schemaOf(schema) });
    }
  }
  const output = {
    type: "object",
    required: ["capability_invocation_id", "capability", "action", "outcome", "provider", "fallback_used", "usage", "output"],
    properties: {
      capability_invocation_id: { type: "string", pattern: "^cap_[0-7][0-9a-hjkmnp-tv-z]{25}$" },
      capability: { type: "string" },
      action: { type: "string" },
      outcome: { const: "completed" },
      provider: { type: "string" },
      fallback_used: { type: "boolean" },
      usage: { type: "object", required: ["units", "unit"], properties: { units: { type: "number", minimum: 0 }, unit: { enum: ["tokens", "ms", "calls", "bytes"] } } },
      output: {},
    },
  };
  const reasons = Object.entries(REASON_STATUS).map(([r, s]) => `${r} ${s}`).join(", ");
  return {
    "/v1/capabilities/{capability}/{action}": {
      post: {
        summary: "Invoke a capability within the product's confirmed contract",
        description: `Bridge-audience token (POST /v1/oauth/token). Denials are problem documents with a spec 6.3 reason: ${reasons}. Every response carries Capstan-Overhead-Ms.`,
        tags: ["Bridge"],
        security: [{ bearerAuth: [] }],
        "x-service-audience": "bridge",
        parameters: [
          { name: "capability", in: "path", required: true, schema: { enum: ["ai.generate", "storage.object", "data.kv", "email.send"] } },
          { name: "action", in: "path", required: true, schema: { enum: ["generate", "read", "write", "delete", "list", "get", "set", "increment", "send"] } },
          { name: "X-Correlation-Id", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 64 } },
          { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 256 } },
        ],
        requestBody: { required: true, content: { "application/json": { schema: { oneOf: requests } } } },
        responses: {
          "200": { description: "BridgeOutput", content: { "application/json": { schema: output } } },
          "400": problem("Bad request"),
          "401": problem("Unauthenticated", { "WWW-Authenticate": { schema: { type: "string" } } }),
          "403": problem("outside_contract, permission_denied, policy_blocked or output_blocked"),
          "404": problem("Unknown capability or action"),
          "409": problem("binding_missing or binding_revoked; or an Idempotency-Key in flight"),
          "422": problem("Body schema failure, or provider_rejected"),
          "429": problem("usage_denied: budget exhausted", { "Retry-After": { schema: { type: "string" } } }),
          "500": problem("Internal error"),
          "503": problem("provider_unavailable"),
        },
      },
    },
    "/v1/runner/capability-invocations": {
      post: {
        summary: "Invoke a capability for an in-flight runner execution",
        description: "Runner-audience token with ws, prod, exe and inv claims. Body {capability, action, request: BridgeRequest}. Answers 200 with the shape of capability.invocation_resulted (spec 6.3), the output inline.",
        tags: ["Bridge"],
        security: [{ bearerAuth: [] }],
        "x-service-audience": "runner",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object", additionalProperties: false, required: ["capability", "action", "request"],
                properties: { capability: { type: "string" }, action: { type: "string" }, request: { oneOf: requests } },
              },
            },
          },
        },
        responses: {
          "200": { description: "RunnerCapabilityResult (the capability.invocation_resulted shape)", content: { "application/json": { schema: { $ref: "#/components/schemas/RunnerCapabilityResult" } } } },
          "401": problem("Unauthenticated", { "WWW-Authenticate": { schema: { type: "string" } } }),
          "422": problem("Validation failed"),
          "500": problem("Internal error"),
          "503": problem("Unavailable"),
        },
      },
    },
  };
}
