import pg from "pg";
import { managedPostgresUrl } from "./postgres-admin";

/**
 * Login roles of a managed database on the managed server (docs/decisions.md
 * "Credentials: rotation with an overlap, read-only roles"). The database and everything in it belong to
 * the resource's first role `mres_<id>` (named like the database: the
 * owner). A rotated-in primary login role is a member of the owner and its
 * sessions run as the owner (`ALTER ROLE … IN DATABASE … SET role`), so what
 * the app creates keeps one owner and every login role, old and new, sees
 * the same tables. A read-only role holds USAGE and SELECT only, plus the
 * owner's default privileges, so tables created later are covered. Every
 * step is idempotent (the worker retries after a crash); passwords arrive as
 * SCRAM verifiers computed by Capstan.
 */
const ident = (name: string) => {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a managed identifier: ${name}`);
  return `"${name}"`;
};
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A client on the managed server as its admin, in `database` (default: the admin URL's own). */
async function withServer<T>(database: string | null, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const raw = managedPostgresUrl();
  if (!raw)
    throw new Error("no managed PostgreSQL server is configured (CAPSTAN_MANAGED_POSTGRES_URL or DATABASE_URL)");
  const u = new URL(raw);
  const c = new pg.Client({
    host: u.searchParams.get("host") ?? (decodeURIComponent(u.hostname).replace(/^\[(.*)\]$/, "$1") || "127.0.0.1"),
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username) || "postgres",
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    database: database ?? (decodeURIComponent(u.pathname.slice(1)) || "postgres"),
    connectionTimeoutMillis: 10_000,
    statement_timeout: 60_000,
  });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function ensureLogin(c: pg.Client, role: string, verifier: string, connectionLimit: number): Promise<void> {
  const exists = (await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role])).rowCount;
  const attrs = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION CONNECTION LIMIT ${Math.trunc(connectionLimit)} PASSWORD ${literal(verifier)}`;
  await c.query(exists ? `ALTER ROLE ${ident(role)} ${attrs}` : `CREATE ROLE ${ident(role)} ${attrs}`);
}

/** A new primary login role: a member of the owner whose sessions run as the owner. */
export async function createPrimaryRole(p: {
  owner: string;
  role: string;
  database: string;
  verifier: string;
  connectionLimit: number;
}): Promise<void> {
  await withServer(null, async (c) => {
    await ensureLogin(c, p.role, p.verifier, p.connectionLimit);
    await c.query(`GRANT ${ident(p.owner)} TO ${ident(p.role)}`);
    await c.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${ident(p.database)} TO ${ident(p.role)}`);
    await c.query(`ALTER ROLE ${ident(p.role)} IN DATABASE ${ident(p.database)} SET role = ${literal(p.owner)}`);
  });
}

/** A read-only login role: SELECT on what the owner has and will create, nothing else. */
export async function createReadOnlyRole(p: {
  owner: string;
  role: string;
  database: string;
  verifier: string;
  connectionLimit: number;
}): Promise<void> {
  await withServer(null, async (c) => {
    await ensureLogin(c, p.role, p.verifier, p.connectionLimit);
    await c.query(`GRANT CONNECT ON DATABASE ${ident(p.database)} TO ${ident(p.role)}`);
  });
  await withServer(p.database, async (c) => {
    const schemas = await c.query<{ name: string }>(
      "SELECT nspname AS name FROM pg_namespace WHERE (nspowner = (SELECT oid FROM pg_roles WHERE rolname = $1) OR nspname = 'public') AND nspname NOT LIKE 'pg\\_%'",
      [p.owner],
    );
    for (const { name } of schemas.rows) {
      // Schema names are the app's own: quoted as identifiers, never interpolated raw.
      const s = `"${name.replace(/"/g, '""')}"`;
      await c.query(`GRANT USAGE ON SCHEMA ${s} TO ${ident(p.role)}`);
      await c.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${s} TO ${ident(p.role)}`);
      await c.query(`GRANT SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO ${ident(p.role)}`);
    }
    await c.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(p.owner)} GRANT SELECT ON TABLES TO ${ident(p.role)}`);
    await c.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(p.owner)} GRANT SELECT ON SEQUENCES TO ${ident(p.role)}`);
    await c.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(p.owner)} GRANT USAGE ON SCHEMAS TO ${ident(p.role)}`);
  });
}

/**
 * Ends a login role: no new logins, its sessions terminated, then dropped
 * (what it owns goes to the owner first). The owner itself is never dropped
 * while the database lives: it only loses LOGIN and its password. An absent
 * role or database is fine (idempotent).
 */
export async function revokeRole(p: { owner: string; role: string; database: string }): Promise<void> {
  const state = await withServer(null, async (c) => {
    const role = (await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [p.role])).rowCount ?? 0;
    const dbExists = (await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [p.database])).rowCount ?? 0;
    if (!role) return { role: false, db: dbExists > 0 };
    await c.query(`ALTER ROLE ${ident(p.role)} NOLOGIN PASSWORD NULL`);
    await c.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND pid <> pg_backend_pid()",
      [p.role],
    );
    return { role: true, db: dbExists > 0 };
  });
  if (!state.role || p.role === p.owner) return;
  if (state.db) {
    await withServer(p.database, async (c) => {
      await c.query(`REASSIGN OWNED BY ${ident(p.role)} TO ${ident(p.owner)}`);
      await c.query(`DROP OWNED BY ${ident(p.role)}`);
    });
  }
  await withServer(null, (c) => c.query(`DROP ROLE IF EXISTS ${ident(p.role)}`));
}

/** Drops login roles left after the database itself was dropped (destroy). */
export async function dropRoles(roles: string[]): Promise<void> {
  if (!roles.length) return;
  await withServer(null, async (c) => {
    for (const role of roles) await c.query(`DROP ROLE IF EXISTS ${ident(role)}`);
  });
}

/** Brings every listed role's connection limit in line with the plan. */
export async function applyRoleConnectionLimits(roles: string[], limit: number): Promise<void> {
  if (!roles.length) return;
  await withServer(null, async (c) => {
    const r = await c.query<{ rolname: string; rolconnlimit: number }>(
      "SELECT rolname, rolconnlimit FROM pg_roles WHERE rolname = ANY($1)",
      [roles],
    );
    for (const row of r.rows) {
      if (row.rolconnlimit !== limit)
        await c.query(`ALTER ROLE ${ident(row.rolname)} CONNECTION LIMIT ${Math.trunc(limit)}`);
    }
  });
}

/** Whether a role exists and may log in (tests, and the console's honesty). */
export async function roleState(role: string): Promise<{ exists: boolean; login: boolean }> {
  return withServer(null, async (c) => {
    const r = await c.query<{ rolcanlogin: boolean }>("SELECT rolcanlogin FROM pg_roles WHERE rolname = $1", [role]);
    return { exists: r.rows.length > 0, login: r.rows[0]?.rolcanlogin ?? false };
  });
}
