import type { AnyTRPCRouter } from "@trpc/server";
import { generateOpenApiDocument } from "trpc-to-openapi";
import { appRouter } from "@/server/trpc/root";
import type { TMeta } from "@/server/trpc/init";
import { ERROR_CATALOGUE } from "@/server/platform/errors";
import { env } from "@/server/platform/env";

/**
 * The published OpenAPI 3.1 document: generated from the zod contracts, then
 * post-processed where trpc-to-openapi is not true to our contract (it
 * documents every success as 200 and every error as 400 JSON): real success
 * statuses, problem+json error responses per spec 4.1, the bearer scheme, and
 * the routes that live outside tRPC (health, Bridge). Cached per process.
 */
type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ERROR_STATUSES = [400, 401, 403, 404, 409, 422, 500, 503] as const;

const PROBLEM_SCHEMA = {
  type: "object",
  required: ["type", "title", "status", "detail", "instance", "code", "correlation_id"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    instance: { type: "string" },
    code: { type: "string", enum: Object.keys(ERROR_CATALOGUE) },
    correlation_id: { type: "string", pattern: "^evt_[0-7][0-9a-hjkmnp-tv-z]{25}$" },
    reason: { type: "string" },
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["path"],
        properties: {
          path: { type: "string" },
          message: { type: "string" },
          code: { type: "string" },
          retryable: { type: "boolean" },
        },
      },
    },
  },
};

function errorResponse(status: number): TJson {
  const r: TJson = {
    description: Object.values(ERROR_CATALOGUE).find((c) => c.status === status)?.title ?? "Error",
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  };
  if (status === 401) {
    r.headers = {
      "WWW-Authenticate": {
        schema: { type: "string" },
        description: 'Bearer realm="capstan", error="invalid_token", error_description="..."',
      },
    };
  }
  if (status === 429) r.headers = { "Retry-After": { schema: { type: "string" } } };
  return r;
}

function metaByOperation(router: AnyTRPCRouter): Map<string, TMeta> {
  const out = new Map<string, TMeta>();
  const procs = router._def.procedures as unknown as Record<string, { _def: { meta?: TMeta } }>;
  for (const p of Object.values(procs)) {
    const m = p._def.meta;
    if (m?.openapi) out.set(`${m.openapi.method.toLowerCase()} ${m.openapi.path.replace(/\{(\w+)\}/g, "{$1}")}`, m);
  }
  return out;
}

/** The document of the app's router, or of one a test extends with a planted operation. */
export function buildOpenApiDocument(baseUrl: string, router: AnyTRPCRouter = appRouter): TJson {
  const doc = generateOpenApiDocument(router as typeof appRouter, {
    title: "Capstan API",
    version: "1.0.0",
    description: "Control API and Bridge of Capstan. Errors are application/problem+json (RFC 9457). See /docs.",
    baseUrl,
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
  }) as TJson;
  const metas = metaByOperation(router);
  doc.components ??= {};
  doc.components.schemas = {
    ...doc.components.schemas,
    Problem: PROBLEM_SCHEMA,
    RunnerCapabilityResult: {
      type: "object",
      required: [
        "capability_invocation_id",
        "workspace_id",
        "product_id",
        "outcome",
        "reason",
        "output",
        "provider",
        "fallback_used",
        "usage",
        "finished_at",
      ],
      properties: {
        capability_invocation_id: { type: "string" },
        workspace_id: { type: "string" },
        product_id: { type: "string" },
        outcome: { enum: ["completed", "denied", "failed"] },
        reason: { type: ["string", "null"] },
        output: {},
        provider: { type: ["string", "null"] },
        fallback_used: { type: "boolean" },
        usage: {
          type: "object",
          required: ["units", "unit"],
          properties: { units: { type: "number" }, unit: { type: "string" } },
        },
        finished_at: { type: "string", format: "date-time" },
        binding_id: { type: ["string", "null"] },
      },
    },
  };

  for (const [path, item] of Object.entries<TJson>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<TJson>(item)) {
      if (typeof op !== "object" || !op.responses) continue;
      const meta = metas.get(`${method} ${path}`);
      const status = meta?.successStatus ?? 200;
      const ok = op.responses["200"];
      const responses: TJson = {};
      if (status === 204) responses["204"] = { description: "No content" };
      else responses[String(status)] = { ...ok, description: ok?.description ?? "Success" };
      for (const s of ERROR_STATUSES) responses[String(s)] = errorResponse(s);
      for (const s of meta?.extraErrorStatuses ?? []) responses[String(s)] = errorResponse(s);
      // A JSON body can be too large (413) or not JSON at all (415): the REST boundary says so before the schema.
      if (op.requestBody) for (const s of [413, 415]) responses[String(s)] = errorResponse(s);
      op.responses = responses;
      op.parameters = [
        ...(op.parameters ?? []),
        {
          name: "X-Correlation-Id",
          in: "header",
          required: false,
          schema: { type: "string", minLength: 1, maxLength: 64 },
        },
        ...(method === "post"
          ? [
              {
                name: "Idempotency-Key",
                in: "header",
                required: false,
                schema: { type: "string", minLength: 1, maxLength: 256 },
              },
            ]
          : []),
      ];
    }
  }

  const health = (status: "ok" | "ready", summary: string): TJson => ({
    get: {
      summary,
      tags: ["Health"],
      security: [],
      responses: {
        "200": {
          description: "Healthy",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["status"],
                properties: { status: { type: "string", enum: [status] } },
              },
            },
          },
        },
        ...(status === "ready" ? { "503": errorResponse(503) } : {}),
      },
    },
  });
  doc.paths["/healthz"] = health("ok", "Liveness: the process is up");
  doc.paths["/readyz"] = health("ready", "Readiness: the database answers");
  for (const extra of extraPaths) Object.assign(doc.paths, extra());
  return normalizeDocument(doc);
}

/** Routes outside tRPC (the Bridge, well-known) register their documentation here. */
const extraPaths: Array<() => TJson> = [];
export function registerOpenApiPaths(fn: () => TJson): void {
  extraPaths.push(fn);
}

let cached: string | undefined;
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApiDocument(env().CAPSTAN_PUBLIC_URL));
  return cached;
}

// Routes outside tRPC document themselves here.
import { oauthTokenOpenApiPaths } from "./oauth-token-handler";
import { bridgeOpenApiPaths } from "@/server/bridge/openapi";
registerOpenApiPaths(oauthTokenOpenApiPaths);
registerOpenApiPaths(bridgeOpenApiPaths);
import { rawOpenApiPaths } from "./evidence-handler";
registerOpenApiPaths(rawOpenApiPaths);
import { paymentCallbackOpenApiPaths } from "./payment-callback-handler";
import { invoicePdfOpenApiPaths } from "./invoice-pdf-handler";
registerOpenApiPaths(invoicePdfOpenApiPaths);
registerOpenApiPaths(paymentCallbackOpenApiPaths);
import { logDownloadOpenApiPaths } from "./log-download-handler";
registerOpenApiPaths(logDownloadOpenApiPaths);
import { bucketObjectOpenApiPaths } from "./bucket-object-handler";
registerOpenApiPaths(bucketObjectOpenApiPaths);
import { pushHookOpenApiPaths } from "./push-hook-handler";
registerOpenApiPaths(pushHookOpenApiPaths);
import { discoveryOpenApiPaths, normalizeDocument } from "./openapi-normalize";
registerOpenApiPaths(discoveryOpenApiPaths);
