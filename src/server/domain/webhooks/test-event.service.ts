import { writeAuditStandalone } from "@/server/platform/audit";
import { unseal } from "@/server/platform/crypto";
import { scopedDb } from "@/server/platform/db/scoped";
import { egressBlocked, egressFetch } from "@/server/platform/egress";
import { env } from "@/server/platform/env";
import { notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { iso } from "@/server/platform/time";
import { webhookHeaders } from "./signing";
import type { TWebhookTestResult } from "./test-event.contract";

/**
 * "Send test event" (Stripe's button): one signed `webhook.test` CloudEvent,
 * sent now to this endpoint only, with the same headers, signature(s),
 * timeout, redirect rule and egress guard as a real delivery. It is not an
 * outbox event: no other subscription receives it, it is not retried, and it
 * leaves no delivery row; the request and the answer are returned, and an
 * audit record `webhook.tested` keeps the outcome. A disabled endpoint may be
 * tested (that is how one checks it is back).
 */
const EXCERPT_BYTES = 2048;

export async function sendTestEvent(
  caller: { userId: string; correlationId: string },
  workspaceId: string,
  id: string,
): Promise<TWebhookTestResult> {
  const sub = await scopedDb(workspaceId).eventSubscription.findUnique({
    where: { id },
    omit: { secretSealed: false, previousSecretSealed: false },
  });
  if (!sub) throw notFound(`Webhook endpoint ${id}`);
  const now = new Date();
  const aad = `webhook:${sub.id}`;
  const secrets = [unseal(sub.secretSealed, aad)];
  if (
    sub.previousSecretSealed &&
    sub.previousSecretExpiresAt &&
    sub.previousSecretExpiresAt.getTime() > now.getTime()
  ) {
    secrets.push(unseal(sub.previousSecretSealed, aad));
  }
  const eventId = newId("evt");
  const body = JSON.stringify({
    specversion: "1.0",
    id: eventId,
    type: "webhook.test",
    source: `/v1/workspaces/${workspaceId}`,
    subject: sub.id,
    time: iso(now),
    datacontenttype: "application/json",
    workspaceid: workspaceId,
    correlationid: caller.correlationId,
    data: {
      subscription_id: sub.id,
      message: "A test event sent from Capstan. It is delivered to this endpoint only and is not retried.",
    },
  });
  const headers = webhookHeaders(secrets, eventId, body, now.getTime());
  const started = performance.now();
  let response: TWebhookTestResult["response"] = null;
  let error: string | null = null;
  try {
    const res = await egressFetch("webhook", sub.url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(env().CAPSTAN_WEBHOOK_TIMEOUT_MS),
    });
    const { text, truncated } = await excerpt(res);
    response = {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      body_excerpt: text,
      body_truncated: truncated,
    };
    if (res.status < 200 || res.status >= 300) {
      error =
        res.status >= 300 && res.status < 400
          ? `the endpoint answered ${res.status} (a redirect, which deliveries do not follow)`
          : `the endpoint answered ${res.status}, so a real delivery would be retried`;
    }
  } catch (err) {
    const blocked = egressBlocked(err);
    error = blocked
      ? blocked.message.slice(0, 500)
      : (err as Error).name === "TimeoutError"
        ? `no answer within ${env().CAPSTAN_WEBHOOK_TIMEOUT_MS} ms`
        : `the endpoint could not be reached: ${(err as Error).message}`.slice(0, 500);
  }
  const durationMs = Math.round(performance.now() - started);
  await writeAuditStandalone({
    workspaceId,
    actor: { kind: "user", id: caller.userId },
    action: "webhook.tested",
    target: { kind: "event_subscription", id: sub.id },
    correlationId: caller.correlationId,
    details: { test: true, event_id: eventId, status_code: response?.status ?? null, error, duration_ms: durationMs },
  });
  return {
    event_id: eventId,
    subscription_id: sub.id,
    delivered: error === null,
    request: { method: "POST", url: sub.url, headers, body },
    response,
    error,
    duration_ms: durationMs,
    sent_at: iso(now),
  };
}

/** The first EXCERPT_BYTES of the body, then the rest is cancelled (frees the connection). */
async function excerpt(res: Awaited<ReturnType<typeof egressFetch>>): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: "", truncated: false };
  // undici types the stream's chunks as any; they are bytes.
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size > EXCERPT_BYTES) {
        truncated = true;
        break;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const all = Buffer.concat(chunks);
  return { text: all.subarray(0, EXCERPT_BYTES).toString("utf8"), truncated };
}
