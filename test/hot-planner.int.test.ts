import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, getDb, hotSessionOptions, pooledTransaction, preparedQuery } from "@/server/platform/db/client";
import { testDbMode } from "./support/db";

/**
 * Hot statements keep key-driven plans (docs/decisions.md "Hot statements keep key-driven plans"). A named
 * statement keeps the generic plan PostgreSQL makes at its sixth run; made while `invocations` was nearly empty,
 * the invocation record's update kept a sequential scan and a hash join of the whole table for every later record
 * (the surface bench: 21 of 35 sampled records). The hot pool's sessions, and the named statements of
 * pooledTransaction, plan neither: whatever a table holds when the plan is made, the plan is an index lookup per id.
 */
const RECORD_UPDATE = `UPDATE invocations i SET updated_at = now()
  FROM unnest($1::text[], $2::text[]) AS x(id, execution) WHERE i.id = x.id`;

describe.skipIf(testDbMode() !== "postgres")("hot statement plans", () => {
  const clients: pg.Client[] = [];
  const session = async (options?: string) => {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL, ...(options ? { options } : {}) });
    await c.connect();
    clients.push(c);
    return c;
  };
  /** The generic plan (the one a named statement keeps) of the record's update, on an empty `invocations`. */
  const genericPlan = async (c: pg.Client) => {
    await c.query(`PREPARE rec(text[], text[]) AS ${RECORD_UPDATE}`);
    await c.query("SET plan_cache_mode = force_generic_plan");
    const rows = await c.query<{ "QUERY PLAN": string }>("EXPLAIN EXECUTE rec('{inv_a}', '{x}')");
    return rows.rows.map((r) => r["QUERY PLAN"]).join("\n");
  };

  beforeAll(async () => {
    await getDb();
  });
  afterAll(async () => {
    for (const c of clients) await c.end();
  });

  it("runs the hot pool's statements with sequential scans, hash and merge joins off", async () => {
    const [row] = await preparedQuery<{ s: string; h: string; m: string; j: string }>(
      "capstan_test_hot_settings",
      `SELECT current_setting('enable_seqscan') AS s, current_setting('enable_hashjoin') AS h,
              current_setting('enable_mergejoin') AS m, current_setting('jit') AS j`,
      [],
    );
    expect(row).toEqual({ s: "off", h: "off", m: "off", j: "off" });
  });

  it("plans the record's update on a nearly empty table as an index lookup per id; an ordinary session does not", async () => {
    const plain = await genericPlan(await session("-c jit=off"));
    // What a named statement of an ordinary session keeps: the whole table read and hashed (the seen regression).
    expect(plain).toMatch(/Seq Scan on invocations/);
    const hot = await genericPlan(await session(hotSessionOptions()));
    expect(hot).toMatch(/Nested Loop/);
    expect(hot).toMatch(/Index Scan using invocations_pkey on invocations/);
    expect(hot).not.toMatch(/Seq Scan on invocations|Hash Join|Merge Join/);
  });

  it("plans pooledTransaction's named statements the same way, and leaves the ORM's statements on that pool alone", async () => {
    const tx = pooledTransaction();
    expect(tx).not.toBeNull();
    const inside = await tx!((q) =>
      q<{ s: string; h: string }>(
        "capstan_test_pooled_settings",
        "SELECT current_setting('enable_seqscan') AS s, current_setting('enable_hashjoin') AS h",
        [],
      ),
    );
    expect(inside[0]).toEqual({ s: "off", h: "off" });
    // SET LOCAL ends with the transaction: every connection of the pool answers the ORM with the defaults.
    const after = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          db().$queryRaw<
            Array<{ s: string }>
          >`SELECT current_setting('enable_seqscan') AS s, pg_sleep(0.02)::text AS z`,
      ),
    );
    for (const r of after) expect(r[0]!.s).toBe("on");
  });
});
