import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { SqlRunner } from "./sql-runner";

/**
 * Applies prisma/migrations/<name>/migration.sql in name order and records
 * them in `_prisma_migrations` exactly as `prisma migrate deploy` does (same
 * table, sha256 hex checksum of the file), so a machine with the Prisma CLI
 * sees the same state. Runs under a session advisory lock so concurrent
 * starters apply each migration once. A changed checksum of an applied
 * migration, or a failed one left behind, stops everything.
 */
export const MIGRATIONS_LOCK_KEY = 72_707_370; // arbitrary, fixed: "capstan migrate"

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export type TMigrationFile = { name: string; sql: string; checksum: string };

export function defaultMigrationsDir(): string {
  return path.join(process.cwd(), "prisma", "migrations");
}

export async function readMigrations(dir = defaultMigrationsDir()): Promise<TMigrationFile[]> {
  const entries = await readdir(/*turbopackIgnore: true*/ dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const out: TMigrationFile[] = [];
  for (const name of names) {
    const buf = await readFile(/*turbopackIgnore: true*/ path.join(dir, name, "migration.sql"));
    out.push({ name, sql: buf.toString("utf8"), checksum: createHash("sha256").update(buf).digest("hex") });
  }
  return out;
}

type TAppliedRow = { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null };

export async function migrate(
  db: SqlRunner,
  opts: { dir?: string; log?: (line: string) => void } = {},
): Promise<{ applied: string[] }> {
  const log = opts.log ?? (() => undefined);
  const files = await readMigrations(opts.dir);
  await db.query("SELECT pg_advisory_lock($1)", [MIGRATIONS_LOCK_KEY]);
  try {
    await db.exec(CREATE_TABLE);
    const rows = await db.query<TAppliedRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const byName = new Map(rows.map((r) => [r.migration_name, r]));
    const applied: string[] = [];
    for (const file of files) {
      const row = byName.get(file.name);
      if (row && row.finished_at === null) {
        throw new Error(
          `Migration ${file.name} started but did not finish. Fix the database by hand, then mark it rolled back.`,
        );
      }
      if (row) {
        if (row.checksum !== file.checksum) {
          throw new Error(
            `Migration ${file.name} was changed after it was applied (checksum ${row.checksum} != ${file.checksum}). ` +
              "Applied migrations are immutable: add a new migration instead.",
          );
        }
        continue;
      }
      const id = randomUUID();
      await db.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
        [id, file.checksum, file.name],
      );
      try {
        // The migration and its bookkeeping commit together: a crash leaves
        // either nothing or a finished record. The `;` guards a file whose last
        // statement has no terminator. `id` is our own UUID, safe to inline.
        await db.exec(
          `BEGIN;\n${file.sql}\n;\nUPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = '${id}';\nCOMMIT;`,
        );
      } catch (err) {
        await db.exec("ROLLBACK").catch(() => undefined);
        // The transaction rolled back, so the database is as before: mark the
        // attempt rolled back so a fixed file can be retried.
        await db.query(`UPDATE "_prisma_migrations" SET logs = $2, rolled_back_at = now() WHERE id = $1`, [
          id,
          String(err),
        ]);
        throw new Error(`Migration ${file.name} failed: ${(err as Error).message}`);
      }
      applied.push(file.name);
      log(`applied ${file.name}`);
    }
    return { applied };
  } finally {
    await db.query("SELECT pg_advisory_unlock($1)", [MIGRATIONS_LOCK_KEY]);
  }
}
