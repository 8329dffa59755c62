import { describe, expect, it } from "vitest";
import { AppError } from "@/server/platform/errors";
import { resolveRange, shapeBuckets, totalsOf, type TSeriesGroup } from "./usage-series";

const NOW = new Date("2026-11-25T13:14:15.000Z");
const g = (over: Partial<TSeriesGroup>): TSeriesGroup => ({
  day: "2026-11-24",
  key: "ai.generate",
  usage_unit: "tokens",
  currency: null,
  calls: 1,
  completed: 1,
  denied: 0,
  failed: 0,
  units: 10,
  micros: null,
  ...over,
});

describe("resolveRange", () => {
  it("names the last n UTC days, today included, 30 by default", () => {
    const r7 = resolveRange({ range: "7d" }, NOW);
    expect([r7.since, r7.until, r7.days.length]).toEqual(["2026-11-19", "2026-11-25", 7]);
    expect(r7.start.toISOString()).toBe("2026-11-19T00:00:00.000Z");
    expect(r7.end.toISOString()).toBe("2026-11-26T00:00:00.000Z");
    expect(r7.days[0]).toBe("2026-11-19");
    expect(r7.days.at(-1)).toBe("2026-11-25");
    const d = resolveRange({}, NOW);
    expect([d.since, d.until, d.days.length]).toEqual(["2026-10-27", "2026-11-25", 30]);
    expect(resolveRange({ range: "90d" }, NOW).days).toHaveLength(90);
  });

  it("takes since..until inclusive, across a leap day, up to 366 days", () => {
    const r = resolveRange({ since: "2028-02-28", until: "2028-03-01" }, NOW);
    expect(r.days).toEqual(["2028-02-28", "2028-02-29", "2028-03-01"]);
    expect(resolveRange({ since: "2028-01-01", until: "2028-12-31" }, NOW).days).toHaveLength(366);
    expect(resolveRange({ since: "2026-11-25", until: "2026-11-25" }, NOW).days).toEqual(["2026-11-25"]);
  });

  it("refuses a reversed, half-given, mixed or too long range with a 400 naming the query parameter", () => {
    const cases: [Parameters<typeof resolveRange>[0], string][] = [
      [{ since: "2026-11-02", until: "2026-11-01" }, "/since"],
      [{ since: "2026-11-02" }, "/until"],
      [{ until: "2026-11-02" }, "/since"],
      [{ range: "7d", since: "2026-11-01", until: "2026-11-02" }, "/range"],
      [{ since: "2025-01-01", until: "2026-01-02" }, "/until"],
    ];
    for (const [q, path] of cases) {
      let err: unknown;
      try {
        resolveRange(q, NOW);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(400);
      expect((err as AppError).errors?.[0]?.path).toBe(`/query${path}`);
    }
  });
});

describe("shapeBuckets", () => {
  it("merges the unit and currency splits of a day × key and sorts by day then key", () => {
    const out = shapeBuckets([
      g({ day: "2026-11-25", key: "data.kv", usage_unit: "bytes", calls: 2, completed: 2, units: 300 }),
      g({ calls: 2, completed: 1, denied: 1, units: 40, currency: "USD", micros: "1500" }),
      g({ calls: 1, completed: 0, failed: 1, units: 5, currency: "EUR", micros: "7" }),
      g({ calls: 3, units: 1, usage_unit: "calls" }),
    ]);
    expect(out).toEqual([
      {
        day: "2026-11-24",
        key: "ai.generate",
        calls: 6,
        completed: 2,
        denied: 1,
        failed: 1,
        usage: [
          { unit: "calls", units: 1 },
          { unit: "tokens", units: 45 },
        ],
        spend: [
          { currency: "EUR", amount_micros: 7 },
          { currency: "USD", amount_micros: 1500 },
        ],
      },
      {
        day: "2026-11-25",
        key: "data.kv",
        calls: 2,
        completed: 2,
        denied: 0,
        failed: 0,
        usage: [{ unit: "bytes", units: 300 }],
        spend: [],
      },
    ]);
  });

  it("adds money exactly as integers beyond float precision, and refuses an unsafe total", () => {
    const big = "4503599627370495"; // 2^52 - 1: two of them are exact in BigInt, the sum still a safe integer
    const out = shapeBuckets([g({ currency: "USD", micros: big }), g({ currency: "USD", micros: "2" })]);
    expect(out[0]!.spend).toEqual([{ currency: "USD", amount_micros: 4503599627370497 }]);
    expect(() => shapeBuckets([g({ currency: "USD", micros: "9007199254740992" })])).toThrow(RangeError);
  });

  it("totals count every call once and sum spend per currency", () => {
    expect(
      totalsOf([
        g({ calls: 2, completed: 1, denied: 1, currency: "USD", micros: "10" }),
        g({ day: "2026-11-25", calls: 3, completed: 1, failed: 2, currency: "USD", micros: "5" }),
        g({ key: "email.send", calls: 1, usage_unit: "calls" }),
      ]),
    ).toEqual({ calls: 6, completed: 3, denied: 1, failed: 2, spend: [{ currency: "USD", amount_micros: 15 }] });
  });
});
