import { describe, expect, it } from "vitest";
import { prorate, upgradeCharge } from "./proration";

/** Proration arithmetic (docs/decisions.md "Proration"): integers, one rounding, edges. */
const start = new Date("2026-03-01T00:00:00.000Z");
const end = new Date("2026-04-01T00:00:00.000Z"); // 31 days
const period = { start, end };
const at = (ms: number) => new Date(start.getTime() + ms);
const TOTAL = end.getTime() - start.getTime();
const b = BigInt;

describe("prorate", () => {
  it("is the whole amount at the start, nothing at or after the end, the whole amount before the start", () => {
    expect(prorate(b(2900), period, start, "half_up")).toBe(b(2900));
    expect(prorate(b(2900), period, end, "half_up")).toBe(b(0));
    expect(prorate(b(2900), period, at(TOTAL + 5), "half_up")).toBe(b(0));
    expect(prorate(b(2900), period, at(-86_400_000), "half_up")).toBe(b(2900));
  });

  it("is exact when the share divides, and rounds half up once otherwise", () => {
    expect(prorate(b(3100), period, at(TOTAL / 2), "half_up")).toBe(b(1550));
    // 1 × half the period = 0.5 -> 1 half up, 0 down.
    expect(prorate(b(1), period, at(TOTAL / 2), "half_up")).toBe(b(1));
    expect(prorate(b(1), period, at(TOTAL / 2), "down")).toBe(b(0));
    // 3 × 1/3 of a 3 ms period: exact 1; 2 × 1/3 = 0.666… -> 1 half up, 0 down.
    const p3 = { start: new Date(0), end: new Date(3) };
    expect(prorate(b(3), p3, new Date(2), "half_up")).toBe(b(1));
    expect(prorate(b(2), p3, new Date(2), "half_up")).toBe(b(1));
    expect(prorate(b(2), p3, new Date(2), "down")).toBe(b(0));
    // 1 × 1/3 = 0.333… -> 0 either way.
    expect(prorate(b(1), p3, new Date(2), "half_up")).toBe(b(0));
  });

  it("keeps precision for large amounts and one millisecond left", () => {
    const big = b(100_000_000_000); // the contract's maximum price
    expect(prorate(big, period, at(TOTAL - 1), "down")).toBe(big / b(TOTAL));
    expect(prorate(big, period, at(TOTAL - 1), "half_up")).toBe((big * b(2) + b(TOTAL)) / (b(TOTAL) * b(2)));
    // 1 ms in: 10^11 × (T − 1) / T = 99 999 999 962.664… (no float could say which way .664 goes at this size).
    expect(prorate(big, period, at(1), "half_up")).toBe(b(99_999_999_963));
    expect(prorate(big, period, at(1), "down")).toBe(b(99_999_999_962));
  });

  it("refuses a negative amount and an empty period", () => {
    expect(() => prorate(b(-1), period, start, "down")).toThrow(RangeError);
    expect(() => prorate(b(1), { start, end: start }, start, "down")).toThrow(RangeError);
  });
});

describe("upgradeCharge", () => {
  it("nets the price difference over the time left and prorates the credit difference down", () => {
    // 10 of 31 days left: (2900 - 900) × 10/31 = 645.16… -> 645; credit (1000 - 300) × 10/31 = 225.8… -> 225.
    const r = upgradeCharge(
      { priceMinor: b(900), includedCreditMinor: b(300) },
      { priceMinor: b(2900), includedCreditMinor: b(1000) },
      period,
      at(21 * 86_400_000),
    );
    expect(r).toEqual({ chargeMinor: b(645), creditMinor: b(225) });
  });

  it("charges nothing for a same-price change and grants no credit when the new tier includes less", () => {
    const r = upgradeCharge(
      { priceMinor: b(900), includedCreditMinor: b(500) },
      { priceMinor: b(900), includedCreditMinor: b(100) },
      period,
      at(1000),
    );
    expect(r).toEqual({ chargeMinor: b(0), creditMinor: b(0) });
  });
});
