import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetRateLimits } from "@/server/bridge/rate-limit";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { bootBridgeApp, bridge, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";

/** The per-identity token bucket: 429 + Retry-After past the burst, refilled over time, per identity. */
let a: TBridgeSetup;
let b: TBridgeSetup;

beforeAll(async () => {
  process.env.CAPSTAN_BRIDGE_RATE_PER_SEC = "2";
  process.env.CAPSTAN_BRIDGE_BURST = "3";
  resetEnvCache();
  resetRateLimits();
  await bootBridgeApp();
  a = await setupBridge({ capabilities: [kvCapability()] });
  b = await setupBridge({ capabilities: [kvCapability()], owner: a.owner, ws: a.ws });
});

afterAll(() => {
  delete process.env.CAPSTAN_BRIDGE_RATE_PER_SEC;
  delete process.env.CAPSTAN_BRIDGE_BURST;
  resetEnvCache();
});

describe("Bridge rate limit", () => {
  it("answers 429 with Retry-After past the burst, records no invocation for it, and refills", async () => {
    const before = await db().capabilityInvocation.count({ where: { workspaceId: a.ws } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await bridge(a.token, "data.kv", "get", { key: "/app/k" })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await bridge(a.token, "data.kv", "get", { key: "/app/k" });
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ code: "rate_limited", reason: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await db().capabilityInvocation.count({ where: { workspaceId: a.ws } })).toBe(before + 3);

    // Another identity has its own bucket.
    expect((await bridge(b.token, "data.kv", "get", { key: "/app/k" })).status).toBe(200);
    // 2 tokens per second: the bucket refills, so within the deadline one more call fits (polled, no fixed sleep).
    const deadline = Date.now() + 10_000;
    let refilled = await bridge(a.token, "data.kv", "get", { key: "/app/k" });
    while (refilled.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      refilled = await bridge(a.token, "data.kv", "get", { key: "/app/k" });
    }
    expect(refilled.status, refilled.text).toBe(200);
  });
});
