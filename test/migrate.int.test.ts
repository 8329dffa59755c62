import { createHash, randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrate } from "../src/server/platform/db/migrate";
import { type SqlRunner, connectPg } from "../src/server/platform/db/sql-runner";

/**
 * scripts/migrate.ts and the server apply prisma/migrations with migrate():
 * exactly once each, recorded like `prisma migrate deploy` records them.
 * Every test gets its own fresh database.
 */
const ADMIN_URL =
  process.env.CAPSTAN_TEST_PG_ADMIN_URL ||
  process.env.TEST_DATABASE_URL ||
  "postgres://postgres@127.0.0.1:5432/postgres";
const MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");
const MIGRATION_NAMES = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

const created: string[] = [];
const openRunners: SqlRunner[] = [];
const tempDirs: string[] = [];

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh empty database; returns a function that opens a new connection to it. */
async function freshDatabase(): Promise<() => Promise<SqlRunner>> {
  const name = `capstan_migrate_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE DATABASE "${name}"`);
  created.push(name);
  const u = new URL(ADMIN_URL);
  u.pathname = "/" + name;
  return async () => {
    const runner = await connectPg(u.toString());
    openRunners.push(runner);
    return runner;
  };
}

/** A copy of prisma/migrations that a test may edit. */
function copyMigrations(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "capstan-migrations-"));
  tempDirs.push(dir);
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

function addMigration(dir: string, name: string, sql: string): void {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, "migration.sql"), sql);
}

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

type TRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
  logs: string | null;
};

