import { describe, expect, it } from "vitest";
import { secretEncodings } from "./output-check";

const SECRET = "sk-live-Ab3/+xyz?&= ü";

function caught(text: string): boolean {
  return secretEncodings(SECRET).some((v) => text.includes(v));
}

describe("secretEncodings: the forms a secret is caught in", () => {
  it("as is, JSON-escaped, hex (both cases) and URL/form encoded", () => {
    const b = Buffer.from(SECRET);
    expect(caught(`x ${SECRET} y`)).toBe(true);
    expect(caught(JSON.stringify({ v: `a"${SECRET}` }))).toBe(true);
    expect(caught(`0x${b.toString("hex")}`)).toBe(true);
    expect(caught(b.toString("hex").toUpperCase())).toBe(true);
    expect(caught(`?k=${encodeURIComponent(SECRET)}`)).toBe(true);
    expect(caught(`k=${encodeURIComponent(SECRET).replace(/%20/g, "+")}`)).toBe(true);
    expect(caught(encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()))).toBe(true);
  });

  it("base64 and base64url, alone or inside a larger encoded text at any offset", () => {
    for (const prefix of ["", "a", "ab", "abc", "the key is: "]) {
      for (const suffix of ["", "!", " and more"]) {
        const b64 = Buffer.from(prefix + SECRET + suffix).toString("base64");
        expect(caught(b64), `${prefix}|${suffix}`).toBe(true);
        expect(caught(b64.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")), `url ${prefix}|${suffix}`).toBe(
          true,
        );
      }
    }
  });

  it("does not match unrelated text, nor other secrets' encodings", () => {
    expect(caught("sk-live-Ab3 something else entirely")).toBe(false);
    expect(caught(Buffer.from("another secret value").toString("base64"))).toBe(false);
    expect(secretEncodings("short").every((v) => v.length >= 8)).toBe(true);
  });
});

describe("SecretNeedles: the cached values never print", () => {
  it("JSON, util.inspect, String and template literals show [redacted]", async () => {
    const { inspect } = await import("node:util");
    const { SecretNeedles } = await import("./output-check");
    const n = new SecretNeedles(secretEncodings(SECRET));
    const printed = [JSON.stringify({ n }), inspect({ n }, { depth: 10, showHidden: true }), String(n), `${n}`].join(
      "\n",
    );
    expect(printed).not.toContain("sk-live");
    expect(printed).toContain("[redacted]");
    expect(n.foundIn(`x${SECRET}`)).toBe(true);
  });
});
