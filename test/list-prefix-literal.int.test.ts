import { beforeAll, describe, expect, it } from "vitest";
import { bootBridgeApp, bridge, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";

/**
 * Issue #15 item 4: a list prefix is a literal string. `%`, `_` and `\` in it
 * used to reach SQL LIKE as wildcards (`/app/a%` listed every key under
 * `/app/a`); now they only match themselves.
 */
const storageCapability = {
  id: "storage.object" as const,
  required: true,
  actions: ["read", "write", "delete", "list"],
  scope: { prefix: "/files", max_object_bytes: 100 },
  credential_owner: "workspace" as const,
  provider: { allow: ["platform"], fallback: "none" as const },
};

const KEYS = ["%", "_", "\\", "a%b", "a_b", "a\\b", "aXb", "abc", "a", "ab"];

let s: TBridgeSetup;

beforeAll(async () => {
  await bootBridgeApp();
  s = await setupBridge({ capabilities: [kvCapability(), storageCapability] });
  for (const k of KEYS) {
    const kv = await bridge(s.token, "data.kv", "set", { key: `/app/${k}`, value: k });
    expect(kv.status, kv.text).toBe(200);
    const obj = await bridge(s.token, "storage.object", "write", {
      key: `/files/${k}`,
      content_base64: Buffer.from(k).toString("base64"),
    });
    expect(obj.status, obj.text).toBe(200);
  }
});

async function kvList(prefix: string): Promise<string[]> {
  const r = await bridge(s.token, "data.kv", "list", { prefix: `/app/${prefix}`, limit: 100 });
  expect(r.status, r.text).toBe(200);
  return (r.json.output.keys as string[]).map((k) => k.slice("/app/".length));
}

async function storageList(prefix: string): Promise<string[]> {
  const r = await bridge(s.token, "storage.object", "list", { prefix: `/files/${prefix}`, limit: 100 });
  expect(r.status, r.text).toBe(200);
  return (r.json.output.objects as { key: string }[]).map((o) => o.key.slice("/files/".length));
}

/** What a literal prefix match returns, computed in JS. */
const expected = (prefix: string) => KEYS.filter((k) => k.startsWith(prefix)).sort();

describe("list prefixes are literal (no LIKE wildcards)", () => {
  for (const prefix of ["%", "_", "\\", "a%", "a_", "a\\", "a", "a%b", "_b", "%b"]) {
    it(`data.kv list and storage.object list with prefix ${JSON.stringify(prefix)}`, async () => {
      expect((await kvList(prefix)).sort()).toEqual(expected(prefix));
      expect((await storageList(prefix)).sort()).toEqual(expected(prefix));
    });
  }

  it("paging with a cursor stays inside a wildcard-looking prefix", async () => {
    const first = await bridge(s.token, "data.kv", "list", { prefix: "/app/a", limit: 2 });
    const seen: string[] = [...first.json.output.keys];
    let cursor = first.json.output.next_cursor as string | null;
    while (cursor) {
      const next = await bridge(s.token, "data.kv", "list", { prefix: "/app/a", limit: 2, cursor });
      seen.push(...next.json.output.keys);
      cursor = next.json.output.next_cursor;
    }
    expect(seen.map((k) => k.slice(5)).sort()).toEqual(expected("a"));
  });
});
