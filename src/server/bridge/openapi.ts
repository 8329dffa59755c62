import { z } from "zod";
import { BRIDGE_ACTIONS, REASON_STATUS } from "./bridge.contract";

type TJson = Record<string, unknown>;

/** JSON Schema of a request; recursive parts (any JSON value) become `{}` since refs to local $defs do not resolve inside OpenAPI. */
function schemaOf(s: z.ZodType): TJson {
  const {
    $schema: _ignored,
    $defs: _defs,
    ...rest
  } = z.toJSONSchema(s, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as TJson;
  return JSON.parse(JSON.stringify(rest).replace(/\{"\$ref":"#\/\$defs\/[^"]+"\}/g, "{}")) as TJson;
}

const problem = (description: string, headers?: TJson): TJson => ({
  description,
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  ...(headers ? { headers } : {}),
});

const OVERHEAD = {
  "Capstan-Overhead-Ms": {
    schema: { type: "string", pattern: "^[0-9]+(\\.[0-9]+)?$" },
    description:
      "Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time",
  },
  "Server-Timing": {
    schema: { type: "string" },
    description:
      "Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total",
  },
};

/** Responses of a Bridge call; `capability`/`action` narrow the output when the operation is one action's. */
function bridgeResponses(capability?: string, action?: string): TJson {
  const output = {
    type: "object",
    required: [
      "capability_invocation_id",
      "capability",
      "action",
      "outcome",
      "provider",
      "fallback_used",
      "usage",
      "output",
    ],
    properties: {
      capability_invocation_id: { type: "string", pattern: "^cap_[0-7][0-9a-hjkmnp-tv-z]{25}$" },
      capability: capability ? { type: "string", const: capability } : { type: "string" },
      action: action ? { type: "string", const: action } : { type: "string" },
      outcome: { const: "completed" },
      provider: { type: "string" },
      fallback_used: { type: "boolean" },
      usage: {
        type: "object",
        required: ["units", "unit"],
        properties: { units: { type: "number", minimum: 0 }, unit: { enum: ["tokens", "ms", "calls", "bytes"] } },
      },
      output: {},
    },
  };
  const p = (description: string, headers: TJson = {}) => problem(description, { ...OVERHEAD, ...headers });
  return {
    "200": { description: "BridgeOutput", headers: OVERHEAD, content: { "application/json": { schema: output } } },
    "400": p("Bad request (an Idempotency-Key or X-Correlation-Id out of range)"),
    "401": p("Unauthenticated", { "WWW-Authenticate": { schema: { type: "string" } } }),
    "403": p("outside_contract, permission_denied, policy_blocked or output_blocked"),
    "404": p("Unknown capability or action"),
    "409": p("binding_missing or binding_revoked; or an Idempotency-Key in flight"),
    "413": p("The request body is too large"),
    "415": p("The request body is not application/json"),
    "422": p("Body schema failure, or provider_rejected"),
    "429": p("usage_denied (budget exhausted) or rate_limited", { "Retry-After": { schema: { type: "string" } } }),
    "500": p("Internal error"),
    "503": p("provider_unavailable"),
  };
}

const HEADERS = [
  { name: "X-Correlation-Id", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 64 } },
  { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 256 } },
];

const camel = (s: string) =>
  s
    .split(/[._-]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/**
 * OpenAPI paths of the Bridge and the runner endpoint (outside tRPC). The
 * Bridge is documented twice, both true: once per capability and action
 * (`/v1/capabilities/data.kv/get`, exact request schema, what a generated
 * client calls) and as the spec 4.3 template, whose body is `anyOf` the
 * titled per-action schemas (the path, not the body, says which applies, so
 * `oneOf` would reject valid requests whose shapes overlap). The runner body
 * carries capability and action, so its `oneOf` branches are disjoint by
 * their `const` pair.
 */
export function bridgeOpenApiPaths(): TJson {
  const requests: TJson[] = [];
  const runnerBranches: TJson[] = [];
  const perAction: TJson = {};
  for (const [capability, actions] of Object.entries(BRIDGE_ACTIONS)) {
    for (const [action, schema] of Object.entries(actions as Record<string, z.ZodType | null>)) {
      if (!schema) continue;
      const body = { title: `${capability} ${action}`, ...schemaOf(schema) };
      requests.push(body);
      runnerBranches.push({
        title: `runner ${capability} ${action}`,
        type: "object",
        additionalProperties: false,
        required: ["capability", "action", "request"],
        properties: {
          capability: { type: "string", const: capability },
          action: { type: "string", const: action },
          request: schemaOf(schema),
        },
      });
      perAction[`/v1/capabilities/${capability}/${action}`] = {
        post: {
          operationId: `bridge${camel(capability)}${camel(action)}`,
          summary: `Bridge: ${capability} ${action}`,
          description:
            "The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).",
          tags: ["Bridge"],
          security: [{ bearerAuth: [] }],
          "x-service-audience": "bridge",
          parameters: HEADERS,
          requestBody: { required: true, content: { "application/json": { schema: schemaOf(schema) } } },
          responses: bridgeResponses(capability, action),
        },
      };
    }
  }
  const reasons = Object.entries(REASON_STATUS)
    .map(([r, s]) => `${r} ${s}`)
    .join(", ");
  return {
    "/v1/capabilities/{capability}/{action}": {
      post: {
        operationId: "bridgeInvoke",
        summary: "Invoke a capability within the product's confirmed contract",
        description: `Bridge-audience token (POST /v1/oauth/token). The body is the schema titled "<capability> <action>" (one operation per pair is documented too). Denials are problem documents with a spec 6.3 reason: ${reasons}. Every response carries Capstan-Overhead-Ms and Server-Timing.`,
        tags: ["Bridge"],
        security: [{ bearerAuth: [] }],
        "x-service-audience": "bridge",
        parameters: [
          {
            name: "capability",
            in: "path",
            required: true,
            schema: { type: "string", enum: ["ai.generate", "storage.object", "data.kv", "email.send"] },
          },
          {
            name: "action",
            in: "path",
            required: true,
            schema: {
              type: "string",
              enum: ["generate", "read", "write", "delete", "list", "get", "set", "increment", "send"],
            },
          },
          ...HEADERS,
        ],
        requestBody: { required: true, content: { "application/json": { schema: { anyOf: requests } } } },
        responses: bridgeResponses(),
      },
    },
    ...perAction,
    "/v1/runner/capability-invocations": {
      post: {
        operationId: "runnerCapabilityInvoke",
        summary: "Invoke a capability for an in-flight runner execution",
        description:
          "Runner-audience token with ws, prod, exe and inv claims. Body {capability, action, request: BridgeRequest}. Answers 200 with the shape of capability.invocation_resulted (spec 6.3), the output inline.",
        tags: ["Bridge"],
        security: [{ bearerAuth: [] }],
        "x-service-audience": "runner",
        parameters: [HEADERS[0]],
        requestBody: { required: true, content: { "application/json": { schema: { oneOf: runnerBranches } } } },
        responses: {
          "200": {
            description: "RunnerCapabilityResult (the capability.invocation_resulted shape)",
            content: { "application/json": { schema: { $ref: "#/components/schemas/RunnerCapabilityResult" } } },
          },
          "400": problem("Bad request"),
          "401": problem("Unauthenticated", { "WWW-Authenticate": { schema: { type: "string" } } }),
          "413": problem("The request body is too large"),
          "415": problem("The request body is not application/json"),
          "422": problem("Validation failed"),
          "500": problem("Internal error"),
          "503": problem("Unavailable"),
        },
      },
    },
  };
}
