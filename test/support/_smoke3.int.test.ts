import { expect, it } from "vitest";
import { getDb, dbKind } from "../../src/server/platform/db/client";
import { testDbMode } from "./db";

it("opens via getDb", async () => {
  const db = await getDb();
  const rows = await db.$queryRawUnsafe<{ n: number }[]>("select count(*)::int as n from users");
  expect(rows[0]!.n).toBe(0);
  expect(dbKind()).toBe(testDbMode());
});
