import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { assertSafeInput, isSafeString, MAX_JSON_DEPTH } from "./hostile-input";

function failure(value: unknown): AppError {
  try {
    assertSafeInput(value, "request body");
  } catch (err) {
    return err as AppError;
  }
  throw new Error("expected a failure");
}

describe("assertSafeInput", () => {
  it("accepts ordinary input, astral characters (paired surrogates) and depth up to the limit", () => {
    expect(isSafeString("héllo 😀 \u2028")).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
    expect(() => assertSafeInput({ a: ["x", { b: "😀" }], deep: (deep as unknown[])[0] })).not.toThrow();
  });

  it("names the field holding a NUL or an unpaired surrogate, in values and member names", () => {
    for (const [input, path] of [
      [{ name: "a\u0000b" }, "/name"],
      [{ items: ["ok", "\ud800"] }, "/items/1"],
      [{ x: { "k\udc00": 1 } }, "/x/k\ufffd"],
      [{ x: "\udc00\ud800" }, "/x"],
      ["\u0000", "/"],
    ] as const) {
      const err = failure(input);
      expect(err.status).toBe(400);
      expect(err.reason).toBe("invalid_string");
      expect(err.errors?.[0]?.path).toBe(path);
    }
  });

  it("refuses nesting past the limit without recursion (no stack overflow at 1e6 levels)", () => {
    const text = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    const err = failure(JSON.parse(text));
    expect(err.status).toBe(400);
    expect(err.reason).toBe("nesting_too_deep");
    expect(err.errors?.[0]?.path).toBe("/" + Array(MAX_JSON_DEPTH).fill(0).join("/"));
  });
});
