import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  currency,
  divRoundHalfUp,
  formatMicros,
  formatMinor,
  fromWire,
  microsToMinorTrunc,
  minorToMicros,
  priceCall,
  toWire,
} from "./money";

describe("money", () => {
  it("converts minor units to micros exactly per the currency exponent", () => {
    expect(minorToMicros(BigInt(1999), "USD")).toBe(BigInt(19_990_000));
    expect(minorToMicros(BigInt(500), "JPY")).toBe(BigInt(500_000_000));
    expect(minorToMicros(BigInt(1), "KWD")).toBe(BigInt(1_000));
  });

  it("truncates micros to minor units toward zero (never shows money not held)", () => {
    expect(microsToMinorTrunc(BigInt(19_999_999), "USD")).toBe(BigInt(1999));
    expect(microsToMinorTrunc(BigInt(-19_999_999), "USD")).toBe(BigInt(-1999));
    expect(microsToMinorTrunc(BigInt(999_999), "JPY")).toBe(BigInt(0));
  });

  it("round-trips minor -> micros -> minor for any safe amount", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.constantFrom("USD", "JPY", "KWD" as const), (n, c) => {
        expect(microsToMinorTrunc(minorToMicros(BigInt(n), c), c)).toBe(BigInt(n));
      }),
    );
  });

  it("rounds half up", () => {
    expect(divRoundHalfUp(BigInt(5), BigInt(10))).toBe(BigInt(1));
    expect(divRoundHalfUp(BigInt(4), BigInt(10))).toBe(BigInt(0));
    expect(divRoundHalfUp(BigInt(15), BigInt(10))).toBe(BigInt(2));
    expect(divRoundHalfUp(BigInt(25), BigInt(10))).toBe(BigInt(3));
    expect(() => divRoundHalfUp(BigInt(-1), BigInt(10))).toThrow(RangeError);
  });

  it("prices a call once, on the sum, not per component", () => {
    // 0.15 USD / Mtok in, 0.60 USD / Mtok out: 1 token in + 1 token out = 0.75 micros -> 1 (not 0 + 1 = 1, nor 0.15->0 + 0.6->1).
    const p = { inputTokensPerMillion: BigInt(150_000), outputTokensPerMillion: BigInt(600_000), perCall: BigInt(0) };
    expect(priceCall(p, { inputTokens: 1, outputTokens: 1, calls: 1 })).toBe(BigInt(1));
    // 3 tokens in at 0.15 micros each = 0.45 -> 0 alone; with 1 in-token per component rounding would differ at scale.
    expect(priceCall(p, { inputTokens: 3, outputTokens: 0, calls: 1 })).toBe(BigInt(0));
    expect(priceCall(p, { inputTokens: 1_000_000, outputTokens: 500_000, calls: 1 })).toBe(BigInt(450_000));
    expect(priceCall({ ...p, perCall: BigInt(2500) }, { inputTokens: 10, outputTokens: 10, calls: 1 })).toBe(
      BigInt(2508),
    );
  });

  it("is exact where floating point is not", () => {
    // 0.1 + 0.2 in micros of a dollar: exact integers.
    expect(minorToMicros(BigInt(10), "USD") + minorToMicros(BigInt(20), "USD")).toBe(minorToMicros(BigInt(30), "USD"));
    const p = { inputTokensPerMillion: BigInt(3_000_000_000), outputTokensPerMillion: BigInt(0), perCall: BigInt(0) };
    expect(priceCall(p, { inputTokens: 9_007_199, outputTokens: 0, calls: 0 })).toBe(BigInt(27_021_597_000));
  });

  it("refuses unknown currencies and unsafe wire amounts", () => {
    expect(currency("EUR")).toBe("EUR");
    expect(() => currency("usd")).toThrow(/not a supported/);
    expect(() => currency("XXX")).toThrow(/not a supported/);
    expect(() => toWire(BigInt(Number.MAX_SAFE_INTEGER) + BigInt(1))).toThrow(RangeError);
    expect(() => fromWire(0.5)).toThrow(RangeError);
    expect(toWire(BigInt(-42))).toBe(-42);
  });

  it("formats for display with integer arithmetic, truncating toward zero", () => {
    expect(formatMicros(BigInt(1_234_567_891), "USD")).toBe("1,234.56 USD");
    expect(formatMicros(-740, "USD")).toBe("−0.00 USD");
    expect(formatMicros(580, "USD", true)).toBe("0.00058 USD");
    expect(formatMicros(5_000_000, "JPY")).toBe("5 JPY");
    expect(formatMinor(1, "KWD")).toBe("0.001 KWD");
    expect(formatMinor(250_000, "EUR")).toBe("2,500.00 EUR");
  });
});
