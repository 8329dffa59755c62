import pg from "pg";
import type { PGlite } from "@electric-sql/pglite";

/** The two raw SQL backends we run on: a pg connection, or embedded PGlite. */
export interface SqlRunner {
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export function pgRunner(client: pg.Client | pg.PoolClient, close?: () => Promise<void>): SqlRunner {
  return {
    exec: async (sql) => {
      await client.query(sql);
    },
    query: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
    close: close ?? (async () => undefined),
  };
}

export function pgliteRunner(db: PGlite): SqlRunner {
  return {
    exec: async (sql) => {
      await db.exec(sql);
    },
    query: async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows,
    // The PGlite instance is shared with Prisma; its owner closes it.
    close: async () => undefined,
  };
}

export async function connectPg(url: string): Promise<SqlRunner> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return pgRunner(client, () => client.end());
}
