import { z } from "zod";
import { oneTimeSecret } from "@/server/platform/one-time-secret";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { EVENT_TYPE_NAMES } from "@/server/platform/outbox";
import { ZResourceName } from "@/server/platform/names";
import { zPage } from "@/server/platform/pagination";

/**
 * Event subscriptions (webhooks) and dead letters. Shapes are ours (spec:
 * "subscription or delivery of events: not shown"); see docs/decisions.md.
 */
export const ZEventTypeFilter = z.union([z.enum(EVENT_TYPE_NAMES), z.literal("*")]);

export const ZSubscriptionCreate = z.strictObject({
  url: z.string().min(1).max(2048),
  event_types: z.array(ZEventTypeFilter).min(1).max(50),
  description: z.string().max(256).optional(),
  name: ZResourceName.optional().describe(
    "Unique in the workspace, ignoring case (409 name_taken). Default: the description, else the URL's host (with -2, -3... when taken)",
  ),
});

export const ZSubscription = z
  .object({
    id: zId("wb"),
    workspace_id: zWorkspaceId,
    name: z.string().describe("Unique in the workspace, ignoring case"),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    status: z.enum(["active", "disabled"]),
    disabled_reason: z.string().nullable(),
    secret_rotated_at: z
      .string()
      .nullable()
      .describe("When the signing secret was last rotated (null: the secret from creation)"),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .describe(
        "During a rotation's overlap: until when deliveries also carry a signature made with the previous secret. Null when only the current secret signs (the current secret does not expire).",
      ),
    last_activity_at: z.string().nullable().describe("When a delivery to this endpoint was last queued (null: never)"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "EventSubscription" });
export type TSubscription = z.infer<typeof ZSubscription>;

export const ZSubscriptionWithSecret = ZSubscription.extend({
  secret: oneTimeSecret(z.string(), "Standard Webhooks signing secret (whsec_...)."),
}).meta({ id: "EventSubscriptionWithSecret" });

export const ZSubscriptionList = zPage(ZSubscription).meta({ id: "EventSubscriptions" });

export const ZAttempt = z.object({
  attempt: z.number().int(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  created_at: z.string(),
});

export const ZDelivery = z
  .object({
    id: zId("whk"),
    subscription_id: zId("wb"),
    event_id: zId("evt"),
    event_type: z.string(),
    status: z.enum(["pending", "delivered", "failed", "dead"]),
    attempt_count: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
    attempts: z.array(ZAttempt),
  })
  .meta({ id: "WebhookDelivery" });
export const ZDeliveryList = zPage(ZDelivery).meta({ id: "WebhookDeliveries" });

/** A delivery that exhausted its retry schedule. */
export const ZDeadLetter = z
  .object({
    id: zId("dlq"),
    workspace_id: zWorkspaceId,
    subscription_id: zId("wb"),
    delivery_id: zId("whk"),
    event_id: zId("evt"),
    event_type: z.string(),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    redelivered_at: z.string().nullable(),
    redelivery_id: zId("whk").nullable(),
    created_at: z.string(),
  })
  .meta({ id: "DeadLetter" });
export type TDeadLetter = z.infer<typeof ZDeadLetter>;
export const ZDeadLetterList = zPage(ZDeadLetter).meta({ id: "DeadLetters" });

/** Body of `:rotate-secret` (optional). */
export const ZSubscriptionRotateSecret = z
  .strictObject({
    previous_secret_expires_in: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .optional()
      .describe(
        "Seconds the previous secret keeps signing deliveries next to the new one (0..604800, default 86400). During the overlap `webhook-signature` carries two `v1,` signatures (new secret first); 0 stops the old secret at once.",
      ),
  })
  .meta({ id: "EventSubscriptionRotateSecretRequest" });
