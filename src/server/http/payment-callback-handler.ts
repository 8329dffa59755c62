import { handleCallback, SIGNATURE_HEADER, STRIPE_SIGNATURE_HEADER } from "@/server/domain/billing/payments.service";
import { readBodyLimited } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { problemResponse } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";

/**
 * POST /v1/payments/callbacks/{gateway}: a payment gateway's event,
 * authenticated by the gateway's signature over the raw body (so its own
 * route: the signed bytes must be the bytes received), never a bearer.
 */
const MAX_CALLBACK_BYTES = 64 * 1024;

export async function handlePaymentCallback(req: Request, gateway: string): Promise<Response> {
  const instance = new URL(req.url).pathname;
  let correlationId = "";
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    await getDb();
    const raw = await readBodyLimited(req, MAX_CALLBACK_BYTES);
    const result = await handleCallback(
      gateway,
      raw,
      {
        signature: req.headers.get(SIGNATURE_HEADER),
        stripeSignature: req.headers.get(STRIPE_SIGNATURE_HEADER),
        contentType: req.headers.get("content-type"),
      },
      correlationId,
    );
    // A verified event about nothing of ours: acknowledged without a body, so the gateway stops retrying it.
    if ("ignored" in result) return new Response(null, { status: 204, headers: { "x-correlation-id": correlationId } });
    return Response.json(result, { status: 200, headers: { "x-correlation-id": correlationId } });
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}

export function paymentCallbackOpenApiPaths(): Record<string, unknown> {
  const problem = (description: string) => ({
    description,
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  });
  return {
    "/v1/payments/callbacks/{gateway}": {
      post: {
        summary:
          "A payment gateway's event, authenticated by its signature (manual: Capstan-Signature with CAPSTAN_MANUAL_GATEWAY_SECRET; stripe: Stripe-Signature with CAPSTAN_STRIPE_WEBHOOK_SECRET); idempotent per gateway event id, credits an order once",
        tags: ["Billing"],
        security: [],
        parameters: [
          { name: "gateway", in: "path", required: true, schema: { type: "string", enum: ["manual", "stripe"] } },
          {
            name: "Capstan-Signature",
            in: "header",
            required: false,
            schema: { type: "string" },
            description:
              'manual: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>; refused beyond 300 s',
          },
          {
            name: "Stripe-Signature",
            in: "header",
            required: false,
            schema: { type: "string" },
            description:
              "stripe: Stripe's webhook signature, verified with stripe.webhooks.constructEvent; refused beyond 300 s",
          },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                oneOf: [
                  {
                    type: "object",
                    additionalProperties: false,
                    required: ["id", "type", "order_id", "amount_minor", "currency"],
                    description: "manual gateway event",
                    properties: {
                      id: {
                        type: "string",
                        minLength: 1,
                        maxLength: 128,
                        description: "The gateway's event id (each is applied once)",
                      },
                      type: { type: "string", enum: ["payment.succeeded", "payment.failed"] },
                      order_id: { type: "string", pattern: "^pay_[0-7][0-9a-hjkmnp-tv-z]{25}$" },
                      amount_minor: { type: "integer", minimum: 1 },
                      currency: { type: "string" },
                      message: { type: "string", maxLength: 512 },
                    },
                  },
                  {
                    type: "object",
                    required: ["id", "object", "type", "data"],
                    description:
                      "Stripe event (checkout.session.completed, .async_payment_succeeded, .async_payment_failed, .expired; others are acknowledged with 204)",
                    properties: {
                      id: { type: "string" },
                      object: { type: "string", const: "event" },
                      type: { type: "string" },
                      data: { type: "object" },
                    },
                  },
                ],
              },
            },
          },
        },
        responses: {
          "200": {
            description: "Received",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  additionalProperties: false,
                  required: ["received", "duplicate", "order_id", "order_status"],
                  properties: {
                    received: { type: "boolean", const: true },
                    duplicate: { type: "boolean", description: "This event id was already received: nothing was done" },
                    order_id: { type: "string" },
                    order_status: { type: "string", enum: ["pending", "succeeded", "failed", "expired"] },
                  },
                },
              },
            },
          },
          "204": {
            description:
              "A verified event that concerns no order here (another event type, another integration's Checkout Session): acknowledged, nothing done",
          },
          "400": problem("Bad request"),
          "401": problem("Missing, invalid or stale signature"),
          "404": problem("Unknown gateway or order"),
          "413": problem("Too large"),
          "415": problem("Not JSON"),
          "422": problem("Not a payment event, or it does not match the order"),
          "500": problem("Internal error"),
          "503": problem("Service unavailable"),
        },
      },
    },
  };
}
