import { authenticateBridgeToken } from "@/server/domain/service-identities/bridge-token.service";
import { parseJsonBody, readBodyLimited } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { AppError, toAppError, toProblem, zodIssuesToErrors, type TErrorCode } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import {
  claimIdempotencyKey,
  requestFingerprint,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  validateIdempotencyKey,
} from "@/server/platform/idempotency";
import { invalidToken } from "@/server/domain/signing-keys/jwt.service";
import {
  ALL_ACTIONS,
  BRIDGE_ACTIONS,
  REASON_STATUS,
  type TBridgeCapability,
  type TBridgeOutput,
} from "./bridge.contract";
import { invoke, type TBridgeCaller, type TOutcome } from "./pipeline";
import { takeToken } from "./rate-limit";
import { auditRejection } from "./rejections";
import { BridgeTiming } from "./timing";

/**
 * POST /v1/capabilities/{capability}/{action}: framework-free, no tRPC, no
 * sessions. Bridge-audience token; X-Correlation-Id; Idempotency-Key (a retry
 * replays the recorded result: no second provider call, no second charge; 5xx
 * and 429 answers are not recorded, so their retries run again).
 *
 * One code path, two transports: `bridgeCall` takes a header getter and a
 * body reader and answers status, headers and body; `handleBridge` wraps it
 * for a web Request (the Next.js route, the deployment's Bridge socket,
 * tests) and `serveBridgeNode` (./node.ts) for Node's own request and
 * response (the `npm start` server, before Next.js routing). Every answer
 * carries Capstan-Overhead-Ms and Server-Timing (./timing.ts), computed by
 * the transport just before it writes the response.
 */
const STATUS_CODE: Record<number, TErrorCode> = {
  403: "forbidden",
  409: "conflict",
  422: "validation_failed",
  429: "rate_limited",
  503: "unavailable",
};

/**
 * Who is calling, once authenticated: a service identity (bridge token) or
 * a deployment (its Bridge socket; see src/server/runtime/bridge-socket.ts).
 * `principalId` keys the rate limit, idempotency scope and rejection audits.
 */
export type TBridgePrincipal = { principalId: string; kind: "service_identity" | "deployment"; caller: TBridgeCaller };

/** What a transport hands the Bridge: the request's headers and a body reader (413 past `max` bytes). */
export type TBridgeInput = { headers: { get(name: string): string | null }; readBody(max: number): Promise<string> };
/** The Bridge's answer, before the transport adds the timing headers. */
export type TBridgeAnswer = { status: number; headers: Record<string, string>; body: string };

const JSON_TYPE = "application/json";
const PROBLEM_TYPE = "application/problem+json";

