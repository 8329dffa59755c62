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

/**
 * Headers of one delivery attempt. `secrets` is the current secret first,
 * then, during a rotation's overlap, the previous one: `webhook-signature`
 * is then a space-separated list of two `v1,` signatures, and a receiver
 * holding either secret verifies (Standard Webhooks, section "Signature").
 */
export function webhookHeaders(
  secrets: string | readonly string[],
  id: string,
  body: string,
  now = Date.now(),
): Record<string, string> {
  const ts = Math.floor(now / 1000);
  const list = typeof secrets === "string" ? [secrets] : secrets;
  return {
    "content-type": "application/cloudevents+json",
    "webhook-id": id,
    "webhook-timestamp": String(ts),
    "webhook-signature": list.map((secret) => signWebhook(secret, id, ts, body)).join(" "),
    "user-agent": "Capstan-Webhooks/1.0",
  };
}
