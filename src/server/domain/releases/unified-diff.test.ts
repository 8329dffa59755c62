import { describe, expect, it } from "vitest";
import { unifiedDiff } from "./unified-diff";

describe("unifiedDiff", () => {
  it("shows one changed line with its context", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h"].join("\n");
    const after = ["a", "b", "c", "d", "E", "f", "g", "h"].join("\n");
    expect(unifiedDiff("x.txt", before, after)).toBe(
      ["--- a/x.txt", "+++ b/x.txt", "@@ -2,7 +2,7 @@", " b", " c", " d", "-e", "+E", " f", " g", " h", ""].join("\n"),
    );
  });

  it("shows an inserted line and a one-line file", () => {
    expect(unifiedDiff("p.json", "{}", '{"a":1}')).toBe(
      ["--- a/p.json", "+++ b/p.json", "@@ -1,1 +1,1 @@", "-{}", '+{"a":1}', ""].join("\n"),
    );
    expect(unifiedDiff("y", "a\nc", "a\nb\nc")).toBe(
      ["--- a/y", "+++ b/y", "@@ -1,2 +1,3 @@", " a", "+b", " c", ""].join("\n"),
    );
  });
});
