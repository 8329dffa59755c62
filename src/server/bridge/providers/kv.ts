import { db, preparedQuery, type TTx } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { likeLiteral } from "@/server/platform/like";

/**
 * data.kv, platform-owned, in PostgreSQL. Keys are per product. A get, and
 * the update of an existing key, are one prepared statement each on the hot
 * pool (no ORM on the hot path); `increment` is atomic. `max_keys` is
 * enforced in the INSERT of a new key, under a per-product transaction-scoped
 * advisory lock: without it, concurrent inserts of different new keys each
 * count the others' rows as absent and overshoot the limit.
 */
export type TKvTarget = { workspaceId: string; productId: string };

export class KvError extends Error {
  constructor(
    readonly kind: "max_keys" | "not_a_number",
    message: string,
  ) {
    super(message);
  }
}

/** Runs `fn` holding the product's key-count lock (new keys only; updates of existing keys never take it). */
function withKeyCountLock<T>(t: TKvTarget, fn: (tx: TTx) => Promise<T>): Promise<T> {
  return scopedDb(t.workspaceId).$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`kv:${t.workspaceId}:${t.productId}`}, 0))`;
    return fn(tx);
  });
}

export async function kvGet(t: TKvTarget, key: string): Promise<{ value: unknown; bytes: number } | null> {
  const rows = await preparedQuery<{ value: unknown; value_bytes: number }>(
    "capstan_kv_get",
    "SELECT value, value_bytes FROM kv_entries WHERE workspace_id = $1 AND product_id = $2 AND key = $3",
    [t.workspaceId, t.productId, key],
  );
  const row = rows[0];
  return row ? { value: row.value, bytes: row.value_bytes } : null;
}

export async function kvSet(t: TKvTarget, key: string, json: string, bytes: number, maxKeys: number): Promise<void> {
  // An existing key: one prepared statement. A new key: the counted insert below.
  const updated = await preparedQuery<{ k: number }>(
    "capstan_kv_update",
    `UPDATE kv_entries SET value = $4::jsonb, value_bytes = $5, updated_at = now()
      WHERE workspace_id = $1 AND product_id = $2 AND key = $3 RETURNING 1 AS k`,
    [t.workspaceId, t.productId, key, json, bytes],
  );
  if (updated.length > 0) return;
  const rows = await withKeyCountLock(
    t,
    (tx) => tx.$queryRaw<{ key: string }[]>`
    INSERT INTO kv_entries (workspace_id, product_id, key, value, value_bytes)
    SELECT ${t.workspaceId}, ${t.productId}, ${key}, ${json}::jsonb, ${bytes}
     WHERE EXISTS (SELECT 1 FROM kv_entries WHERE workspace_id = ${t.workspaceId} AND product_id = ${t.productId} AND key = ${key})
        OR (SELECT count(*) FROM kv_entries WHERE workspace_id = ${t.workspaceId} AND product_id = ${t.productId}) < ${maxKeys}
    ON CONFLICT (workspace_id, product_id, key)
    DO UPDATE SET value = EXCLUDED.value, value_bytes = EXCLUDED.value_bytes, updated_at = now()
    RETURNING key`,
  );
  if (!rows.length) throw new KvError("max_keys", `the product already holds its maximum of ${maxKeys} keys`);
}

export async function kvDelete(t: TKvTarget, key: string): Promise<boolean> {
  // Raw SQL on purpose: the statement names the workspace itself.
  const n = await db()
    .$executeRaw`DELETE FROM kv_entries WHERE workspace_id = ${t.workspaceId} AND product_id = ${t.productId} AND key = ${key}`;
  return n > 0;
}

export async function kvIncrement(t: TKvTarget, key: string, by: number, maxKeys: number): Promise<number> {
  // Raw SQL on purpose: one statement on the Bridge's path; it names the workspace itself.
  const updated = await db().$queryRaw<{ value: unknown }[]>`
    UPDATE kv_entries AS e SET value = to_jsonb((e.value #>> '{}')::bigint + ${by}::bigint),
           value_bytes = length(((e.value #>> '{}')::bigint + ${by}::bigint)::text), updated_at = now()
     WHERE workspace_id = ${t.workspaceId} AND product_id = ${t.productId} AND key = ${key}
       AND jsonb_typeof(e.value) = 'number' AND (e.value #>> '{}') ~ '^-?[0-9]+$'
    RETURNING value`;
  if (updated.length) return Number(updated[0]!.value);
  const rows = await withKeyCountLock(
    t,
    (tx) => tx.$queryRaw<{ value: unknown }[]>`
    INSERT INTO kv_entries AS e (workspace_id, product_id, key, value, value_bytes)
    SELECT ${t.workspaceId}, ${t.productId}, ${key}, to_jsonb(${by}::bigint), length(${String(by)})
     WHERE EXISTS (SELECT 1 FROM kv_entries WHERE workspace_id = ${t.workspaceId} AND product_id = ${t.productId} AND key = ${key})
        OR (SELECT count(*) FROM kv_entries WHERE workspace_id = ${t.workspaceId} AND product_id = ${t.productId}) < ${maxKeys}
    ON CONFLICT (workspace_id, product_id, key)
    DO UPDATE SET value = to_jsonb((e.value #>> '{}')::bigint + ${by}::bigint),
                  value_bytes = length(((e.value #>> '{}')::bigint + ${by}::bigint)::text), updated_at = now()
     WHERE jsonb_typeof(e.value) = 'number' AND (e.value #>> '{}') ~ '^-?[0-9]+$'
    RETURNING value`,
  );
  if (rows.length) return Number(rows[0]!.value);
  const exists = await kvGet(t, key);
  if (exists) throw new KvError("not_a_number", "the stored value is not an integer");
  throw new KvError("max_keys", `the product already holds its maximum of ${maxKeys} keys`);
}

export async function kvList(
  t: TKvTarget,
  prefix: string,
  limit: number,
  after?: string,
): Promise<{ keys: string[]; next_cursor: string | null }> {
  const rows = await scopedDb(t.workspaceId).kvEntry.findMany({
    where: {
      productId: t.productId,
      key: { startsWith: likeLiteral(prefix), ...(after ? { gt: after } : {}) },
    },
    select: { key: true },
    orderBy: { key: "asc" },
    take: limit + 1,
  });
  const more = rows.length > limit;
  const keys = rows.slice(0, limit).map((r) => r.key);
  return { keys, next_cursor: more ? Buffer.from(keys[keys.length - 1]!).toString("base64url") : null };
}
