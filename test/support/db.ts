import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/**
 * Database helpers for integration tests (the `int` vitest project).
 *
 * test/support/global-setup.ts checks PostgreSQL once per run and provides
 * the values below; test/support/per-file-db.ts gives every test file its
 * own database cloned from a migrated template.
 */
declare module "vitest" {
  export interface ProvidedContext {
    /** "postgres" when a PostgreSQL server answered, else "pglite" (embedded). */
    dbMode: "postgres" | "pglite";
    /** Migrated template database name (postgres mode only, else ""). */
    templateDb: string;
    /** Admin connection URL used to create/drop databases (postgres mode only, else ""). */
    pgAdminUrl: string;
    /** Random id of this run; per-file databases are named capstan_t_<runId>_<hex>. */
    testRunId: string;
  }
}

/** "postgres" or "pglite", as decided by the global setup. */
export function testDbMode(): "postgres" | "pglite" {
  return (safeInject("dbMode") as "postgres" | "pglite" | undefined) ?? "pglite";
}

/** The migrated template database each test file is cloned from (empty in pglite mode). */
export function testTemplateDb(): string {
  return safeInject("templateDb") || "";
}

/** Random id of this test run (empty in pglite mode). */
export function testRunId(): string {
  return safeInject("testRunId") || "";
}

/** The admin URL the global setup connected with (empty in pglite mode). */
export function testAdminUrl(): string {
  return safeInject("pgAdminUrl") || "";
}

/**
 * The DATABASE_URL of the current test file's own database, or undefined in
 * pglite mode (the app then opens embedded PGlite under CAPSTAN_DATA_DIR).
 */
export function testDatabaseUrl(): string | undefined {
  return process.env.DATABASE_URL || undefined;
}

/** Same server as `adminUrl`, another database. */
export function databaseUrlFor(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = "/" + name;
  return u.toString();
}

export function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

/** Runs `fn` on a short-lived connection to the admin database. */
export async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>, adminUrl = testAdminUrl()): Promise<T> {
  if (!adminUrl) throw new Error("no PostgreSQL admin URL: integration tests run on embedded PGlite");
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function dropDatabase(name: string, adminUrl = testAdminUrl()): Promise<void> {
  await withAdmin(
    (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`).then(() => undefined),
    adminUrl,
  );
}

/**
 * Creates an extra, empty (unmigrated) database for tests that need one, for
 * example to exercise migrations. PostgreSQL mode only: check
 * `testDbMode() === "postgres"` (and skip otherwise) before calling it.
 */
export async function createScratchDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const adminUrl = testAdminUrl();
  if (testDbMode() !== "postgres" || !adminUrl) {
    throw new Error(
      "createScratchDatabase() needs PostgreSQL; this run uses embedded PGlite (skip when testDbMode() !== 'postgres')",
    );
  }
  const run = testRunId();
  const name = run
    ? `capstan_t_${run}_s${randomBytes(6).toString("hex")}`
    : `capstan_s_${randomBytes(6).toString("hex")}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`), adminUrl);
  let dropped = false;
  return {
    name,
    url: databaseUrlFor(adminUrl, name),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await dropDatabase(name, adminUrl);
    },
  };
}

const ENV_FALLBACK = {
  dbMode: "CAPSTAN_TEST_DB_MODE",
  templateDb: "CAPSTAN_TEST_TEMPLATE_DB",
  pgAdminUrl: "CAPSTAN_TEST_PG_ADMIN_URL",
  testRunId: "CAPSTAN_TEST_RUN_ID",
} as const;

function safeInject(key: keyof typeof ENV_FALLBACK): string | undefined {
  let value: string | undefined;
  try {
    value = inject(key);
  } catch {
    value = undefined;
  }
  return value ?? process.env[ENV_FALLBACK[key]];
}
