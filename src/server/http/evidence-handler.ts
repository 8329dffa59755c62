import { authenticateRequest } from "@/server/domain/identity/authenticate";
import { resolveWorkspaceAccess } from "@/server/domain/identity/workspace-access.service";
import { readEvidence } from "@/server/domain/source/evidence.service";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { AppError, problemResponse } from "@/server/platform/errors";
import { isId, newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { invalidToken } from "@/server/domain/signing-keys/jwt.service";
import type { TPrincipal } from "@/server/trpc/context";

/**
 * GET /v1/workspaces/{ws}/evidence/{sha256}: the bytes of an evidence blob
 * the workspace owns (uploads, invocation request/response bodies and logs,
 * build logs). Raw bytes, not JSON, so it has its own route. Served as an
 * attachment with `nosniff` so a browser never renders an app's output on
 * Capstan's origin.
 */
export async function handleEvidenceDownload(
  req: Request,
  ws: string,
  sha256: string,
  opts: { principal?: TPrincipal | null } = {},
): Promise<Response> {
  const instance = new URL(req.url).pathname;
  let correlationId = "";
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    await getDb();
    if (ws !== PLATFORM_WORKSPACE_ID && !isId("ws", ws)) {
      throw new AppError("bad_request", "ws must be a ws_ id", {
        errors: [{ path: "/ws", message: "must be a ws_ id" }],
      });
    }
    // A bearer token when one is presented; otherwise the console's session (resolved by the route).
    const auth =
      opts.principal && !req.headers.get("authorization")
        ? { principal: opts.principal }
        : await authenticateRequest(req.headers.get("authorization"));
    if (!auth.principal) throw auth.error ?? invalidToken("no bearer token was presented");
    // Membership first (as every {ws} route): an outsider learns nothing, not even which paths are well-formed.
    await resolveWorkspaceAccess({
      principal: auth.principal,
      workspaceId: ws,
      minRole: "viewer",
      correlationId,
      operation: "evidence.download",
    });
    if (!/^[0-9a-f]{64}$/.test(sha256)) {
      throw new AppError("bad_request", "sha256 must be 64 lowercase hexadecimal characters", {
        errors: [{ path: "/sha256", message: "not a sha256" }],
      });
    }
    const { bytes, contentType } = await readEvidence(ws, sha256);
    return new Response(new Uint8Array(bytes), {
      status: 200,
      headers: {
        "content-type": contentType,
        "content-length": String(bytes.length),
        "x-content-type-options": "nosniff",
        "content-disposition": `attachment; filename="${sha256.slice(0, 16)}"`,
        "cache-control": "private, max-age=31536000, immutable",
        "x-correlation-id": correlationId,
      },
    });
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}

/** OpenAPI paths of the raw-bytes routes (uploads in, evidence out). */
export function rawOpenApiPaths(): Record<string, unknown> {
  const problem = (description: string) => ({
    description,
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  });
  const ws = { name: "ws", in: "path", required: true, schema: { type: "string" } };
  const evidence = {
    type: "object",
    required: ["uri", "sha256", "size_bytes"],
    properties: {
      uri: { type: "string", minLength: 1 },
      sha256: { type: "string", pattern: "^[0-9a-f]{64}$" },
      size_bytes: { type: "integer", minimum: 0 },
    },
  };
  return {
    "/v1/workspaces/{ws}/uploads": {
      post: {
        summary: "Upload raw bytes (an invocation body, a query string); answers an evidence reference",
        tags: ["Sessions and invocations"],
        security: [{ bearerAuth: [] }],
        parameters: [ws],
        requestBody: { required: true, content: { "*/*": { schema: { type: "string", format: "binary" } } } },
        responses: {
          "201": {
            description: "Upload",
            content: {
              "application/json": {
                schema: {
                  ...evidence,
                  required: ["id", "workspace_id", "uri", "sha256", "size_bytes", "content_type", "created_at"],
                  properties: {
                    ...evidence.properties,
                    id: { type: "string" },
                    workspace_id: { type: "string" },
                    content_type: { type: "string" },
                    created_at: { type: "string" },
                  },
                },
              },
            },
          },
          "400": problem("Bad request"),
          "401": problem("Unauthenticated"),
          "403": problem("Forbidden"),
          "404": problem("Not found"),
          "413": problem("Too large"),
          "422": problem("Empty body"),
          "500": problem("Internal error"),
          "503": problem("Service unavailable"),
        },
      },
    },
    "/v1/workspaces/{ws}/evidence/{sha256}": {
      get: {
        summary: "Download an evidence blob the workspace owns",
        tags: ["Sessions and invocations"],
        security: [{ bearerAuth: [] }],
        parameters: [
          ws,
          { name: "sha256", in: "path", required: true, schema: { type: "string", pattern: "^[0-9a-f]{64}$" } },
        ],
        responses: {
          "200": {
            description: "The bytes, with the content type they were stored with",
            headers: { "X-Content-Type-Options": { schema: { type: "string", const: "nosniff" } } },
            content: { "*/*": { schema: { type: "string", format: "binary" } } },
          },
          "400": problem("Bad request"),
          "401": problem("Unauthenticated"),
          "403": problem("Forbidden"),
          "404": problem("Not found"),
          "500": problem("Internal error"),
          "503": problem("Service unavailable"),
        },
      },
    },
  };
}
