import pg from "pg";
import { describe, expect, it } from "vitest";
import { createScratchDatabase, testDatabaseUrl, testDbMode } from "./db";
import { env } from "../../src/server/platform/env";

describe("int smoke", () => {
  it("has its own migrated database", async () => {
    console.warn("mode", testDbMode(), testDatabaseUrl(), env().CAPSTAN_DATA_DIR, env().CAPSTAN_WORKERS);
    expect(testDbMode()).toBe("postgres");
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    const r = await c.query("select to_regclass('public.users') as t, current_database() as d");
    await c.end();
    expect(r.rows[0].t).toBe("users");
    expect(r.rows[0].d).toMatch(/^capstan_t_/);
  });
  it("scratch db", async () => {
    const s = await createScratchDatabase();
    const c = new pg.Client({ connectionString: s.url });
    await c.connect();
    const r = await c.query("select to_regclass('public.users') as t");
    await c.end();
    expect(r.rows[0].t).toBeNull();
    await s.drop();
  });
});
