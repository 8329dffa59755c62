import { describe, expect, it } from "vitest";
import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import { buildFirstCall, chooseFirstCall, SECRET_PLACEHOLDER } from "./first-call";

const kv: TCapabilityEntry = {
  id: "data.kv",
  required: true,
  actions: ["get", "set"],
  credential_owner: "platform",
  scope: { prefix: "/app/", max_value_bytes: 1024, max_keys: 10 },
  provider: { allow: ["platform"], fallback: "none" },
};
const ai: TCapabilityEntry = {
  id: "ai.generate",
  required: true,
  actions: ["generate"],
  credential_owner: "workspace",
  scope: { models: ["text"], max_tokens_per_call: 32 },
  provider: { allow: ["openai"], fallback: "none" },
};
const all = () => true;

describe("chooseFirstCall", () => {
  it("prefers a workspace capability with a ready binding, then a platform one, then the first", () => {
    expect(chooseFirstCall([kv, ai], new Set(["ai.generate"]), all)).toMatchObject({
      entry: { id: "ai.generate" },
      action: "generate",
    });
    expect(chooseFirstCall([ai, kv], new Set(), all)).toMatchObject({ entry: { id: "data.kv" }, action: "set" });
    expect(chooseFirstCall([ai], new Set(), all)).toMatchObject({ entry: { id: "ai.generate" } });
  });

  it("respects the identity's permissions, and answers null when nothing is allowed", () => {
    expect(chooseFirstCall([kv], new Set(), (c, a) => `${c}:${a}` === "data.kv:get")).toMatchObject({ action: "get" });
    expect(chooseFirstCall([kv, ai], new Set(), () => false)).toBeNull();
    expect(chooseFirstCall([], new Set(), all)).toBeNull();
  });
});

describe("buildFirstCall", () => {
  it("builds both commands from the public URL and ids, with the secret as a placeholder", () => {
    const c = buildFirstCall("https://capstan.example.com/", "svc_123", kv, "set");
    expect(c.token_url).toBe("https://capstan.example.com/v1/oauth/token");
    expect(c.call_url).toBe("https://capstan.example.com/v1/capabilities/data.kv/set");
    expect(c.body).toEqual({ key: "/app/hello", value: "world" });
    expect(c.curl).toContain("client_id=svc_123");
    expect(c.curl).toContain(SECRET_PLACEHOLDER);
    expect(c.curl).toContain(`-d '{"key":"/app/hello","value":"world"}'`);
  });

  it("quotes single quotes in the body for the shell", () => {
    const mail: TCapabilityEntry = {
      id: "email.send",
      required: true,
      actions: ["send"],
      credential_owner: "workspace",
      scope: {
        from_addresses: ["o'neil@example.com"],
        recipient_domains: ["example.org"],
        max_recipients: 1,
        max_message_bytes: 1000,
      },
      provider: { allow: ["smtp"], fallback: "none" },
    };
    const c = buildFirstCall("http://x", "svc_1", mail, "send");
    expect(c.body).toMatchObject({ from: "o'neil@example.com", recipients: ["someone@example.org"] });
    expect(c.curl).toContain(`o'\\''neil@example.com`);
  });
});
