import { canonicalJson } from "./canonical-json";
import { keyedHashHex } from "./crypto";
import { db } from "./db/client";
import { AppError } from "./errors";
import { newId } from "./ids";

/**
 * Idempotency-Key handling shared by the REST API and the Bridge.
 * Scope = principal + method + path + key; retention 24 h. The claim is a
 * database row (unique on the scope), so several server processes on one
 * database run a request once. Same key + same body replays the stored
 * response; a different body is 422; a request still in flight is 409.
 * Responses of 5xx are not stored: the key is released so a retry can run.
 */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A claim older than this with no response is presumed crashed and may be taken over. */
export const IDEMPOTENCY_LOCK_MS = 60 * 1000;

export type TIdemScope = { principalId: string; method: string; path: string; key: string };
export type TStoredResponse = { status: number; headers: Record<string, string>; body: string };
export type TClaim = { kind: "claimed"; id: string } | { kind: "replay"; response: TStoredResponse };

/**
 * The stored fingerprint of a request body: HMAC of its canonical JSON under a
 * key derived from the master key (`h1:` prefix), so an idempotency row never
 * allows offline guessing of a secret the body carried (a credential create).
 */
export function requestFingerprint(body: unknown): string {
  return `h1:${keyedHashHex("idempotency", canonicalJson(body ?? {}))}`;
}

export function validateIdempotencyKey(raw: string | null): string | undefined {
  if (raw === null) return undefined;
  if (raw.length < 1 || raw.length > 256) {
    throw new AppError("bad_request", "Idempotency-Key must be 1..256 characters", {
      reason: "invalid_header",
      errors: [{ path: "/headers/idempotency-key", message: "must be 1..256 characters" }],
    });
  }
  return raw;
}

export async function claimIdempotencyKey(scope: TIdemScope, requestHash: string): Promise<TClaim> {
  const now = Date.now();
  const lockedUntil = new Date(now + IDEMPOTENCY_LOCK_MS);
  const expiresAt = new Date(now + IDEMPOTENCY_RETENTION_MS);
  const id = newId("idem");
  const inserted = await db().$queryRaw<{ id: string }[]>`
    INSERT INTO idempotency_keys (id, principal_id, method, path, key, request_hash, state, locked_until, expires_at)
    VALUES (${id}, ${scope.principalId}, ${scope.method}, ${scope.path}, ${scope.key}, ${requestHash}, 'in_progress', ${lockedUntil}, ${expiresAt})
    ON CONFLICT (principal_id, method, path, key) DO NOTHING
    RETURNING id`;
  if (inserted.length) return { kind: "claimed", id };

  // Take over an expired key, or a claim whose holder died mid-request.
  const taken = await db().$queryRaw<{ id: string }[]>`
    UPDATE idempotency_keys
       SET request_hash = ${requestHash}, state = 'in_progress', locked_until = ${lockedUntil},
           expires_at = ${expiresAt}, response_status = NULL, response_headers = NULL, response_body = NULL,
           created_at = now()
     WHERE principal_id = ${scope.principalId} AND method = ${scope.method} AND path = ${scope.path} AND key = ${scope.key}
       AND (expires_at < now() OR (state = 'in_progress' AND locked_until < now() AND request_hash = ${requestHash}))
    RETURNING id`;
  if (taken[0]) return { kind: "claimed", id: taken[0].id };

  const row = await db().idempotencyKey.findUnique({
    where: { principalId_method_path_key: scope },
  });
  if (!row) return claimIdempotencyKey(scope, requestHash); // released between our statements
  if (row.requestHash !== requestHash) {
    throw new AppError("validation_failed", "This Idempotency-Key was already used with a different request body", {
      reason: "idempotency_key_reused",
    });
  }
  if (row.state !== "completed" || row.responseStatus === null) {
    throw new AppError("conflict", "A request with this Idempotency-Key is still being processed", {
      reason: "idempotency_in_flight",
      headers: { "retry-after": "1" },
    });
  }
  return {
    kind: "replay",
    response: {
      status: row.responseStatus,
      headers: (row.responseHeaders ?? {}) as Record<string, string>,
      body: row.responseBody ?? "",
    },
  };
}

export async function completeIdempotencyKey(id: string, response: TStoredResponse): Promise<void> {
  if (response.status >= 500) {
    await db()
      .idempotencyKey.delete({ where: { id } })
      .catch(() => undefined);
    return;
  }
  await db().idempotencyKey.update({
    where: { id },
    data: {
      state: "completed",
      responseStatus: response.status,
      responseHeaders: response.headers,
      responseBody: response.body,
    },
  });
}

export async function releaseIdempotencyKey(id: string): Promise<void> {
  await db()
    .idempotencyKey.delete({ where: { id } })
    .catch(() => undefined);
}

export async function sweepIdempotencyKeys(): Promise<number> {
  const r = await db().idempotencyKey.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  return r.count;
}
