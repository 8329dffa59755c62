import { beforeAll, describe, expect, it } from "vitest";
import { validateEventData } from "@/server/domain/events/event-schemas";
import { handleRunnerCapabilityCall } from "./support/handlers";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { signToken } from "@/server/domain/signing-keys/jwt.service";
import { bootBridgeApp, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";

/** POST /v1/runner/capability-invocations: runner-audience tokens, result-event shaped answers. */
let s: TBridgeSetup;
let exe: string;
let inv: string;

beforeAll(async () => {
  await bootBridgeApp();
  s = await setupBridge({ capabilities: [kvCapability()] });
  exe = newId("exe");
  inv = newId("inv");
});

async function runnerToken(claims: Record<string, unknown>, audience: "runner" | "bridge" = "runner"): Promise<string> {
  return (await signToken({ audience, subject: exe, jti: newId("tok"), ttlSeconds: 300, claims })).token;
}

async function call(token: string | null, body: unknown) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await handleRunnerCapabilityCall(
    new Request("http://localhost:3000/v1/runner/capability-invocations", {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

describe("runner capability invocations", () => {
  it("runs a data.kv call for an execution and answers with the result-event shape", async () => {
    const token = await runnerToken({ ws: s.ws, prod: s.productId, exe, inv, env: "preview" });
    const set = await call(token, {
      capability: "data.kv",
      action: "set",
      request: { key: "/app/runner", value: { n: 1 } },
    });
    expect(set.status).toBe(200);
    const get = await call(token, { capability: "data.kv", action: "get", request: { key: "/app/runner" } });
    expect(get.status).toBe(200);
    expect(validateEventData("capability.invocation_resulted", get.json)).toEqual([]);
    expect(get.json).toMatchObject({
      outcome: "completed",
      reason: null,
      provider: "platform",
      workspace_id: s.ws,
      product_id: s.productId,
    });
    expect(get.json.output).toEqual({ kind: "inline", json: { key: "/app/runner", found: true, value: { n: 1 } } });

    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: get.json.capability_invocation_id } });
    expect(row.executionId).toBe(exe);
    expect(row.bridgeInvocationId).toBe(inv);
    const requested = await db().outboxEvent.findFirstOrThrow({
      where: { subject: row.id, type: "capability.invocation_requested" },
    });
    expect(requested.data).toMatchObject({ execution_id: exe, bridge_invocation_id: inv, environment_type: "preview" });
    expect(validateEventData("capability.invocation_requested", requested.data)).toEqual([]);
  });

  it("answers a denial as a 200 result with its reason", async () => {
    const token = await runnerToken({ ws: s.ws, prod: s.productId, exe, inv });
    const r = await call(token, { capability: "data.kv", action: "get", request: { key: "/elsewhere" } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      outcome: "denied",
      reason: "outside_contract",
      output: null,
      usage: { units: 0, unit: "bytes" },
    });
    expect(validateEventData("capability.invocation_resulted", r.json)).toEqual([]);
  });

  it("refuses other audiences, missing claims and bad bodies", async () => {
    const bridgeAud = await runnerToken({ ws: s.ws, prod: s.productId, exe, inv }, "bridge");
    const wrongAud = await call(bridgeAud, { capability: "data.kv", action: "get", request: { key: "/app/x" } });
    expect(wrongAud.status).toBe(401);
    expect(wrongAud.headers.get("www-authenticate")).toMatch(/audience check failed/);
    expect((await call(s.token, { capability: "data.kv", action: "get", request: { key: "/app/x" } })).status).toBe(
      401,
    );
    expect((await call(null, {})).status).toBe(401);
    const noExe = await call(await runnerToken({ ws: s.ws, prod: s.productId, inv }), {
      capability: "data.kv",
      action: "get",
      request: { key: "/app/x" },
    });
    expect(noExe.status).toBe(401);

    const token = await runnerToken({ ws: s.ws, prod: s.productId, exe, inv });
    const unknownAction = await call(token, { capability: "data.kv", action: "fly", request: {} });
    expect(unknownAction.status).toBe(422);
    expect(unknownAction.json.errors[0].path).toBe("/action");
    const badRequest = await call(token, { capability: "data.kv", action: "get", request: { key: "no-slash" } });
    expect(badRequest.status).toBe(422);
    expect(badRequest.json.errors[0].path).toBe("/request/key");
    const extra = await call(token, { capability: "data.kv", action: "get", request: { key: "/app/x" }, extra: 1 });
    expect(extra.status).toBe(422);
  });
});
