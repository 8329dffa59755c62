import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { dbKind } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api } from "./support/api";
import { aiCapability, bootBridgeApp, bridge, kvCapability, setupBridge } from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * The Bridge on the embedded database (what `npm start` runs without
 * DATABASE_URL): the same migrations (PL/pgSQL reservation functions
 * included) and the hot-path statements on PGlite.
 */
delete process.env.DATABASE_URL;
resetEnvCache();

let openai: TOpenAiServer;

beforeAll(async () => {
  await bootBridgeApp();
  openai = await startOpenAiServer("sk-embedded-test-key-0001", { tokens: 5 });
});

afterAll(async () => {
  await openai.close();
});

describe("Bridge on embedded PGlite", () => {
  it("serves data.kv and ai.generate with budgets reserved and settled", async () => {
    expect(dbKind()).toBe("pglite");
    const s = await setupBridge({
      capabilities: [kvCapability(), aiCapability({ scope: { models: ["text"], max_tokens_per_call: 20 } })],
      providers: [{ provider: "openai", baseUrl: openai.baseUrl, apiKey: openai.apiKey }],
    });
    expect(
      (await api("PUT", `/v1/workspaces/${s.ws}/plan`, { token: s.owner.token, body: { plan: "team" } })).status,
    ).toBe(200);
    expect(
      (
        await api("PUT", `/v1/workspaces/${s.ws}/budgets/ai_tokens`, {
          token: s.owner.token,
          body: { limit_units: 30 },
        })
      ).status,
    ).toBe(200);

    expect((await bridge(s.token, "data.kv", "set", { key: "/app/x", value: { n: 1 } })).status).toBe(200);
    expect((await bridge(s.token, "data.kv", "get", { key: "/app/x" })).json.output).toMatchObject({ value: { n: 1 } });

    const body = { model_kind: "text", input: { text: "hi" } };
    const results = await Promise.all([1, 2, 3].map(() => bridge(s.token, "ai.generate", "generate", body)));
    // 30 tokens hold one reservation of 20 at a time: the concurrent ones that do not fit are denied.
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.json.reason).toBe("usage_denied");
    await returnLeases(); // a lease's unused part goes back first (leases.service.ts)
    const budgets = await api("GET", `/v1/workspaces/${s.ws}/budgets`, { token: s.owner.token });
    const ai = budgets.json.items.find((b: { usage_category: string }) => b.usage_category === "ai_tokens");
    expect(ai.reserved_units).toBe(0);
    expect(ai.used_units).toBe(5 * results.filter((r) => r.status === 200).length);
  });
});
