import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { PrismaClient } from "@/generated/prisma/client";
import { registerPool } from "../metrics";
import { CHANNEL as CHANGE_CHANNEL, startChangeSignals, stopChangeSignals } from "../change-signals";
import { env, type TEnv } from "../env";
import { processRoles } from "../roles";
import { logger } from "../logger";
import { migrate } from "./migrate";
import { releaseInstance } from "./instance";
import { connectPg, pgliteRunner } from "./sql-runner";

/**
 * Secret columns are omitted from every query unless a query opts back in
 * with `omit: { <column>: false }` (the one place that needs the secret).
 */
export const OMIT_SECRETS = {
  credential: { secretSealed: true },
  serviceIdentity: { secretHash: true, previousSecretHash: true },
  eventSubscription: { secretSealed: true, previousSecretSealed: true },
  signingKey: { privateJwkSealed: true },
  user: { passwordHash: true },
  managedResource: { sealedSecret: true },
  invitation: { tokenHash: true },
  pushHook: { secretSealed: true },
} as const;

/**
 * Bookkeeping columns only raw SQL reads (the outbox's write order): BigInt,
 * which JSON.stringify refuses, so they stay out of model results too.
 */
const OMIT_INTERNAL = {
  outboxEvent: { seq: true },
  webhookDelivery: { eventSeq: true },
} as const;

function makeClient(adapter: NonNullable<ConstructorParameters<typeof PrismaClient>[0]["adapter"]>) {
  return new PrismaClient({ adapter, omit: { ...OMIT_SECRETS, ...OMIT_INTERNAL } });
}

export type TDb = ReturnType<typeof makeClient>;
/** The client inside `$transaction(async (tx) => ...)`. */
export type TTx = Parameters<Parameters<TDb["$transaction"]>[0]>[0];

/** A plain parameterised statement ($1, $2...) on the same database, without the ORM's per-query work. */
export type TRawQuery = <T>(text: string, params: unknown[]) => Promise<T[]>;

/** A named statement: prepared once per pooled connection, then only bound and executed. */
export type TPreparedQuery = <T>(name: string, text: string, params: unknown[]) => Promise<T[]>;
/**
 * `replayable`: the transaction's commit does not wait for its WAL flush (synchronous_commit off). Only for work
 * that is redone when lost, such as the outbox dispatch: a PostgreSQL crash may lose its last such commits, never a
 * later durable one (WAL is flushed in order), and never anything of a crash of Capstan itself.
 */
export type TPooledTx = <T>(fn: (q: TPreparedQuery) => Promise<T>, opts?: { replayable?: boolean }) => Promise<T>;

type TState = {
  promise?: Promise<TDb>;
  client?: TDb;
  kind?: "postgres" | "pglite";
  close?: () => Promise<void>;
  raw?: TRawQuery;
  prepared?: TPreparedQuery;
  pooledTx?: TPooledTx;
};

// Next.js bundles instrumentation, route handlers and pages separately; the
// process-wide state lives on globalThis so they all share one client.
const g = globalThis as unknown as { __capstanDb?: TState };
const state: TState = (g.__capstanDb ??= {});

/**
 * The planner settings of hot-path sessions (the hot pool's, and the named statements of pooledTransaction): see
 * the hot pool in open(). Through PgBouncer every statement is unnamed and planned afresh, so none is needed.
 */
export const HOT_PLANNER: ReadonlyArray<readonly [string, string]> = [
  ["enable_seqscan", "off"],
  ["enable_hashjoin", "off"],
  ["enable_mergejoin", "off"],
];
const HOT_PLANNER_LOCAL = HOT_PLANNER.map(([k, v]) => `SET LOCAL ${k} TO ${v}`).join("; ");
/** The startup options of a hot pool session (JIT off, as every session of ours, and HOT_PLANNER). */
export const hotSessionOptions = () => ["-c jit=off", ...HOT_PLANNER.map(([k, v]) => `-c ${k}=${v}`)].join(" ");

/**
 * Connections of one process (docs/operations.md "Database connections"): the ORM pool
 * (DATABASE_POOL_SIZE; unset: 10 with the web role, 4 without), the hot pool
 * of the Bridge's statements (a quarter of it, at least 2), plus one LISTEN
 * connection and one instance-lock connection.
 */
export function poolSizes(cfg: TEnv = env()): { orm: number; hot: number; perProcess: number } {
  const orm = cfg.DATABASE_POOL_SIZE ?? (processRoles().has("web") ? 10 : 4);
  const hot = Math.max(2, Math.ceil(orm / 4));
  return { orm, hot, perProcess: orm + hot + 2 };
}

