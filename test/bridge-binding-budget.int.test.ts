import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { makeUser, type TTestUser } from "./support/api";
import { aiCapability, bootBridgeApp, bridge, setupBridge } from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/** A provider binding's own token budget (spec 2.17 budget.units) is reserved and settled like the month budget. */
let owner: TTestUser;
let provider: TOpenAiServer;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  provider = await startOpenAiServer(`sk-bind-${randomBytes(12).toString("hex")}`, { tokens: 7 });
});

afterAll(async () => {
  await provider?.close();
});

describe("binding token budget", () => {
  it("charges actual tokens to the binding and denies once its budget cannot hold a reservation", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability({ scope: { models: ["text"], max_tokens_per_call: 10 } })],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    const bindingId = s.providers.openai!.bindingId;
    // Room for two reservations of 10 (the contract's max_tokens_per_call), not three.
    await db().providerBinding.update({ where: { id: bindingId }, data: { budgetUnits: BigInt(25) } });

    const body = { model_kind: "text", input: { text: "hi" } };
    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(200);
    let b = await db().providerBinding.findUniqueOrThrow({ where: { id: bindingId } });
    expect({ used: b.usedUnits, reserved: b.reservedUnits }).toEqual({ used: 7, reserved: 0 });

    expect((await bridge(s.token, "ai.generate", "generate", body)).status).toBe(200);
    // 14 used + 10 reserved would exceed 25? 24 <= 25 fits; after it, 21 used: the next 10 does not.
    const third = await bridge(s.token, "ai.generate", "generate", body);
    expect(third.status).toBe(200);
    const fourth = await bridge(s.token, "ai.generate", "generate", body);
    expect(fourth.status).toBe(429);
    expect(fourth.json.reason).toBe("usage_denied");

    b = await db().providerBinding.findUniqueOrThrow({ where: { id: bindingId } });
    expect({ used: b.usedUnits, reserved: b.reservedUnits }).toEqual({ used: 21, reserved: 0 });
    // The denied call left the month budget as it was (its reservation was released).
    const month = await db().budget.findFirstOrThrow({ where: { workspaceId: s.ws, usageCategory: "ai_tokens" } });
    expect({ used: month.usedUnits, reserved: month.reservedUnits }).toEqual({ used: 21, reserved: 0 });
    expect(provider.calls.length).toBeGreaterThanOrEqual(3);
  });

  it("with fallback listed a spent binding is skipped for the next allowed one; with none the call is denied", async () => {
    const listed = await setupBridge({
      owner,
      capabilities: [
        aiCapability({
          scope: { models: ["text"], max_tokens_per_call: 10 },
          provider: { allow: ["first", "second"], prefer: "first", fallback: "listed" },
        }),
      ],
      providers: [
        { provider: "first", baseUrl: provider.baseUrl, apiKey: provider.apiKey },
        { provider: "second", baseUrl: provider.baseUrl, apiKey: provider.apiKey },
      ],
    });
    const first = listed.providers.first!.bindingId;
    const second = listed.providers.second!.bindingId;
    await db().providerBinding.update({ where: { id: first }, data: { budgetUnits: BigInt(5) } }); // cannot hold 10
    const r = await bridge(listed.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ provider: "second", fallback_used: true });
    // The call drew from a budget lease (leases.service.ts): give the lease back, then nothing is reserved.
    await returnLeases();
    const [a, b] = await Promise.all(
      [first, second].map((id) => db().providerBinding.findUniqueOrThrow({ where: { id } })),
    );
    expect({ used: a!.usedUnits, reserved: a!.reservedUnits }).toEqual({ used: 0, reserved: 0 });
    expect({ used: b!.usedUnits, reserved: b!.reservedUnits }).toEqual({ used: 7, reserved: 0 });
    const audit = await db().auditRecord.findFirstOrThrow({
      where: { workspaceId: listed.ws, action: "capability.fallback" },
    });
    expect(audit.details).toMatchObject({ from: "first", to: "second", reason: "binding_budget_exhausted" });

    const none = await setupBridge({
      owner,
      capabilities: [
        aiCapability({
          scope: { models: ["text"], max_tokens_per_call: 10 },
          provider: { allow: ["first", "second"], prefer: "first", fallback: "none" },
        }),
      ],
      providers: [
        { provider: "first", baseUrl: provider.baseUrl, apiKey: provider.apiKey },
        { provider: "second", baseUrl: provider.baseUrl, apiKey: provider.apiKey },
      ],
    });
    await db().providerBinding.update({
      where: { id: none.providers.first!.bindingId },
      data: { budgetUnits: BigInt(5) },
    });
    const denied = await bridge(none.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
    expect(denied.status).toBe(429);
    expect(denied.json.reason).toBe("usage_denied");
    await returnLeases();
    const month = await db().budget.findFirstOrThrow({ where: { workspaceId: none.ws, usageCategory: "ai_tokens" } });
    expect(month.reservedUnits).toBe(0);
  });
});
