import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { currentKekId, kekId, resetKeyCache, safeEqual, seal, sha256Hex, unseal } from "./crypto";
import { resetEnvCache } from "./env";

const newKey = () => randomBytes(32).toString("base64");
const saved = {
  master: process.env.CAPSTAN_MASTER_KEY,
  previous: process.env.CAPSTAN_PREVIOUS_MASTER_KEYS,
};

function useKeys(master: string, previous?: string[]): void {
  process.env.CAPSTAN_MASTER_KEY = master;
  if (previous) process.env.CAPSTAN_PREVIOUS_MASTER_KEYS = previous.join(",");
  else delete process.env.CAPSTAN_PREVIOUS_MASTER_KEYS;
  resetEnvCache();
  resetKeyCache();
}

/** Replaces one dot-separated part of a sealed value. */
function withPart(sealed: string, index: number, change: (part: string) => string): string {
  const parts = sealed.split(".");
  parts[index] = change(parts[index]!);
  return parts.join(".");
}

/** Flips one bit of a base64url part. */
const flipBit = (part: string) => {
  const buf = Buffer.from(part, "base64url");
  buf[0] = buf[0]! ^ 1;
  return buf.toString("base64url");
};

beforeEach(() => useKeys(newKey()));

afterEach(() => {
  for (const [name, value] of [
    ["CAPSTAN_MASTER_KEY", saved.master],
    ["CAPSTAN_PREVIOUS_MASTER_KEYS", saved.previous],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnvCache();
  resetKeyCache();
});

describe("seal / unseal", () => {
  it("round-trips, including empty and non-ASCII plaintext", () => {
    for (const plaintext of ["s3cret", "", "пароль €😀", "x".repeat(10_000)]) {
      expect(unseal(seal(plaintext, "row:1"), "row:1")).toBe(plaintext);
    }
    expect(unseal(seal("no aad"))).toBe("no aad");
  });

  it("produces v1.<kek>.<iv>.<tag>.<ct> naming the current key, fresh IV each time", () => {
    const a = seal("same");
    const b = seal("same");
    expect(a).not.toBe(b);
    const [v, id, iv, tag] = a.split(".");
    expect(v).toBe("v1");
    expect(id).toBe(currentKekId());
    expect(id).toMatch(/^kek_[0-9a-f]{16}$/);
    expect(Buffer.from(iv!, "base64url")).toHaveLength(12);
    expect(Buffer.from(tag!, "base64url")).toHaveLength(16);
  });

  it("does not contain the plaintext", () => {
    const plaintext = "correct-horse-battery-staple";
    const sealed = seal(plaintext);
    expect(sealed).not.toContain(plaintext);
    expect(sealed).not.toContain(Buffer.from(plaintext).toString("base64url"));
    expect(sealed).not.toContain(Buffer.from(plaintext).toString("base64"));
    expect(sealed).not.toContain(Buffer.from(plaintext).toString("hex"));
  });

  it("rejects a tampered ciphertext, tag or IV", () => {
    const sealed = seal("tamper me", "aad");
    expect(() => unseal(withPart(sealed, 4, flipBit), "aad")).toThrow();
    expect(() => unseal(withPart(sealed, 3, flipBit), "aad")).toThrow();
    expect(() => unseal(withPart(sealed, 2, flipBit), "aad")).toThrow();
    expect(() =>
      unseal(
        withPart(sealed, 4, (ct) => ct + "AA"),
        "aad",
      ),
    ).toThrow();
    expect(unseal(sealed, "aad")).toBe("tamper me");
  });

  it("binds the value to its AAD", () => {
    const sealed = seal("bound", "signing_keys:kid_1");
    expect(() => unseal(sealed, "signing_keys:kid_2")).toThrow();
    expect(() => unseal(sealed)).toThrow();
  });

  it("rejects malformed input", () => {
    expect(() => unseal("plaintext")).toThrow(/not a sealed value/);
    expect(() => unseal(seal("x").replace(/^v1\./, "v2."))).toThrow(/not a sealed value/);
  });
});

describe("key rotation", () => {
  it("still unseals values sealed under a previous key and seals under the new one", () => {
    const keyA = newKey();
    const keyB = newKey();
    useKeys(keyA);
    const idA = currentKekId();
    const sealedA = seal("rotate me", "aad");

    useKeys(keyB, [keyA]);
    expect(currentKekId()).not.toBe(idA);
    expect(unseal(sealedA, "aad")).toBe("rotate me");
    const sealedB = seal("new value", "aad");
    expect(sealedB.split(".")[1]).toBe(currentKekId());
    expect(unseal(sealedB, "aad")).toBe("new value");
  });

  it("accepts several previous keys and hex-encoded keys", () => {
    const keyA = randomBytes(32);
    const keyB = newKey();
    useKeys(keyA.toString("hex"));
    const sealedA = seal("hex key");
    expect(sealedA.split(".")[1]).toBe(kekId(keyA));

    useKeys(newKey(), [keyB, keyA.toString("base64")]);
    expect(unseal(sealedA)).toBe("hex key");
  });

  it("fails for a value sealed under a key that is no longer configured", () => {
    const sealedA = seal("orphan");
    useKeys(newKey());
    expect(() => unseal(sealedA)).toThrow(/unknown key-encryption key/);
  });

  it("fails for an unknown kek id", () => {
    const sealed = withPart(seal("x"), 1, () => "kek_0000000000000000");
    expect(() => unseal(sealed)).toThrow(/unknown key-encryption key kek_0000000000000000/);
  });

  it("refuses a master key that is not 32 bytes", () => {
    useKeys(randomBytes(16).toString("base64"));
    expect(() => seal("x")).toThrow(/32 bytes/);
  });
});

describe("helpers", () => {
  it("sha256Hex and safeEqual", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
  });
});