async function open(): Promise<TDb> {
  const cfg = env();
  const log = (line: string) => logger.info("db.migrate", { line });
  if (cfg.DATABASE_URL) {
    const { PrismaPg } = await import("@prisma/adapter-pg");
    if (cfg.CAPSTAN_MIGRATE_ON_START) {
      // Under a session advisory lock: a direct connection when DATABASE_URL is a transaction-mode pooler.
      const runner = await connectPg(cfg.DATABASE_DIRECT_URL ?? cfg.DATABASE_URL);
      try {
        await migrate(runner, { log });
      } finally {
        await runner.close();
      }
    }
    // An idle pooled connection the server closes (restart, failover, pg_terminate_backend) is
    // dropped from its pool and logged; without a listener pg would crash the process.
    const onIdleError = (pool: string) => (err: Error) =>
      logger.warn("db.idle_connection_lost", { pool, error: err.message });
    const { default: pg } = await import("pg");
    // Our pool, handed to the adapter (which ends it on disconnect), so /metrics can report its use.
    // JIT off for our sessions: our queries are short OLTP statements, and a stale row estimate
    // (a table that grew within minutes, e.g. a webhook backlog) makes PostgreSQL spend ~400 ms
    // compiling a plan that runs in 1 ms (docs/decisions.md "Workers that keep up").
    // Through PgBouncer (transaction mode) no startup options pass: set jit=off on the role there (docs/operations.md, "Through PgBouncer").
    // A connection not had within DATABASE_CONNECT_TIMEOUT_MS (pool exhausted, server full) is an error the
    // transports answer 503 with Retry-After (platform/db-unavailable.ts), never a request hanging.
    const session = {
      ...(cfg.DATABASE_PGBOUNCER ? {} : { options: "-c jit=off" }),
      connectionTimeoutMillis: cfg.DATABASE_CONNECT_TIMEOUT_MS,
    };
    const sizes = poolSizes(cfg);
    const pool = new pg.Pool({ connectionString: cfg.DATABASE_URL, max: sizes.orm, ...session });
    const adapter = new PrismaPg(pool, {
      onPoolError: onIdleError("prisma"),
      onConnectionError: onIdleError("prisma-transaction"),
      disposeExternalPool: true,
    });
    const client = makeClient(adapter);
    registerPool("prisma", pool);
    // The adapter listens for idle errors only once the ORM has connected; pooledTransaction may use the pool first.
    pool.on("error", onIdleError("prisma"));
    // A small pool of its own for the hot statements (preparedQuery). Its sessions plan key lookups only: a named
    // statement keeps the generic plan it made at its sixth run, and one made while a table was nearly empty (a fresh
    // database, the first minute of an install) kept a sequential scan and a hash join of `invocations` for every
    // later record (seen in the surface bench: 21 of 35 sampled records). Every hot statement is driven by a key or
    // an array of ids, so these sessions may not plan a sequential scan (where an index exists), a hash or a merge
    // join: nested loops over index lookups, whatever the table held when the plan was made (HOT_PLANNER).
    const hot = new pg.Pool({
      connectionString: cfg.DATABASE_URL,
      max: sizes.hot,
      ...session,
      ...(cfg.DATABASE_PGBOUNCER ? {} : { options: hotSessionOptions() }),
    });
    hot.on("error", onIdleError("hot"));
    registerPool("hot", hot);
    state.raw = async <T>(text: string, params: unknown[]) => (await hot.query(text, params)).rows as T[];
    // Named statements live on a server connection; through a transaction-mode pooler the next
    // transaction may get another one, so there every statement is unnamed (parsed each time).
    const named = !cfg.DATABASE_PGBOUNCER;
    state.prepared = async <T>(name: string, text: string, params: unknown[]) =>
      (await hot.query(named ? { name, text, values: params } : { text, values: params })).rows as T[];
    // A transaction of named statements on a connection of the ORM's pool (what its $transaction would take).
    state.pooledTx = async <T>(fn: (q: TPreparedQuery) => Promise<T>, opts?: { replayable?: boolean }): Promise<T> => {
      const c = await pool.connect();
      let broken: Error | undefined;
      try {
        // One round trip either way (a simple query of a few statements).
        // The named statements of these transactions are key-driven worker claims: planned as the hot pool's are.
        await c.query(
          `BEGIN; ${opts?.replayable ? "SET LOCAL synchronous_commit TO off; " : ""}${named ? HOT_PLANNER_LOCAL : ""}`,
        );
        const out = await fn(
          async <R>(name: string, text: string, params: unknown[]) =>
            (await c.query(named ? { name, text, values: params } : { text, values: params })).rows as R[],
        );
        await c.query("COMMIT");
        return out;
      } catch (err) {
        await c.query("ROLLBACK").catch((e: unknown) => (broken = e as Error));
        throw err;
      } finally {
        c.release(broken);
      }
    };
    state.kind = "postgres";
    // Cache invalidation across replicas (LISTEN/NOTIFY on the same database).
    startChangeSignals(async (payload) => {
      await hot.query("SELECT pg_notify($1, $2)", [CHANGE_CHANNEL, payload]);
    });
    state.close = async () => {
      await stopChangeSignals();
      await client.$disconnect();
      // Ended by the adapter if the ORM ever connected; else (only pooledTransaction used it) here.
      await pool.end().catch(() => undefined);
      await hot.end();
    };
    return client;
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const dir = path.resolve(cfg.CAPSTAN_DATA_DIR, "pglite");
  await mkdir(dir, { recursive: true });
  logger.info("db.embedded", { dir, note: "DATABASE_URL is unset: using embedded PGlite" });
  const releaseLock = await lockEmbedded(dir);
  const lite = await PGlite.create(dir);
  if (cfg.CAPSTAN_MIGRATE_ON_START) await migrate(pgliteRunner(lite), { log });
  const client = makeClient(new PrismaPGlite(lite));
  state.raw = async <T>(text: string, params: unknown[]) => (await lite.query<T>(text, params)).rows;
  state.prepared = (_name, text, params) => state.raw!(text, params);
  state.kind = "pglite";
  state.close = async () => {
    await client.$disconnect();
    await lite.close();
    await releaseLock();
  };
  return client;
}

/**
 * PGlite is single-process: a second process opening the same directory would
 * corrupt it. A pid file refuses that with a clear message (the operator CLI
 * talks to a running server through its socket instead).
 */
async function lockEmbedded(dir: string): Promise<() => Promise<void>> {
  const file = `${dir}.pid`;
  const other = Number((await readFile(file, "utf8").catch(() => "")).trim());
  if (other && other !== process.pid && isAlive(other)) {
    throw new Error(
      `The embedded database ${dir} is in use by process ${other} (a running Capstan server). ` +
        "Stop it, talk to it (the CLI does so through its socket), or set DATABASE_URL.",
    );
  }
  await writeFile(file, String(process.pid));
  return () => rm(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Opens (once per process) and returns the database client. */
export function getDb(): Promise<TDb> {
  state.promise ??= open().then(
    (client) => {
      state.client = client;
      return client;
    },
    (err) => {
      state.promise = undefined;
      throw err;
    },
  );
  return state.promise;
}

/** The client, for code that runs after getDb() resolved (every request path awaits it first). */
export function db(): TDb {
  if (!state.client) throw new Error("database not opened yet: await getDb() first");
  return state.client;
}

/** Plain SQL for hot paths (services only, like db()); after getDb() resolved. */
export function rawQuery<T>(text: string, params: unknown[]): Promise<T[]> {
  if (!state.raw) throw new Error("database not opened yet: await getDb() first");
  return state.raw<T>(text, params);
}

/**
 * A hot-path statement by name (services only, like db()): PostgreSQL parses
 * and plans it once per pooled connection, then each call only binds and
 * executes it, without the ORM's per-query work. `name` must identify `text`
 * for the process's lifetime. After getDb() resolved.
 */
export function preparedQuery<T>(name: string, text: string, params: unknown[]): Promise<T[]> {
  if (!state.prepared) throw new Error("database not opened yet: await getDb() first");
  return state.prepared<T>(name, text, params);
}

/**
 * A transaction of named prepared statements on a pooled connection of the
 * PostgreSQL database (services only, like db(): worker hot loops that would
 * otherwise pay the ORM's interactive transaction per batch). Null with the
 * embedded database (PGlite), where callers keep their ORM path. After
 * getDb() resolved.
 */
export function pooledTransaction(): TPooledTx | null {
  return state.pooledTx ?? null;
}

export function dbKind(): "postgres" | "pglite" | undefined {
  return state.kind;
}

export async function closeDb(): Promise<void> {
  const close = state.close;
  state.promise = undefined;
  state.client = undefined;
  state.close = undefined;
  state.raw = undefined;
  state.prepared = undefined;
  state.pooledTx = undefined;
  await close?.();
  // The instance lock's connection (./instance.ts) goes too: nothing of this process is in flight any more.
  await releaseInstance();
}
