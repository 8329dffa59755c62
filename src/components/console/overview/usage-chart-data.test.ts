import { describe, expect, it } from "vitest";
import type { TUsageBucket, TUsageSeries } from "@/server/domain/overview/overview.contract";
import { chartModel, metricsOf, OTHER } from "./usage-chart-data";

const bucket = (day: string, key: string, calls: number, usd = 0): TUsageBucket => ({
  day,
  key,
  calls,
  completed: calls,
  denied: 0,
  failed: 0,
  usage: [],
  spend: usd ? [{ currency: "USD", amount_micros: usd }] : [],
});
const series = (by_capability: TUsageBucket[], by_product: TUsageBucket[] = []): TUsageSeries => ({
  since: "2026-11-23",
  until: "2026-11-25",
  days: ["2026-11-23", "2026-11-24", "2026-11-25"],
  time_zone: "UTC",
  by_capability,
  by_product,
  products: [{ id: "prod_a", name: "Shop" }],
  totals: {
    calls: 0,
    completed: 0,
    denied: 0,
    failed: 0,
    spend: [
      { currency: "EUR", amount_micros: 5 },
      { currency: "USD", amount_micros: 9 },
    ],
  },
});

describe("chartModel", () => {
  it("fills every day, ranks keys by total and names series safely", () => {
    const m = chartModel(
      series([
        bucket("2026-11-24", "data.kv", 1),
        bucket("2026-11-24", "ai.generate", 3),
        bucket("2026-11-25", "ai.generate", 2),
      ]),
      "capability",
      "calls",
    );
    expect(m.series.map((s) => [s.id, s.label, s.total])).toEqual([
      ["s0", "ai.generate", 5],
      ["s1", "data.kv", 1],
    ]);
    expect(m.rows).toEqual([
      { day: "2026-11-23", total: 0, s0: 0, s1: 0 },
      { day: "2026-11-24", total: 4, s0: 3, s1: 1 },
      { day: "2026-11-25", total: 2, s0: 2, s1: 0 },
    ]);
    expect(m.total).toBe(6);
    expect(m.series[0]!.color).toBe("var(--chart-1)");
  });

  it("folds keys past the fifth into Other", () => {
    const keys = ["a", "b", "c", "d", "e", "f", "g"];
    const m = chartModel(series(keys.map((k, i) => bucket("2026-11-25", k, 10 - i))), "capability", "calls");
    expect(m.series.map((s) => s.label)).toEqual(["a", "b", "c", "d", OTHER]);
    expect(m.series.at(-1)!.total).toBe(6 + 5 + 4);
    expect(m.rows.at(-1)!.total).toBe(10 + 9 + 8 + 7 + 6 + 5 + 4);
  });

  it("plots one currency's micros and names products", () => {
    const m = chartModel(
      series([], [bucket("2026-11-23", "prod_a", 2, 1500), bucket("2026-11-23", "prod_b", 1)]),
      "product",
      "spend:USD",
    );
    expect(m.series.map((s) => [s.label, s.total])).toEqual([["Shop", 1500]]);
    expect(m.rows[0]).toEqual({ day: "2026-11-23", total: 1500, s0: 1500 });
  });

  it("offers calls, then each currency by amount", () => {
    expect(metricsOf(series([]))).toEqual(["calls", "spend:USD", "spend:EUR"]);
  });
});
