import { randomBytes } from "node:crypto";
import type { Client } from "pg";
import { env } from "../env";
import { logger } from "../logger";

/**
 * This server process's identity for in-flight journals (budget
 * reservations name the instance that holds them) and its liveness: in
 * PostgreSQL mode the process holds a session-level advisory lock on a
 * dedicated connection for its whole life. The kernel closes that connection
 * when the process dies (kill -9 included), PostgreSQL releases the lock, and
 * any other process can then tell the instance is dead by taking the lock
 * itself (`isInstanceAlive`). In embedded (PGlite) mode one process owns the
 * database, so every other instance is dead.
 *
 * If the dedicated connection breaks while the process lives (database
 * restart, failover), the lock is lost: the process takes a new instance id
 * (and lock) for its next reservations; those made under the old id may then
 * be recovered (charged their reserved amount) by another process, and the
 * late settlement becomes a no-op. Never free, at worst charged the ceiling.
 */
type TInstance = { id: string; client: Client | null };
const g = globalThis as unknown as { __capstanInstance?: Promise<TInstance> };

const LOCK_SPACE = "capstan.instance";

export function currentInstance(): Promise<TInstance> {
  g.__capstanInstance ??= open().catch((err: unknown) => {
    g.__capstanInstance = undefined;
    throw err;
  });
  return g.__capstanInstance;
}

/** The id to stamp on the in-flight journal rows this process writes. */
export async function instanceId(): Promise<string> {
  return (await currentInstance()).id;
}

async function open(): Promise<TInstance> {
  // A session-level advisory lock: on a direct connection (never through a transaction-mode pooler).
  const url = env().DATABASE_DIRECT_URL ?? env().DATABASE_URL;
  if (!env().DATABASE_URL || !url) return { id: `ins_${randomBytes(10).toString("hex")}`, client: null };
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, application_name: "capstan-instance" });
  await client.connect();
  for (let attempt = 0; attempt < 5; attempt++) {
    const id = `ins_${randomBytes(10).toString("hex")}`;
    const rows = (
      await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok", [
        LOCK_SPACE,
        id,
      ])
    ).rows;
    if (!rows[0]?.ok) continue; // a 32-bit hash collision with a live instance: pick another id
    const instance: TInstance = { id, client };
    client.on("error", (err) => {
      logger.warn("db.instance_lock_lost", { instance_id: id, error: err.message });
      if (g.__capstanInstance)
        void g.__capstanInstance.then((cur) => {
          if (cur === instance) g.__capstanInstance = undefined;
        });
    });
    client.on("end", () => {
      if (g.__capstanInstance)
        void g.__capstanInstance.then((cur) => {
          if (cur === instance) g.__capstanInstance = undefined;
        });
    });
    return instance;
  }
  await client.end();
  throw new Error("could not take an instance lock");
}

/**
 * True when the instance `id` still runs. PostgreSQL: its advisory lock is
 * held (we try to take it on our own dedicated connection and give it back
 * at once). PGlite: only this process's own instance is alive.
 */
export async function isInstanceAlive(id: string): Promise<boolean> {
  const me = await currentInstance();
  if (id === me.id) return true;
  if (!me.client) return false;
  const rows = (
    await me.client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok", [
      LOCK_SPACE,
      id,
    ])
  ).rows;
  if (!rows[0]?.ok) return true;
  await me.client.query("SELECT pg_advisory_unlock(hashtext($1), hashtext($2))", [LOCK_SPACE, id]);
  return false;
}

/** Gives the instance lock back (graceful stop, after every in-flight journal row was settled; closeDb). */
export async function releaseInstance(): Promise<void> {
  const pending = g.__capstanInstance;
  g.__capstanInstance = undefined;
  const inst = await pending?.catch(() => null);
  await inst?.client?.end().catch(() => undefined);
}
