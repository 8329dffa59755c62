import { createHash, randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";
import { resetKeyCache } from "./crypto";
import { resetEnvCache } from "./env";
import { requestFingerprint } from "./idempotency";

const saved = process.env.CAPSTAN_MASTER_KEY;
function withKey(key: string): void {
  process.env.CAPSTAN_MASTER_KEY = key;
  resetEnvCache();
  resetKeyCache();
}
afterEach(() => {
  if (saved === undefined) delete process.env.CAPSTAN_MASTER_KEY;
  else process.env.CAPSTAN_MASTER_KEY = saved;
  resetEnvCache();
  resetKeyCache();
});

describe("requestFingerprint", () => {
  it("is a keyed hash of the canonical body: stable under key order, not the plain sha256", () => {
    withKey(randomBytes(32).toString("base64"));
    const body = { secret: "hunter2", provider: "openai", nested: { b: 1, a: 2 } };
    const fp = requestFingerprint(body);
    expect(fp).toMatch(/^h1:[0-9a-f]{64}$/);
    expect(requestFingerprint({ nested: { a: 2, b: 1 }, provider: "openai", secret: "hunter2" })).toBe(fp);
    expect(requestFingerprint({ ...body, secret: "hunter3" })).not.toBe(fp);
    // Someone holding only the database cannot test guesses against a plain hash.
    expect(fp.slice(3)).not.toBe(createHash("sha256").update(canonicalJson(body)).digest("hex"));
  });

  it("depends on the master key", () => {
    withKey(randomBytes(32).toString("base64"));
    const a = requestFingerprint({ x: 1 });
    withKey(randomBytes(32).toString("base64"));
    expect(requestFingerprint({ x: 1 })).not.toBe(a);
    expect(requestFingerprint(undefined)).toBe(requestFingerprint({}));
  });
});
