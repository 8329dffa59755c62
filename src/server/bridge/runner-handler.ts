import { z } from "zod";
import { parseJsonBody, readBodyLimited } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, problemResponse, zodIssuesToErrors } from "@/server/platform/errors";
import { isId, newId, zId } from "@/server/platform/ids";
import { invalidToken, verifyToken } from "@/server/domain/signing-keys/jwt.service";
import { iso } from "@/server/platform/time";
import { BRIDGE_ACTIONS } from "./bridge.contract";
import { invoke } from "./pipeline";

/**
 * POST /v1/runner/capability-invocations: the Bridge for an in-flight runner
 * execution. Runner-audience token with claims `ws`, `prod`, `exe` and `inv`
 * (optionally `env`); body `{capability, action, request}` where `request` is
 * the BridgeRequest of that capability and action. The answer is always 200
 * with the shape of capability.invocation_resulted (spec 6.3), with the
 * output inline; token and body errors are problem documents as elsewhere.
 */
const ZRunnerRequest = z.strictObject({
  capability: z.enum(["ai.generate", "storage.object", "data.kv", "email.send"]),
  action: z.string().min(1).max(32),
  request: z.record(z.string(), z.unknown()),
});

const UNIT = { "ai.generate": "tokens", "storage.object": "bytes", "data.kv": "bytes", "email.send": "calls" } as const;

const ZRunnerClaims = z.object({
  ws: z.string().refine((v) => isId("ws", v) || v === "ws_platform"),
  prod: zId("prod"),
  exe: zId("exe"),
  inv: zId("inv"),
  env: z.enum(["preview", "staging", "production"]).optional(),
  /** Set for managed executions: the call is checked against that deployment's revision. */
  dep: zId("dep").optional(),
});

export async function handleRunnerCapabilityCall(
  req: Request,
  opts: { deploymentId?: string } = {},
): Promise<Response> {
  const startedAt = performance.now();
  const instance = "/v1/runner/capability-invocations";
  let correlationId = "";
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    await getDb();
    const auth = req.headers.get("authorization");
    const m = auth ? /^Bearer ([^\s]+)$/i.exec(auth.trim()) : null;
    if (!m)
      throw invalidToken(auth ? "the Authorization header must be 'Bearer <token>'" : "no bearer token was presented");
    const claims = ZRunnerClaims.safeParse(await verifyToken(m[1]!, "runner"));
    if (!claims.success) throw invalidToken("claims check failed: a runner token carries ws, prod, exe and inv");
    // Through a deployment's Bridge socket only that deployment's executions may call.
    if (opts.deploymentId && claims.data.dep !== opts.deploymentId)
      throw invalidToken("claims check failed: the token belongs to another deployment");

    const raw = parseJsonBody(
      await readBodyLimited(req, env().CAPSTAN_MAX_BODY_BYTES),
      req.headers.get("content-type"),
    );
    const body = ZRunnerRequest.safeParse(raw);
    if (!body.success) {
      throw new AppError("validation_failed", "The request body does not match the schema", {
        errors: zodIssuesToErrors(body.error.issues),
      });
    }
    const schemas = BRIDGE_ACTIONS[body.data.capability] as Record<string, z.ZodType | null>;
    if (!(body.data.action in schemas)) {
      throw new AppError("validation_failed", `${body.data.capability} has no action ${body.data.action}`, {
        errors: [{ path: "/action", message: "unknown action for this capability" }],
      });
    }
    const schema = schemas[body.data.action];
    if (!schema)
      throw new AppError("unavailable", `${body.data.capability} has no provider on this deployment yet`, {
        reason: "provider_unavailable",
      });
    const request = schema.safeParse(body.data.request);
    if (!request.success) {
      const errors = zodIssuesToErrors(request.error.issues).map((e) => ({
        ...e,
        path: `/request${e.path === "/" ? "" : e.path}`,
      }));
      throw new AppError("validation_failed", "The request does not match the capability's schema", { errors });
    }

    const c = claims.data;
    const dep = c.dep
      ? await scopedDb(c.ws).deployment.findUnique({
          where: { id: c.dep },
          select: { revisionId: true, workspaceId: true },
        })
      : null;
    if (c.dep && (!dep || dep.workspaceId !== c.ws)) throw invalidToken("claims check failed: unknown deployment");
    const outcome = await invoke(
      {
        serviceIdentityId: null,
        workspaceId: c.ws,
        productId: c.prod,
        environmentType: c.env ?? null,
        executionId: c.exe,
        bridgeInvocationId: c.inv,
        deploymentId: c.dep ?? null,
        revisionId: dep?.revisionId ?? null,
      },
      {
        capability: body.data.capability,
        action: body.data.action,
        body: request.data as Record<string, unknown>,
        correlationId,
        startedAt,
      },
    );
    const completed = outcome.kind === "completed";
    return Response.json(
      {
        capability_invocation_id: outcome.id,
        workspace_id: c.ws,
        product_id: c.prod,
        outcome: outcome.kind,
        reason: completed ? null : outcome.reason,
        output: completed ? { kind: "inline", json: outcome.output } : null,
        provider: completed ? outcome.provider : null,
        fallback_used: completed ? outcome.fallbackUsed : false,
        usage: completed ? outcome.usage : { units: 0, unit: UNIT[body.data.capability] },
        finished_at: iso(new Date()),
      },
      { headers: { "x-correlation-id": correlationId } },
    );
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}
