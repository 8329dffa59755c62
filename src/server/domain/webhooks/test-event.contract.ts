import { z } from "zod";
import { zId } from "@/server/platform/ids";

/** The answer of "Send test event" (docs/decisions.md "Test buttons"): what was sent, what came back. */
export const ZWebhookTestResult = z
  .object({
    event_id: zId("evt").describe("The test event's id, also its webhook-id header"),
    subscription_id: zId("wb"),
    delivered: z.boolean().describe("True when the endpoint answered 2xx"),
    request: z.object({
      method: z.literal("POST"),
      url: z.string(),
      headers: z
        .record(z.string(), z.string())
        .describe("Including webhook-id, webhook-timestamp and webhook-signature"),
      body: z.string().describe("The CloudEvent sent, as JSON text"),
    }),
    response: z
      .object({
        status: z.number().int(),
        headers: z.record(z.string(), z.string()),
        body_excerpt: z.string().describe("The first 2048 bytes of the answer, as text"),
        body_truncated: z.boolean(),
      })
      .nullable()
      .describe("Null when no answer came (network error, timeout, refused address)"),
    error: z.string().nullable().describe("Why the delivery failed, in words; null when delivered"),
    duration_ms: z.number().int(),
    sent_at: z.string(),
  })
  .meta({ id: "WebhookTestResult" });
export type TWebhookTestResult = z.infer<typeof ZWebhookTestResult>;
