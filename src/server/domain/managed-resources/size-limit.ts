import pg from "pg";
import { managedPostgresUrl } from "./postgres-admin";

/**
 * Size limits that hold (docs/decisions.md "Limits"): a
 * database over its plan's size turns read-only by taking its objects away
 * from the app's roles. Everything the app's roles own in the database (the
 * database itself, schemas, tables, sequences, functions) is reassigned to a
 * NOLOGIN role `<database>_frozen`, whose own INSERT and UPDATE are revoked;
 * the app's roles keep CONNECT, USAGE, SELECT, DELETE and TRUNCATE. So:
 *
 * - an INSERT, UPDATE, CREATE TABLE or CREATE TEMP TABLE fails with
 *   PostgreSQL's own `permission denied for table …` (SQLSTATE 42501), in
 *   sessions already open too (privileges are checked per statement);
 * - DELETE and TRUNCATE still work, so the app can get back under;
 * - the app cannot grant itself anything back (it owns nothing any more),
 *   and a rule or SECURITY DEFINER function runs as the frozen owner, which
 *   may not write either.
 *
 * `default_transaction_read_only` was measured and rejected: any session can
 * `SET` it off again, and it refuses the DELETE that recovers.
 *
 * Reassigning takes an ACCESS EXCLUSIVE lock on each table: it waits at most
 * LOCK_TIMEOUT for transactions in flight, then terminates the database's
 * sessions (apps' pools reconnect) and tries once more. Both directions are
 * idempotent: the server's state (who owns the database) is the truth, so a
 * crash half-way is finished by the next measurement.
 */
const LOCK_TIMEOUT = "5s";
const frozenRole = (database: string) => `${database}_frozen`;
const ident = (name: string) => {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a managed identifier: ${name}`);
  return `"${name}"`;
};

function adminUrl(database?: string): string {
  const url = managedPostgresUrl();
  if (!url)
    throw new Error("no managed PostgreSQL server is configured (CAPSTAN_MANAGED_POSTGRES_URL or DATABASE_URL)");
  if (!database) return url;
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withClient<T>(database: string | undefined, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({
    connectionString: adminUrl(database),
    connectionTimeoutMillis: 10_000,
    statement_timeout: 120_000,
  });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

export type TDbFacts = { size: number; frozen: boolean; connLimit: number | null };

/** Size, frozen state and the login role's connection limit of each database, in one round trip. */
export async function databaseFacts(items: Array<{ database: string; role: string }>): Promise<Map<string, TDbFacts>> {
  if (!items.length) return new Map();
  return withClient(undefined, async (c) => {
    const r = await c.query<{ datname: string; size: string; frozen: boolean; connlimit: number | null }>(
      `SELECT d.datname, pg_database_size(d.oid)::text AS size,
              (pg_get_userbyid(d.datdba) = d.datname || '_frozen') AS frozen,
              (SELECT rolconnlimit FROM pg_roles WHERE rolname = x.role) AS connlimit
         FROM unnest($1::text[], $2::text[]) AS x(datname, role)
         JOIN pg_database d ON d.datname = x.datname`,
      [items.map((i) => i.database), items.map((i) => i.role)],
    );
    return new Map(
      r.rows.map((row) => [row.datname, { size: Number(row.size), frozen: row.frozen, connLimit: row.connlimit }]),
    );
  });
}

/** Non-system schemas of the connected database. */
async function schemas(c: pg.Client): Promise<string[]> {
  const r = await c.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY nspname",
  );
  return r.rows.map((x) => x.nspname);
}

/** Roles other than the admin, the frozen role and superusers that own something in the connected database. */
async function tenantOwners(c: pg.Client, database: string, role: string): Promise<string[]> {
  const r = await c.query<{ rolname: string }>(
    `SELECT DISTINCT r.rolname FROM (
        SELECT relowner AS o FROM pg_class WHERE relnamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname LIKE 'pg\\_%' OR nspname = 'information_schema')
        UNION SELECT nspowner FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
        UNION SELECT proowner FROM pg_proc WHERE pronamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname LIKE 'pg\\_%' OR nspname = 'information_schema')
        UNION SELECT typowner FROM pg_type WHERE typnamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname LIKE 'pg\\_%' OR nspname = 'information_schema')
        UNION SELECT datdba FROM pg_database WHERE datname = $1
     ) owners JOIN pg_roles r ON r.oid = owners.o
     WHERE NOT r.rolsuper AND r.rolname <> current_user AND r.rolname <> $2 AND r.rolname NOT LIKE 'pg\\_%'`,
    [database, frozenRole(database)],
  );
  return [...new Set([role, ...r.rows.map((x) => x.rolname)])];
}

async function terminateSessions(database: string): Promise<void> {
  await withClient(undefined, (c) =>
    c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [
      database,
    ]),
  );
}

/** Runs `fn` in one transaction with a lock timeout; on a lock timeout, ends the database's sessions and tries once more. */
async function underLocks(database: string, fn: (c: pg.Client) => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await withClient(database, async (c) => {
        await c.query("BEGIN");
        try {
          await c.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
          await fn(c);
          await c.query("COMMIT");
        } catch (err) {
          await c.query("ROLLBACK").catch(() => undefined);
          throw err;
        }
      });
      return;
    } catch (err) {
      // 55P03 lock_not_available: a session holds a table (an open transaction); end them and retry once.
      if ((err as { code?: string }).code !== "55P03" || attempt > 0) throw err;
      await terminateSessions(database);
    }
  }
}

/** Makes the database read-only for its app roles (idempotent). */
export async function freezeDatabase(p: { database: string; role: string }): Promise<void> {
  const frozen = frozenRole(p.database);
  await withClient(undefined, async (c) => {
    const exists = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [frozen]);
    if (!exists.rowCount)
      await c.query(`CREATE ROLE ${ident(frozen)} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT`);
  });
  await underLocks(p.database, async (c) => {
    const owners = await tenantOwners(c, p.database, p.role);
    const list = owners.map(ident).join(", ");
    await c.query(`REASSIGN OWNED BY ${list} TO ${ident(frozen)}`);
    // The owner's entry of the database's ACL moved with it: the app roles get CONNECT back, not CREATE or TEMPORARY.
    await c.query(`GRANT CONNECT ON DATABASE ${ident(p.database)} TO ${list}`);
    for (const s of await schemas(c)) {
      const q = `"${s.replace(/"/g, '""')}"`;
      await c.query(`GRANT USAGE ON SCHEMA ${q} TO ${list}`);
      await c.query(`REVOKE CREATE ON SCHEMA ${q} FROM ${list}`);
      await c.query(`GRANT SELECT, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA ${q} TO ${list}`);
      await c.query(`GRANT SELECT ON ALL SEQUENCES IN SCHEMA ${q} TO ${list}`);
      // Rules, triggers and SECURITY DEFINER functions act as the owner: it may not write either.
      await c.query(`REVOKE INSERT, UPDATE ON ALL TABLES IN SCHEMA ${q} FROM ${ident(frozen)}`);
    }
  });
}

