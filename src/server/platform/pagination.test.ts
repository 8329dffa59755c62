import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { type TListQuery, decodeCursor, encodeCursor, keysetArgs, toPage, zListQuery } from "./pagination";

type TRow = { id: string; createdAt: Date };

function expectBadRequest(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("bad_request");
    expect((err as AppError).status).toBe(400);
    return;
  }
  throw new Error("expected a bad_request AppError");
}

describe("zListQuery", () => {
  it("defaults to limit 50, order desc, no cursor", () => {
    expect(zListQuery.parse({})).toEqual({ limit: 50, order: "desc" });
  });

  it("coerces query-string limits and accepts the bounds", () => {
    expect(zListQuery.parse({ limit: "1" }).limit).toBe(1);
    expect(zListQuery.parse({ limit: "200" }).limit).toBe(200);
    expect(zListQuery.parse({ order: "asc" }).order).toBe("asc");
  });

  it.each([0, "0", 201, "201", "abc", "1.5", -1])("rejects limit %j", (limit) => {
    expect(zListQuery.safeParse({ limit }).success).toBe(false);
  });

  it("rejects an unknown order", () => {
    expect(zListQuery.safeParse({ order: "up" }).success).toBe(false);
  });

  it("accepts a 128-char cursor and rejects 129 chars or empty", () => {
    expect(zListQuery.safeParse({ cursor: "a".repeat(128) }).success).toBe(true);
    expect(zListQuery.safeParse({ cursor: "a".repeat(129) }).success).toBe(false);
    expect(zListQuery.safeParse({ cursor: "" }).success).toBe(false);
  });
});

describe("cursors", () => {
  const row = { createdAt: new Date("2024-02-29T12:30:45.123Z"), id: "prod_01hhhhhhhhhhhhhhhhhhhhhhhh" };

  it("round-trip for both orders and fit the 128-char limit", () => {
    for (const order of ["asc", "desc"] as const) {
      const cursor = encodeCursor(row, order);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(cursor.length).toBeLessThanOrEqual(128);
      expect(zListQuery.safeParse({ cursor }).success).toBe(true);
      const back = decodeCursor(cursor, order);
      expect(back.id).toBe(row.id);
      expect(back.createdAt.getTime()).toBe(row.createdAt.getTime());
    }
  });

  it("reject a cursor issued for the other order", () => {
    expectBadRequest(() => decodeCursor(encodeCursor(row, "asc"), "desc"));
    expectBadRequest(() => decodeCursor(encodeCursor(row, "desc"), "asc"));
  });

  it.each([
    ["garbage", "not a cursor!!"],
    ["base64 of non-JSON", Buffer.from("hello").toString("base64url")],
    ["JSON null", Buffer.from("null").toString("base64url")],
    [
      "JSON without id",
      Buffer.from(JSON.stringify({ t: row.createdAt.toISOString(), o: "desc" })).toString("base64url"),
    ],
    ["invalid date", Buffer.from(JSON.stringify({ t: "yesterday", id: row.id, o: "desc" })).toString("base64url")],
    [
      "over-long id",
      Buffer.from(JSON.stringify({ t: row.createdAt.toISOString(), id: "x".repeat(65), o: "desc" })).toString(
        "base64url",
      ),
    ],
  ])("reject %s", (_label, cursor) => {
    expectBadRequest(() => decodeCursor(cursor, "desc"));
  });

  it("carry reason invalid_cursor pointing at the query parameter", () => {
    try {
      decodeCursor("garbage", "desc");
      throw new Error("expected a throw");
    } catch (err) {
      expect((err as AppError).reason).toBe("invalid_cursor");
      expect((err as AppError).errors?.[0]?.path).toBe("/query/cursor");
    }
  });
});

