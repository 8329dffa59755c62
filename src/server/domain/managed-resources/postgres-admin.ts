import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import pg from "pg";
import { env } from "@/server/platform/env";

/**
 * The managed PostgreSQL server, through an admin connection
 * (CAPSTAN_MANAGED_POSTGRES_URL, default DATABASE_URL). Every operation is
 * idempotent, so the worker can retry a step interrupted by a crash. Names
 * are `mres_<id body>` (lower-case letters and digits: valid unquoted
 * identifiers), and are still quoted. The password never reaches the server
 * in clear: it is sent as a SCRAM-SHA-256 verifier computed here.
 */
export function managedPostgresUrl(): string | null {
  const e = env();
  return e.CAPSTAN_MANAGED_POSTGRES_URL ?? e.DATABASE_URL ?? null;
}

/** Where the managed server listens (what the per-deployment socket forwards to). */
export function managedPostgresTarget(): { host: string; port: number } | null {
  const url = managedPostgresUrl();
  if (!url) return null;
  const u = new URL(url);
  const socketDir = u.searchParams.get("host");
  // WHATWG keeps IPv6 literals bracketed ([::1]); net.connect wants them bare.
  return {
    host: socketDir ?? (decodeURIComponent(u.hostname).replace(/^\[(.*)\]$/, "$1") || "127.0.0.1"),
    port: Number(u.port || 5432),
  };
}

const ident = (name: string) => {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a managed identifier: ${name}`);
  return `"${name}"`;
};

/** The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802/7677, 4096 iterations). */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = managedPostgresUrl();
  if (!url)
    throw new Error("no managed PostgreSQL server is configured (CAPSTAN_MANAGED_POSTGRES_URL or DATABASE_URL)");
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, statement_timeout: 60_000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Creates (or completes) the role and its database. */
export async function provisionDatabase(p: {
  role: string;
  database: string;
  password: string;
  connectionLimit: number;
}): Promise<void> {
  await withAdmin(async (c) => {
    const verifier = scramVerifier(p.password);
    const role = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [p.role]);
    // A literal, not a parameter (utility statements take none); the verifier is base64 and '$' only.
    const pw = `'${verifier.replace(/'/g, "''")}'`;
    if (role.rowCount === 0) {
      await c.query(
        `CREATE ROLE ${ident(p.role)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION CONNECTION LIMIT ${Math.trunc(p.connectionLimit)} PASSWORD ${pw}`,
      );
    } else {
      await c.query(
        `ALTER ROLE ${ident(p.role)} LOGIN CONNECTION LIMIT ${Math.trunc(p.connectionLimit)} PASSWORD ${pw}`,
      );
    }
    const dbExists = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [p.database]);
    if (dbExists.rowCount === 0) {
      // CREATE DATABASE ... OWNER needs the admin to be able to SET ROLE to it (a superuser can).
      await c.query(`CREATE DATABASE ${ident(p.database)} OWNER ${ident(p.role)}`);
    }
    await c.query(`REVOKE ALL ON DATABASE ${ident(p.database)} FROM PUBLIC`);
    await c.query(`GRANT ALL ON DATABASE ${ident(p.database)} TO ${ident(p.role)}`);
  });
}

/** Drops the database (closing its connections) and the role; absent ones are fine. */
export async function destroyDatabase(p: { role: string; database: string }): Promise<void> {
  await withAdmin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${ident(p.database)} WITH (FORCE)`);
    await c.query(`DROP ROLE IF EXISTS ${ident(p.role)}`);
  });
}

/** Sets the role's connection limit when it differs (the plan changed); true when it changed. */
export async function applyConnectionLimit(role: string, limit: number): Promise<boolean> {
  return withAdmin(async (c) => {
    const r = await c.query<{ rolconnlimit: number }>("SELECT rolconnlimit FROM pg_roles WHERE rolname = $1", [role]);
    if (!r.rows[0] || r.rows[0].rolconnlimit === limit) return false;
    await c.query(`ALTER ROLE ${ident(role)} CONNECTION LIMIT ${Math.trunc(limit)}`);
    return true;
  });
}

export async function databaseSize(database: string): Promise<number | null> {
  return withAdmin(async (c) => {
    const r = await c.query<{ size: string | null }>(
      "SELECT pg_database_size(datname)::text AS size FROM pg_database WHERE datname = $1",
      [database],
    );
    return r.rows[0]?.size ? Number(r.rows[0].size) : null;
  });
}

/** What exists on the server for these names (tests and the console's honesty). */
export async function databaseExists(p: {
  role: string;
  database: string;
}): Promise<{ role: boolean; database: boolean }> {
  return withAdmin(async (c) => {
    const [r, d] = await Promise.all([
      c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [p.role]),
      c.query("SELECT 1 FROM pg_database WHERE datname = $1", [p.database]),
    ]);
    return { role: (r.rowCount ?? 0) > 0, database: (d.rowCount ?? 0) > 0 };
  });
}
