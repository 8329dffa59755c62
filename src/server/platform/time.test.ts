import { describe, expect, it } from "vitest";
import { iso, isTimestamp, isoOrNull, nextUtcMonthStart, utcMonth, zTimestamp } from "./time";

describe("isTimestamp", () => {
  it.each([
    "2024-02-29T00:00:00Z", // leap day
    "2024-02-29T12:30:45.123Z",
    "2000-02-29T23:59:59Z", // divisible by 400: leap
    "2023-12-31T23:59:59.999999999Z",
    "1970-01-01T00:00:00.0Z",
    "2024-04-30T00:00:00Z",
  ])("accepts %s", (value) => {
    expect(isTimestamp(value)).toBe(true);
    expect(zTimestamp.safeParse(value).success).toBe(true);
  });

  it.each([
    ["Feb 29 of a non-leap year", "2023-02-29T00:00:00Z"],
    ["Feb 29 of a century non-leap year", "1900-02-29T00:00:00Z"],
    ["month 13", "2024-13-01T00:00:00Z"],
    ["month 00", "2024-00-10T00:00:00Z"],
    ["April 31", "2024-04-31T00:00:00Z"],
    ["day 00", "2024-04-00T00:00:00Z"],
    ["missing Z", "2024-02-29T00:00:00"],
    ["+00:00 offset", "2024-02-29T00:00:00+00:00"],
    ["-05:00 offset", "2024-02-29T00:00:00-05:00"],
    ["hour 24", "2024-02-29T24:00:00Z"],
    ["minute 60", "2024-02-29T23:60:00Z"],
    ["second 60", "2024-02-29T23:59:60Z"],
    ["lower-case z", "2024-02-29T00:00:00z"],
    ["lower-case t", "2024-02-29t00:00:00Z"],
    ["date only", "2024-02-29"],
    ["space separator", "2024-02-29 00:00:00Z"],
    ["empty fraction", "2024-02-29T00:00:00.Z"],
    ["ten fraction digits", "2024-02-29T00:00:00.1234567890Z"],
    ["surrounding whitespace", " 2024-02-29T00:00:00Z"],
  ])("rejects %s", (_label, value) => {
    expect(isTimestamp(value)).toBe(false);
    expect(zTimestamp.safeParse(value).success).toBe(false);
  });
});

describe("iso", () => {
  it("emits milliseconds in UTC with Z", () => {
    expect(iso(new Date(Date.UTC(2024, 1, 29, 1, 2, 3, 4)))).toBe("2024-02-29T01:02:03.004Z");
    expect(isTimestamp(iso(new Date()))).toBe(true);
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull(undefined)).toBeNull();
    expect(isoOrNull(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
  });
});

describe("utcMonth", () => {
  it("is the YYYY-MM of the UTC month", () => {
    expect(utcMonth(new Date("2024-02-29T12:00:00Z"))).toBe("2024-02");
    expect(utcMonth(new Date("2024-12-31T23:59:59.999Z"))).toBe("2024-12");
    expect(utcMonth(new Date("2025-01-01T00:00:00.000Z"))).toBe("2025-01");
  });

  it("uses UTC, not local time, at month boundaries", () => {
    // 23:30 on Jan 31 at UTC-05:00 is already February in UTC.
    expect(utcMonth(new Date("2024-01-31T23:30:00-05:00"))).toBe("2024-02");
    // 00:30 on Mar 1 at UTC+02:00 is still February in UTC.
    expect(utcMonth(new Date("2024-03-01T00:30:00+02:00"))).toBe("2024-02");
  });

  it("defaults to the current month", () => {
    expect(utcMonth()).toBe(new Date().toISOString().slice(0, 7));
  });
});

describe("nextUtcMonthStart", () => {
  it.each([
    ["2024-01-31T23:59:59.999Z", "2024-02-01T00:00:00.000Z"],
    ["2024-02-29T12:00:00.000Z", "2024-03-01T00:00:00.000Z"],
    ["2024-03-01T00:00:00.000Z", "2024-04-01T00:00:00.000Z"], // exactly at a month start
    ["2024-12-15T08:00:00.000Z", "2025-01-01T00:00:00.000Z"], // December rolls over the year
    ["2024-12-31T23:59:59.999Z", "2025-01-01T00:00:00.000Z"],
  ])("after %s is %s", (from, expected) => {
    expect(nextUtcMonthStart(new Date(from)).toISOString()).toBe(expected);
  });

  it("is always strictly later than its input and the first of a UTC month", () => {
    const from = new Date("2024-06-30T23:00:00-03:00"); // July 1 02:00 UTC
    const next = nextUtcMonthStart(from);
    expect(next.toISOString()).toBe("2024-08-01T00:00:00.000Z");
    expect(next.getTime()).toBeGreaterThan(from.getTime());
  });
});
