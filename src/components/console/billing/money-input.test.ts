import { describe, expect, it } from "vitest";
import { microsToText, minorToText, parseMicros, parseMinor } from "./money-input";

describe("money inputs", () => {
  it("parses major-unit text to micros and minor units without floats", () => {
    expect(parseMicros("0.15")).toBe(150_000);
    expect(parseMicros("3")).toBe(3_000_000);
    expect(parseMicros("0.000001")).toBe(1);
    expect(parseMicros("0.0000001")).toBeNull();
    expect(parseMicros("-1")).toBeNull();
    expect(parseMicros("1e3")).toBeNull();
    expect(parseMinor("29.00", "USD")).toBe(2900);
    expect(parseMinor("29.001", "USD")).toBeNull();
    expect(parseMinor("500", "JPY")).toBe(500);
    expect(parseMinor("5.5", "JPY")).toBeNull();
    expect(parseMinor("1.234", "KWD")).toBe(1234);
  });

  it("formats back what it parses", () => {
    expect(minorToText(2900, "USD")).toBe("29.00");
    expect(minorToText(5, "USD")).toBe("0.05");
    expect(minorToText(500, "JPY")).toBe("500");
    expect(microsToText(150_000)).toBe("0.15");
    expect(microsToText(3_000_000)).toBe("3");
    expect(microsToText(1)).toBe("0.000001");
    for (const t of ["0.15", "12.5", "7"]) expect(microsToText(parseMicros(t)!)).toBe(t);
  });
});