/**
 * Gives the database back, writable (idempotent): to its owner role, named
 * like the database (rotated login roles are members of it and run as it:
 * postgres-credentials.ts), or to the login role where no such owner exists.
 */
export async function thawDatabase(p: { database: string; role: string }): Promise<void> {
  const frozen = frozenRole(p.database);
  const roles = await withClient(undefined, async (c) =>
    (
      await c.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname = ANY($1)", [[frozen, p.database]])
    ).rows.map((x) => x.rolname),
  );
  if (!roles.includes(frozen)) return;
  const owner = roles.includes(p.database) ? p.database : p.role;
  await underLocks(p.database, async (c) => {
    for (const s of await schemas(c)) {
      await c.query(`GRANT ALL ON ALL TABLES IN SCHEMA "${s.replace(/"/g, '""')}" TO ${ident(frozen)}`);
    }
    await c.query(`REASSIGN OWNED BY ${ident(frozen)} TO ${ident(owner)}`);
    await c.query(`GRANT ALL ON DATABASE ${ident(p.database)} TO ${ident(owner)}`);
  });
}

/**
 * VACUUM of a frozen database before it is measured again: the app cannot
 * VACUUM tables it no longer owns, and the space its DELETEs freed shows in
 * pg_database_size only once empty pages at the end of a table are cut off.
 */
export async function vacuumDatabase(database: string): Promise<void> {
  await withClient(database, (c) => c.query("VACUUM"));
}

/** Drops the frozen role once its database is gone (destroy). */
export async function dropFrozenRole(database: string): Promise<void> {
  await withClient(undefined, (c) => c.query(`DROP ROLE IF EXISTS ${ident(frozenRole(database))}`));
}
