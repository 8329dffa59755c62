import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256>`
 * over `${webhook-id}.${webhook-timestamp}.${body}`, keyed with the base64
 * part of a `whsec_` secret (32 random bytes here; the spec asks >= 24).
 */
export function newWebhookSecret(): string {
  return "whsec_" + randomBytes(32).toString("base64");
}

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return "v1," + createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
}

export function webhookHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const ts = Math.floor(now / 1000);
  return {
    "content-type": "application/cloudevents+json",
    "webhook-id": id,
    "webhook-timestamp": String(ts),
    "webhook-signature": signWebhook(secret, id, ts, body),
    "user-agent": "Capstan-Webhooks/1.0",
  };
}
