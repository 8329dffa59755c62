import { describe, expect, it } from "vitest";
import { ID_PREFIXES, PLATFORM_WORKSPACE_ID, newId, ulid, zAnyId, zId, zWorkspaceId } from "./ids";

const BODY_CHARS = "0123456789abcdefghjkmnpqrstvwxyz";
const validBody = "01" + "h".repeat(24); // 26 chars, first char within 0-7

describe("newId", () => {
  it("is <prefix>_ followed by a 26-char lower-case Crockford ULID", () => {
    for (const prefix of ID_PREFIXES) {
      const id = newId(prefix);
      expect(id).toMatch(new RegExp(`^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`));
    }
  });

  it("is unique across many calls", () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newId("evt")));
    expect(ids.size).toBe(2000);
  });

  it("is accepted by the zod schema of its own prefix", () => {
    expect(zId("prod").safeParse(newId("prod")).success).toBe(true);
    expect(zAnyId.safeParse(newId("dlq")).success).toBe(true);
  });
});

describe("ulid", () => {
  it("encodes the millisecond time in the first 10 chars", () => {
    expect(ulid(0).slice(0, 10)).toBe("0000000000");
    expect(ulid(1).slice(0, 10)).toBe("0000000001");
    expect(ulid(32).slice(0, 10)).toBe("0000000010");
    // The largest 48-bit time still starts with 7, so bodies never overflow [0-7].
    expect(ulid(2 ** 48 - 1).slice(0, 10)).toBe("7zzzzzzzzz");
    expect(ulid(Date.UTC(2026, 0, 1))).toHaveLength(26);
  });

  it("only uses the Crockford alphabet", () => {
    for (let i = 0; i < 200; i++) {
      for (const ch of ulid()) expect(BODY_CHARS).toContain(ch);
    }
  });

  it("sorts lexicographically by creation time", () => {
    const base = Date.UTC(2024, 0, 1);
    const times = [0, 1, 31, 32, 1000, 60_000, 86_400_000, 365 * 86_400_000].map((d) => base + d);
    const ids = times.map((t) => `evt_${ulid(t)}`);
    // Sorting a reversed copy restores creation order.
    expect([...ids].reverse().sort()).toEqual(ids);
  });
});

describe("zId", () => {
  const z = zId("prod");

  it("accepts a well-formed id of the right prefix", () => {
    expect(z.safeParse(`prod_${validBody}`).success).toBe(true);
  });

  it.each([
    ["wrong prefix", `usr_${validBody}`],
    ["no prefix", validBody],
    ["prefix without separator", `prod${validBody}`],
    ["upper-case body", `prod_${validBody.toUpperCase()}`],
    ["upper-case prefix", `PROD_${validBody}`],
    ["contains i", `prod_01${"i".repeat(24)}`],
    ["contains l", `prod_01${"l".repeat(24)}`],
    ["contains o", `prod_01${"o".repeat(24)}`],
    ["contains u", `prod_01${"u".repeat(24)}`],
    ["first char past 7", `prod_8${"0".repeat(25)}`],
    ["25 chars", `prod_${validBody.slice(1)}`],
    ["27 chars", `prod_${validBody}0`],
    ["trailing space", `prod_${validBody} `],
    ["empty", ""],
  ])("rejects %s", (_label, value) => {
    expect(z.safeParse(value).success).toBe(false);
  });
});

describe("zWorkspaceId", () => {
  it("accepts ws_platform and ws_ ids", () => {
    expect(zWorkspaceId.safeParse(PLATFORM_WORKSPACE_ID).success).toBe(true);
    expect(zWorkspaceId.safeParse("ws_platform").success).toBe(true);
    expect(zWorkspaceId.safeParse(newId("ws")).success).toBe(true);
  });

  it("rejects other prefixes and near misses of ws_platform", () => {
    expect(zWorkspaceId.safeParse(newId("usr")).success).toBe(false);
    expect(zWorkspaceId.safeParse("ws_Platform").success).toBe(false);
    expect(zWorkspaceId.safeParse("ws_platforms").success).toBe(false);
    expect(zWorkspaceId.safeParse("platform").success).toBe(false);
  });
});
