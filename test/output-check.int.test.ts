import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outputCheckCacheStats } from "@/server/bridge/output-check";
import {
  aiCapability,
  bootBridgeApp,
  bridge,
  makeCredential,
  setupBridge,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * Issue #15 item 5: the Bridge's output check blocks a stored credential's
 * value in its common encodings too (base64 at any offset, base64url, hex,
 * URL/form encoding), and the decrypted values it holds never show in logs.
 */
let echo: TOpenAiServer;
let s: TBridgeSetup;
const secret = `smtp-pass-${randomBytes(12).toString("base64url")}/+!`;

beforeAll(async () => {
  await bootBridgeApp();
  echo = await startOpenAiServer(`sk-echo-${randomBytes(8).toString("hex")}`);
  s = await setupBridge({
    capabilities: [aiCapability()],
    providers: [{ provider: "openai", baseUrl: echo.baseUrl, apiKey: echo.apiKey }],
  });
  await makeCredential(s.owner, s.ws, secret, { provider: "smtp", capability: "email.send", actions: ["send"] });
});

afterAll(async () => {
  await echo.close();
});

const say = async (text: string) => {
  echo.behave({ mode: "echo", text });
  return bridge(s.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" } });
};

describe("output check: encodings of a stored secret", () => {
  const b = Buffer.from(secret);
  const forms: [string, string][] = [
    ["plain", `the password is ${secret}`],
    ["base64", `b64: ${b.toString("base64")}`],
    ["base64 inside a larger encoded text", Buffer.from(`user=admin;pass=${secret};end`).toString("base64")],
    ["base64url without padding", Buffer.from(`x${secret}`).toString("base64url")],
    ["hex", `0x${b.toString("hex")}`],
    ["HEX", b.toString("hex").toUpperCase()],
    ["URL-encoded", `https://x.example/?p=${encodeURIComponent(secret)}`],
  ];
  for (const [label, text] of forms) {
    it(`blocks the secret ${label}`, async () => {
      const r = await say(text);
      expect(r.status, r.text).toBe(403);
      expect(r.json.reason).toBe("output_blocked");
      expect(r.text).not.toContain(text);
    });
  }

  it("lets unrelated output through", async () => {
    const r = await say(`nothing to see: ${Buffer.from("harmless words here").toString("base64")}`);
    expect(r.status, r.text).toBe(200);
  });

  it("the cache is bounded and its values never print", async () => {
    const stats = outputCheckCacheStats();
    expect(stats.workspaces).toBeGreaterThanOrEqual(1);
    expect(stats.bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
    const printed = [JSON.stringify(stats), inspect(stats, { depth: 10 })].join("\n");
    expect(printed).not.toContain(secret);
  });
});
