import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { migrate, readMigrations } from "../../src/server/platform/db/migrate";
import { connectPg } from "../../src/server/platform/db/sql-runner";
import type {} from "./db"; // ProvidedContext keys (type-only: db.ts imports the vitest runtime)

/**
 * Global setup of the `int` vitest project. With PostgreSQL reachable it
 * makes sure a migrated template database exists, named after the migration
 * set, so each test file can clone it cheaply (see per-file-db.ts).
 * PostgreSQL is required: when it does not answer the run fails at once (it
 * used to fall back to embedded PGlite and skip the PostgreSQL-only blocks, so
 * a broken database looked like a green run). Embedded PGlite is used only
 * when asked for explicitly with CAPSTAN_TEST_DB=pglite.
 */
const TEMPLATE_LOCK_KEY = 72_707_371; // arbitrary, fixed: "capstan test template"

export default async function setup(project: TestProject): Promise<void | (() => Promise<void>)> {
  if (process.env.CAPSTAN_TEST_DB === "pglite") {
    console.warn(
      "CAPSTAN_TEST_DB=pglite: integration tests run on embedded PGlite; PostgreSQL-only blocks are skipped",
    );
    provideAll(project, { dbMode: "pglite", templateDb: "", pgAdminUrl: "", runId: "" });
    return;
  }
  const adminUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
  } catch (err) {
    await admin.end().catch(() => undefined);
    throw new Error(
      `PostgreSQL unreachable at ${redact(adminUrl)} (${(err as Error).message}): integration tests need it ` +
        "(set TEST_DATABASE_URL, or CAPSTAN_TEST_DB=pglite to run on embedded PGlite on purpose)",
    );
  }

  try {
    const dir = path.join(project.config.root ?? process.cwd(), "prisma", "migrations");
    const files = await readMigrations(dir);
    const hash = createHash("sha256")
      .update(files.map((f) => `${f.name}:${f.checksum}`).join("\n"))
      .digest("hex")
      .slice(0, 12);
    const templateDb = `capstan_template_${hash}`;

    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]);
    try {
      const { rows } = await admin.query<{ datistemplate: boolean }>(
        "SELECT datistemplate FROM pg_database WHERE datname = $1",
        [templateDb],
      );
      // IS_TEMPLATE is set only after a complete migration, so a database
      // left behind by an interrupted run is rebuilt.
      if (!rows[0]?.datistemplate) {
        if (rows[0]) await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(templateDb)} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${quoteIdent(templateDb)}`);
        const runner = await connectPg(databaseUrlFor(adminUrl, templateDb));
        try {
          await migrate(runner, { dir });
        } finally {
          await runner.close();
        }
        await admin.query(`ALTER DATABASE ${quoteIdent(templateDb)} WITH IS_TEMPLATE true`);
        console.warn(`int tests: created template database ${templateDb} (${files.length} migrations)`);
      }
    } finally {
      await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK_KEY]).catch(() => undefined);
    }
    const runId = randomBytes(4).toString("hex");
    provideAll(project, { dbMode: "postgres", templateDb, pgAdminUrl: adminUrl, runId });
    // Test files drop their own databases; this catches those left behind by
    // a crashed or killed worker of this run (only this run's prefix).
    return () => dropLeftovers(adminUrl, `capstan_t_${runId}_`);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

async function dropLeftovers(adminUrl: string, prefix: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [prefix],
    );
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`).catch(() => undefined);
    }
  } catch {
    // best effort
  } finally {
    await admin.end().catch(() => undefined);
  }
}

function provideAll(
  project: TestProject,
  values: { dbMode: "postgres" | "pglite"; templateDb: string; pgAdminUrl: string; runId: string },
) {
  project.provide("dbMode", values.dbMode);
  project.provide("testRunId", values.runId);
  project.provide("templateDb", values.templateDb);
  project.provide("pgAdminUrl", values.pgAdminUrl);
  // Also through the environment, which the forked workers inherit.
  process.env.CAPSTAN_TEST_DB_MODE = values.dbMode;
  process.env.CAPSTAN_TEST_TEMPLATE_DB = values.templateDb;
  process.env.CAPSTAN_TEST_PG_ADMIN_URL = values.pgAdminUrl;
  process.env.CAPSTAN_TEST_RUN_ID = values.runId;
}

function databaseUrlFor(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = "/" + name;
  return u.toString();
}

function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}
