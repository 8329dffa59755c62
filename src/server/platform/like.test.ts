import { describe, expect, it } from "vitest";
import { likeLiteral } from "./like";

describe("likeLiteral", () => {
  it("escapes LIKE's wildcards and its escape character, nothing else", () => {
    expect(likeLiteral("/app/50%_off\\x")).toBe("/app/50\\%\\_off\\\\x");
    expect(likeLiteral("/plain/key.txt")).toBe("/plain/key.txt");
    expect(likeLiteral("")).toBe("");
  });
});