export async function bridgeCall(
  input: TBridgeInput,
  capability: string,
  action: string,
  timing: BridgeTiming,
  opts: { principal?: TBridgePrincipal } = {},
): Promise<TBridgeAnswer> {
  const instance = `/v1/capabilities/${capability}/${action}`;
  let correlationId = "";
  let principal: TBridgePrincipal | null = null;
  try {
    correlationId = resolveCorrelation(input.headers).correlationId;
    if (!(capability in BRIDGE_ACTIONS))
      throw new AppError("not_found", `Unknown capability ${capability}`, { reason: "unknown_capability" });
    if (!(ALL_ACTIONS as readonly string[]).includes(action))
      throw new AppError("not_found", `Unknown action ${action}`, { reason: "unknown_action" });
    const schemas = BRIDGE_ACTIONS[capability as TBridgeCapability] as Record<string, import("zod").ZodType | null>;
    if (!(action in schemas))
      throw new AppError("not_found", `${capability} has no action ${action}`, { reason: "unknown_action" });
    const schema = schemas[action];
    await getDb();
    const idemKey = validateIdempotencyKey(input.headers.get("idempotency-key"));
    principal = opts.principal ?? (await tokenPrincipal(input.headers.get("authorization")));
    const caller = principal.caller;
    const wait = await takeToken(principal.principalId);
    timing.mark("auth");
    if (wait > 0) {
      throw new AppError("rate_limited", `Too many calls for this service identity; retry in ${wait} s`, {
        reason: "rate_limited",
        headers: { "retry-after": String(wait) },
      });
    }
    // After authentication: an unauthenticated caller gets 401 (spec 5.2) whatever the capability.
    if (!schema) {
      throw new AppError("unavailable", `${capability} has no provider on this deployment yet`, {
        reason: "provider_unavailable",
      });
    }

    const raw = parseJsonBody(await input.readBody(env().CAPSTAN_MAX_BODY_BYTES), input.headers.get("content-type"));
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      throw new AppError("validation_failed", "The request body does not match the schema", {
        errors: zodIssuesToErrors(parsed.error.issues),
      });
    }

    let claimId: string | undefined;
    if (idemKey) {
      const claim = await claimIdempotencyKey(
        { principalId: principal.principalId, method: "POST", path: instance, key: idemKey },
        requestFingerprint(raw),
      );
      if (claim.kind === "replay") {
        return {
          status: claim.response.status,
          body: claim.response.body,
          headers: { ...claim.response.headers, "idempotent-replayed": "true", "x-correlation-id": correlationId },
        };
      }
      claimId = claim.id;
    }
    let outcome: TOutcome;
    try {
      outcome = await invoke(
        { ...caller, productId: caller.productId ?? null, environmentType: caller.environmentType ?? null },
        {
          capability,
          action,
          body: parsed.data as Record<string, unknown>,
          correlationId,
          startedAt: timing.startedAt,
          timing,
        },
      );
    } catch (err) {
      if (claimId) await releaseIdempotencyKey(claimId);
      throw err;
    }
    const answer = toAnswer(outcome, capability, action, instance, correlationId);
    if (claimId && answer.status === 429) {
      // Budget or rate exhausted, "retry after": a retry with the same key must run again, not replay the 429.
      await releaseIdempotencyKey(claimId);
    } else if (claimId) {
      const { "x-correlation-id": _, ...headers } = answer.headers;
      await completeIdempotencyKey(claimId, { status: answer.status, headers, body: answer.body });
    }
    timing.mark("record");
    return answer;
  } catch (err) {
    correlationId ||= newId("evt");
    // An unexpected error answers a bare 500: log it (as the REST boundary does) so it can be traced by correlation id.
    if (!(err instanceof AppError)) {
      logger.error("bridge.unhandled", {
        path: instance,
        correlation_id: correlationId,
        error: String((err as Error)?.stack ?? err),
      });
    }
    if (principal) await auditRejection(principal, err, { path: instance, correlationId });
    return problemAnswer(err, instance, correlationId);
  }
}

/** The web transport: a Request in, a Response out (timing from the handler's entry). */
export async function handleBridge(
  req: Request,
  capability: string,
  action: string,
  opts: { principal?: TBridgePrincipal } = {},
): Promise<Response> {
  const timing = new BridgeTiming();
  const answer = await bridgeCall(
    { headers: req.headers, readBody: (max) => readBodyLimited(req, max) },
    capability,
    action,
    timing,
    opts,
  );
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, ...timing.headers() } });
}

async function tokenPrincipal(auth: string | null): Promise<TBridgePrincipal> {
  const m = auth ? /^Bearer ([^\s]+)$/i.exec(auth.trim()) : null;
  if (!m)
    throw invalidToken(auth ? "the Authorization header must be 'Bearer <token>'" : "no bearer token was presented");
  const identity = await authenticateBridgeToken(m[1]!);
  return { principalId: identity.serviceIdentityId, kind: "service_identity", caller: identity };
}

export function problemAnswer(err: unknown, instance: string, correlationId: string): TBridgeAnswer {
  const appErr = toAppError(err);
  return {
    status: appErr.status,
    headers: { "content-type": PROBLEM_TYPE, "x-correlation-id": correlationId, ...appErr.headers },
    body: JSON.stringify(toProblem(appErr, { instance, correlationId })),
  };
}

function toAnswer(
  o: TOutcome,
  capability: string,
  action: string,
  instance: string,
  correlationId: string,
): TBridgeAnswer {
  if (o.kind === "completed") {
    const body: TBridgeOutput = {
      capability_invocation_id: o.id,
      capability,
      action,
      outcome: "completed",
      provider: o.provider,
      fallback_used: o.fallbackUsed,
      usage: o.usage,
      output: o.output,
    };
    return {
      status: 200,
      headers: { "content-type": JSON_TYPE, "x-correlation-id": correlationId },
      body: JSON.stringify(body),
    };
  }
  const status = REASON_STATUS[o.reason];
  const headers: Record<string, string> = {};
  if (status === 429) headers["retry-after"] = o.retryAfter ?? "60";
  return problemAnswer(
    new AppError(STATUS_CODE[status] ?? "forbidden", o.detail, {
      reason: o.reason,
      headers,
      extensions: { capability_invocation_id: o.id, outcome: o.kind },
    }),
    instance,
    correlationId,
  );
}