describe("keysetArgs", () => {
  it("fetches limit + 1 rows ordered by (createdAt, id) with no filter on the first page", () => {
    expect(keysetArgs(zListQuery.parse({ limit: 10 }))).toEqual({
      where: {},
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: 11,
    });
    expect(keysetArgs(zListQuery.parse({ limit: 10, order: "asc" })).orderBy).toEqual([
      { createdAt: "asc" },
      { id: "asc" },
    ]);
  });

  it("filters strictly after the cursor row in the list's direction", () => {
    const at = new Date("2024-01-01T00:00:00.000Z");
    const desc = keysetArgs({ limit: 5, order: "desc", cursor: encodeCursor({ createdAt: at, id: "b" }, "desc") });
    expect(desc.where).toEqual({ OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: "b" } }] });
    const asc = keysetArgs({ limit: 5, order: "asc", cursor: encodeCursor({ createdAt: at, id: "b" }, "asc") });
    expect(asc.where).toEqual({ OR: [{ createdAt: { gt: at } }, { createdAt: at, id: { gt: "b" } }] });
  });

  it("rejects a cursor issued for the other order", () => {
    const cursor = encodeCursor({ createdAt: new Date(), id: "a" }, "asc");
    expectBadRequest(() => keysetArgs({ limit: 5, order: "desc", cursor }));
  });
});

describe("toPage", () => {
  const rows: TRow[] = Array.from({ length: 4 }, (_, i) => ({ id: `r${i}`, createdAt: new Date(1_000 * i) }));
  const q = (limit: number): TListQuery => ({ limit, order: "asc" });

  it("sets next_cursor only when more rows than the limit were fetched", () => {
    const more = toPage(rows, q(3), (r) => r.id);
    expect(more.items).toEqual(["r0", "r1", "r2"]);
    expect(more.next_cursor).not.toBeNull();
    expect(decodeCursor(more.next_cursor!, "asc")).toEqual({ id: "r2", createdAt: rows[2]!.createdAt });

    expect(toPage(rows, q(4), (r) => r.id)).toEqual({ items: ["r0", "r1", "r2", "r3"], next_cursor: null });
    expect(toPage(rows, q(10), (r) => r.id).next_cursor).toBeNull();
    expect(toPage([], q(10), (r: TRow) => r.id)).toEqual({ items: [], next_cursor: null });
  });
});

/** Applies keysetArgs' Prisma-shaped query to an in-memory table. */
function runQuery(table: TRow[], args: ReturnType<typeof keysetArgs>): TRow[] {
  const cmp = (a: TRow, b: TRow) =>
    a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const dir = args.orderBy[0]!.createdAt === "asc" ? 1 : -1;
  const where = args.where as {
    OR?: [{ createdAt: Record<string, Date> }, { createdAt: Date; id: Record<string, string> }];
  };
  const matches = (r: TRow) => {
    if (!where.OR) return true;
    const [before, tie] = where.OR;
    const [op, at] = Object.entries(before.createdAt)[0]!;
    const [idOp, id] = Object.entries(tie.id)[0]!;
    const t = r.createdAt.getTime();
    const strictly = op === "lt" ? t < at.getTime() : t > at.getTime();
    const sameTime = t === tie.createdAt.getTime() && (idOp === "lt" ? r.id < id : r.id > id);
    return strictly || sameTime;
  };
  return table
    .filter(matches)
    .sort((a, b) => dir * cmp(a, b))
    .slice(0, args.take);
}

describe("keyset pagination end to end", () => {
  // Several rows share a timestamp, so the id tie-break matters.
  const table: TRow[] = [
    { id: "a", createdAt: new Date(3000) },
    { id: "b", createdAt: new Date(1000) },
    { id: "c", createdAt: new Date(2000) },
    { id: "d", createdAt: new Date(2000) },
    { id: "e", createdAt: new Date(2000) },
    { id: "f", createdAt: new Date(1000) },
    { id: "g", createdAt: new Date(4000) },
  ];

  it.each([
    ["asc", ["b", "f", "c", "d", "e", "a", "g"]],
    ["desc", ["g", "a", "e", "d", "c", "f", "b"]],
  ] as const)("visits every row exactly once in %s order", (order, expected) => {
    for (const limit of [1, 2, 3, 7, 50]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const query = zListQuery.parse({ limit, order, cursor });
        const page = toPage(runQuery(table, keysetArgs(query)), query, (r) => r.id);
        seen.push(...page.items);
        cursor = page.next_cursor ?? undefined;
        pages++;
      } while (cursor && pages < 20);
      expect(seen, `limit ${limit}`).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(table.length / limit)));
    }
  });
});
