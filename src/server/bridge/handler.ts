import { authenticateBridgeToken } from "@/server/domain/service-identities/token.service";
import { parseJsonBody, readBodyLimited } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { AppError, problemResponse, zodIssuesToErrors, type TErrorCode } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { claimIdempotencyKey, requestFingerprint, completeIdempotencyKey, releaseIdempotencyKey, validateIdempotencyKey } from "@/server/platform/idempotency";
import { invalidToken } from "@/server/platform/jwt";
import { ALL_ACTIONS, BRIDGE_ACTIONS, REASON_STATUS, type TBridgeCapability, type TBridgeOutput } from "./bridge.contract";
import { invoke, type TBridgeCaller, type TOutcome } from "./pipeline";
import { takeToken } from "./rate-limit";
import { auditRejection } from "./rejections";

/**
 * POST /v1/capabilities/{capability}/{action}: framework-free (Request ->
 * Response), no tRPC, no sessions. Bridge-audience token; X-Correlation-Id;
 * Idempotency-Key (a retry replays the recorded result: no second provider
 * call, no second charge; 5xx and 429 answers are not recorded, so their
 * retries run again). Every response carries Capstan-Overhead-Ms, the
 * time spent in Capstan excluding the provider wait.
 */
const STATUS_CODE: Record<number, TErrorCode> = { 403: "forbidden", 409: "conflict", 422: "validation_failed", 429: "rate_limited", 503: "unavailable" };

/**
 * Who is calling, once authenticated: a service identity (bridge token) or
 * a deployment (its Bridge socket; see src/server/runtime/bridge-socket.ts).
 * `principalId` keys the rate limit, idempotency scope and rejection audits.
 */
export type TBridgePrincipal = { principalId: string; kind: "service_identity" | "deployment"; caller: TBridgeCaller };

export async function handleBridge(req: Request, capability: string, action: string, opts: { principal?: TBridgePrincipal } = {}): Promise<Response> {
  const startedAt = performance.now();
  const instance = `/v1/capabilities/${capability}/${action}`;
  let correlationId = "";
  let providerMs = 0;
  let principal: TBridgePrincipal | null = null;
  const overhead = () => String(Math.max(0, Math.round((performance.now() - startedAt - providerMs) * 100) / 100));
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    if (!(capability in BRIDGE_ACTIONS)) throw new AppError("not_found", `Unknown capability ${capability}`, { reason: "unknown_capability" });
    if (!(ALL_ACTIONS as readonly string[]).includes(action)) throw new AppError("not_found", `Unknown action ${action}`, { reason: "unknown_action" });
    const schemas = BRIDGE_ACTIONS[capability as TBridgeCapability] as Record<string, import("zod").ZodType | null>;
    if (!(action in schemas)) throw new AppError("not_found", `${capability} has no action ${action}`, { reason: "unknown_action" });
    const schema = schemas[action];
    await getDb();
    const idemKey = validateIdempotencyKey(req.headers.get("idempotency-key"));
    principal = opts.principal ?? (await tokenPrincipal(req));
    const caller = principal.caller;
    const wait = await takeToken(principal.principalId);
    if (wait > 0) {
      throw new AppError("rate_limited", `Too many calls for this service identity; retry in ${wait} s`, {
        reason: "rate_limited", headers: { "retry-after": String(wait) },
      });
    }
    // After authentication: an unauthenticated caller gets 401 (spec 5.2) whatever the capability.
    if (!schema) {
      throw new AppError("unavailable", `${capability} has no provider on this deployment yet`, { reason: "provider_unavailable" });
    }

    const text = await readBodyLimited(req, env().CAPSTAN_MAX_BODY_BYTES);
    const raw = parseJsonBody(text, req.headers.get("content-type"));
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      throw new AppError("validation_failed", "The request body does not match the schema", { errors: zodIssuesToErrors(parsed.error.issues) });
    }

    let claimId: string | undefined;
    if (idemKey) {
      const claim = await claimIdempotencyKey(
        { principalId: principal.principalId, method: "POST", path: instance, key: idemKey },
        requestFingerprint(raw),
      );
      if (claim.kind === "replay") {
        return new Response(claim.response.body, {
          status: claim.response.status,
          headers: { ...claim.response.headers, "idempotent-replayed": "true", "x-correlation-id": correlationId, "capstan-overhead-ms": overhead() },
        });
      }
      claimId = claim.id;
    }
    let outcome: TOutcome;
    try {
      outcome = await invoke(
        { ...caller, productId: caller.productId ?? null, environmentType: caller.environmentType ?? null },
        { capability, action, body: parsed.data as Record<string, unknown>, correlationId, startedAt },
      );
    } catch (err) {
      if (claimId) await releaseIdempotencyKey(claimId);
      throw err;
    }
    providerMs = outcome.providerMs;
    const response = toResponse(outcome, capability, action, instance, correlationId);
    if (claimId && response.status === 429) {
      // Budget or rate exhausted, "retry after": a retry with the same key must run again, not replay the 429.
      await releaseIdempotencyKey(claimId);
    } else if (claimId) {
      const headers: Record<string, string> = {};
      response.headers.forEach((v, k) => {
        if (k !== "x-correlation-id" && k !== "capstan-overhead-ms") headers[k] = v;
      });
      await completeIdempotencyKey(claimId, { status: response.status, headers, body: await response.clone().text() });
    }
    response.headers.set("capstan-overhead-ms", overhead());
    return response;
  } catch (err) {
    correlationId ||= newId("evt");
    // An unexpected error answers a bare 500: log it (as the REST boundary does) so it can be traced by correlation id.
    if (!(err instanceof AppError)) {
      logger.error("bridge.unhandled", { path: instance, correlation_id: correlationId, error: String((err as Error)?.stack ?? err) });
    }
    if (principal) await auditRejection(principal, err, { path: instance, correlationId });
    const res = problemResponse(err, { instance, correlationId });
    res.headers.set("capstan-overhead-ms", overhead());
    return res;
  }
}

async function tokenPrincipal(req: Request): Promise<TBridgePrincipal> {
  const auth = req.headers.get("authorization");
  const m = auth ? /^Bearer ([^\s]+)$/i.exec(auth.trim()) : null;
  if (!m) throw invalidToken(auth ? "the Authorization header must be 'Bearer <token>'" : "no bearer token was presented");
  const identity = await authenticateBridgeToken(m[1]!);
  return { principalId: identity.serviceIdentityId, kind: "service_identity", caller: identity };
}

function toResponse(o: TOutcome, capability: string, action: string, instance: string, correlationId: string): Response {
  if (o.kind === "completed") {
    const body: TBridgeOutput = {
      capability_invocation_id: o.id, capability, action, outcome: "completed", provider: o.provider,
      fallback_used: o.fallbackUsed, usage: o.usage, output: o.output,
    };
    return Response.json(body, { headers: { "x-correlation-id": correlationId } });
  }
  const status = REASON_STATUS[o.reason];
  const headers: Record<string, string> = {};
  if (status === 429) headers["retry-after"] = o.retryAfter ?? "60";
  return problemResponse(
    new AppError(STATUS_CODE[status] ?? "forbidden", o.detail, {
      reason: o.reason,
      headers,
      extensions: { capability_invocation_id: o.id, outcome: o.kind },
    }),
    { instance, correlationId },
  );
}
