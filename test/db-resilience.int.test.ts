import pg from "pg";
import { describe, expect, it } from "vitest";
import { db, getDb, rawQuery } from "@/server/platform/db/client";
import { testDbMode } from "./support/db";

/**
 * Pooled connections the server closes (a restart, a failover,
 * pg_terminate_backend) must not crash the process: both pools (Prisma's and
 * the Bridge's hot-statement pool) drop the dead idle connections, log them,
 * and serve the next query on a new connection. Without an `error` listener
 * on a pool, pg raises an unhandled error, which fails this file.
 */
describe.skipIf(testDbMode() !== "postgres")("idle connections terminated by the server", () => {
  it("are dropped and replaced; the next queries succeed", async () => {
    await getDb();
    // Open idle connections in both pools.
    await Promise.all([db().$queryRaw`SELECT 1`, rawQuery("SELECT 1", []), rawQuery("SELECT 2", [])]);

    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ terminated: boolean }>(
        "SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      expect(rows.length).toBeGreaterThanOrEqual(2);
      expect(rows.every((r) => r.terminated)).toBe(true);
      // Let the pools see the connections close.
      await new Promise((resolve) => setTimeout(resolve, 200));

      const [hot] = await rawQuery<{ n: number }>("SELECT 41 + 1 AS n", []);
      expect(hot!.n).toBe(42);
      const [prisma] = await db().$queryRaw<Array<{ n: number }>>`SELECT 40 + 2 AS n`;
      expect(prisma!.n).toBe(42);
      const { rows: after } = await admin.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      expect(Number(after[0]!.n)).toBeGreaterThanOrEqual(2); // new connections serve the pools
    } finally {
      await admin.end();
    }
  });
});
