import { GENERIC_SIGNATURE, GITHUB_SIGNATURE, receivePush } from "@/server/domain/deployments/push-deliveries.service";
import { readBodyLimited } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { problemResponse } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";

/**
 * POST /v1/hooks/products/{prod}/push: a repository's push event, signed over
 * its raw body with the product's push-hook secret (no bearer), so its own
 * handler: the signed bytes must be the bytes received.
 */
const MAX_PUSH_BYTES = 1024 * 1024;

export async function handlePushHook(req: Request, productId: string): Promise<Response> {
  const instance = new URL(req.url).pathname;
  let correlationId = "";
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    await getDb();
    const raw = await readBodyLimited(req, MAX_PUSH_BYTES);
    const out = await receivePush(
      productId,
      raw,
      {
        github: req.headers.get(GITHUB_SIGNATURE),
        generic: req.headers.get(GENERIC_SIGNATURE),
        deliveryId: req.headers.get("x-github-delivery") ?? req.headers.get("x-capstan-delivery"),
        event: req.headers.get("x-github-event") ?? req.headers.get("x-gitea-event"),
      },
      correlationId,
    );
    const headers: Record<string, string> = { "x-correlation-id": correlationId };
    if (out.replayed) headers["idempotent-replayed"] = "true";
    return Response.json(out.pong ? { status: "pong" } : out.delivery, { status: out.status, headers });
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}

export function pushHookOpenApiPaths(): Record<string, unknown> {
  const problem = (description: string) => ({
    description,
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  });
  const delivery = {
    description: "The delivery and what it led to",
    content: { "application/json": { schema: { $ref: "#/components/schemas/PushDelivery" } } },
  };
  return {
    "/v1/hooks/products/{prod}/push": {
      post: {
        summary:
          "A repository's push (deploy on push): freezes the pushed commit of the product's ref, then confirms and deploys it to preview when its descriptor and contract did not change",
        tags: ["Products and revisions"],
        security: [],
        parameters: [
          { name: "prod", in: "path", required: true, schema: { type: "string" } },
          {
            name: "X-Hub-Signature-256",
            in: "header",
            required: false,
            schema: { type: "string" },
            description: "GitHub style: sha256=<hex HMAC-SHA256(secret, raw body)>",
          },
          {
            name: "Capstan-Signature",
            in: "header",
            required: false,
            schema: { type: "string" },
            description:
              'Generic: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>; refused beyond 300 s',
          },
          {
            name: "X-GitHub-Delivery",
            in: "header",
            required: false,
            schema: { type: "string" },
            description:
              "The delivery id (or X-Capstan-Delivery); a replay of an id answers its first outcome. Without one, the body's sha256 is the id.",
          },
          {
            name: "X-GitHub-Event",
            in: "header",
            required: false,
            schema: { type: "string" },
            description: "push (ping answers pong); other events are refused",
          },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["ref"],
                description: "GitHub's push event, or the generic form",
                properties: {
                  ref: {
                    type: "string",
                    minLength: 1,
                    maxLength: 256,
                    description: "The pushed ref (refs/heads/main, or main)",
                  },
                  after: {
                    type: "string",
                    pattern: "^[0-9a-f]{40}$",
                    description: "The pushed commit (frozen exactly); without it the ref is frozen",
                  },
                  deleted: { type: "boolean" },
                },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "ping (pong), or a replayed delivery (Idempotent-Replayed: true)",
            content: {
              "application/json": {
                schema: {
                  oneOf: [
                    { $ref: "#/components/schemas/PushDelivery" },
                    { type: "object", required: ["status"], properties: { status: { const: "pong" } } },
                  ],
                },
              },
            },
          },
          "202": delivery,
          "400": problem("Malformed JSON"),
          "401": problem("Missing or wrong signature"),
          "404": problem("No push hook for this product"),
          "413": problem("Too large"),
          "422": problem("Not a push, a ref the product does not track, a deleted ref"),
          "500": problem("Internal error"),
          "503": problem("Service unavailable"),
        },
      },
    },
  };
}