const rows = (db: SqlRunner) =>
  db.query<TRow>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count, logs
       FROM "_prisma_migrations" ORDER BY started_at, migration_name`,
  );

async function tableExists(db: SqlRunner, table: string): Promise<boolean> {
  const [row] = await db.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [
    `public."${table}"`,
  ]);
  return row!.exists;
}

afterAll(async () => {
  for (const r of openRunners) await r.close().catch(() => undefined);
  for (const name of created) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe("migrate", () => {
  it("applies every migration on a fresh database and records it like prisma migrate deploy", async () => {
    expect(MIGRATION_NAMES.length).toBeGreaterThan(0);
    const db = await (await freshDatabase())();
    const logged: string[] = [];

    const result = await migrate(db, { log: (line) => logged.push(line) });

    expect(result.applied).toEqual(MIGRATION_NAMES);
    expect(logged).toEqual(MIGRATION_NAMES.map((n) => `applied ${n}`));
    const recorded = await rows(db);
    expect(recorded.map((r) => r.migration_name)).toEqual(MIGRATION_NAMES);
    for (const row of recorded) {
      expect(row.checksum).toBe(sha256(path.join(MIGRATIONS_DIR, row.migration_name, "migration.sql")));
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    // The migrations really ran.
    for (const table of ["idempotency_keys", "users", "audit_records"]) expect(await tableExists(db, table)).toBe(true);
  });

  it("applies nothing the second time", async () => {
    const connect = await freshDatabase();
    const db = await connect();
    await migrate(db);
    const before = await rows(db);

    expect(await migrate(db)).toEqual({ applied: [] });
    // Also from another connection, as a restarted server would.
    expect(await migrate(await connect())).toEqual({ applied: [] });
    expect(await rows(db)).toEqual(before);
  });

  it("applies each migration exactly once when two processes migrate concurrently", async () => {
    const connect = await freshDatabase();
    const [a, b] = [await connect(), await connect()];

    const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);

    expect([...ra.applied, ...rb.applied].sort()).toEqual(MIGRATION_NAMES);
    // The lock serialises them: one did all the work, the other found it done.
    expect([ra.applied.length, rb.applied.length].sort()).toEqual([0, MIGRATION_NAMES.length]);
    const recorded = await rows(a);
    expect(recorded.map((r) => r.migration_name).sort()).toEqual(MIGRATION_NAMES);
    expect(recorded.every((r) => r.finished_at !== null && r.rolled_back_at === null)).toBe(true);
  });

  it("refuses to continue when an applied migration was changed", async () => {
    const dir = copyMigrations();
    const db = await (await freshDatabase())();
    await migrate(db, { dir });

    const changed = MIGRATION_NAMES[0]!;
    const file = path.join(dir, changed, "migration.sql");
    writeFileSync(file, readFileSync(file, "utf8") + "\n-- an innocent-looking edit\n");
    addMigration(dir, "29990101000000_later", 'CREATE TABLE "later_table" ("id" TEXT PRIMARY KEY);');

    await expect(migrate(db, { dir })).rejects.toThrow(changed);
    await expect(migrate(db, { dir })).rejects.toThrow(/changed after it was applied/);
    // Nothing after the changed migration ran.
    expect(await tableExists(db, "later_table")).toBe(false);
    expect((await rows(db)).map((r) => r.migration_name)).toEqual(MIGRATION_NAMES);
  });

  it("rolls a failing migration back, records the attempt and applies the fixed file next time", async () => {
    const dir = copyMigrations();
    const connect = await freshDatabase();
    const first = await connect();
    const broken = "29990101000000_broken";
    addMigration(
      dir,
      broken,
      'CREATE TABLE "broken_a" ("id" TEXT PRIMARY KEY);\nCREATE TABLE "broken_b" ("id" NOT_A_TYPE);\n',
    );

    const error = await migrate(first, { dir }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toContain(broken);
    expect(error!.message).toMatch(/not_a_type/i);

    // The earlier migrations were applied; the broken one left no tables behind.
    expect(await tableExists(first, "users")).toBe(true);
    expect(await tableExists(first, "broken_a")).toBe(false);
    expect(await tableExists(first, "broken_b")).toBe(false);
    const attempt = (await rows(first)).filter((r) => r.migration_name === broken);
    expect(attempt).toHaveLength(1);
    expect(attempt[0]!.finished_at).toBeNull();
    expect(attempt[0]!.rolled_back_at).toBeInstanceOf(Date);
    expect(attempt[0]!.applied_steps_count).toBe(0);
    expect(attempt[0]!.logs).toMatch(/not_a_type/i);

    // The failed run released its lock and left the session usable: a fixed
    // file applies from another connection while the first is still open.
    const fixedSql = 'CREATE TABLE "broken_a" ("id" TEXT PRIMARY KEY);\nCREATE TABLE "broken_b" ("id" TEXT);\n';
    writeFileSync(path.join(dir, broken, "migration.sql"), fixedSql);
    const second = await connect();
    expect(await migrate(second, { dir })).toEqual({ applied: [broken] });
    expect(await tableExists(second, "broken_a")).toBe(true);
    expect(await tableExists(second, "broken_b")).toBe(true);

    const history = (await rows(second)).filter((r) => r.migration_name === broken);
    expect(history).toHaveLength(2);
    const applied = history.find((r) => r.rolled_back_at === null)!;
    expect(applied.finished_at).toBeInstanceOf(Date);
    expect(applied.checksum).toBe(createHash("sha256").update(fixedSql).digest("hex"));
    expect(await migrate(first, { dir })).toEqual({ applied: [] });
  });

  it("stops at a migration that started but never finished", async () => {
    const db = await (await freshDatabase())();
    await migrate(db);
    // What a crash half-way through a migration leaves behind.
    await db.query(`UPDATE "_prisma_migrations" SET finished_at = NULL WHERE migration_name = $1`, [
      MIGRATION_NAMES[0],
    ]);

    await expect(migrate(db)).rejects.toThrow(new RegExp(`${MIGRATION_NAMES[0]} started but did not finish`));
  });
  it("20261125190000_integrity fixes orphans first: deletes, nulls, and stops for a money record", async () => {
    const dir = copyMigrations();
    const later = MIGRATION_NAMES.filter((m) => m >= "20261125190000");
    for (const m of later) rmSync(path.join(dir, m), { recursive: true });
    const db = await (await freshDatabase())();
    await migrate(db, { dir });
    await db.exec(`
      INSERT INTO workspaces (id, name) VALUES ('ws_o', 'o');
      INSERT INTO budgets (id, workspace_id, usage_category, month) VALUES ('bud_o', 'ws_o', 'ai_tokens', '2026-11');
      INSERT INTO budget_reservations (id, budget_id, binding_id, units, expires_at) VALUES ('res_keep', 'bud_o', 'pbd_gone', 1, now());
      INSERT INTO budget_reservations (id, budget_id, units, expires_at) VALUES ('res_orphan', 'bud_gone', 1, now());
      INSERT INTO workspace_blobs (workspace_id, sha256) VALUES ('ws_o', 'a'), ('ws_gone', 'b');
      INSERT INTO wallet_grants (id, workspace_id, currency, amount_micros, priority, expires_at, created_by) VALUES ('wg_orphan', 'ws_gone', 'EUR', 1, 0, now(), 'test');
    `);
    // A money record is never deleted: the migration stops and rolls back.
    await expect(migrate(db)).rejects.toThrow(/wallet_grants.workspace_id references a missing workspaces row/);
    expect(await db.query(`SELECT id FROM budget_reservations ORDER BY id`)).toEqual([
      { id: "res_keep" },
      { id: "res_orphan" },
    ]);
    await db.exec(`DELETE FROM wallet_grants WHERE id = 'wg_orphan'`);
    expect((await migrate(db)).applied).toEqual(later);
    expect(await db.query(`SELECT id, binding_id FROM budget_reservations ORDER BY id`)).toEqual([
      { id: "res_keep", binding_id: null },
    ]);
    expect(await db.query(`SELECT workspace_id FROM workspace_blobs`)).toEqual([{ workspace_id: "ws_o" }]);
  });
});
