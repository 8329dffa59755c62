/**
 * A row as Prisma returns it, from its `to_jsonb` form (hot-path statements
 * that join several tables in one round trip): snake_case columns to the
 * camelCase fields of the model (the schema maps every column that way),
 * timestamps (`*_at`, `*_until`: every DateTime column of the models read so) to Dates;
 * JSON columns stay JSON values. BigInt columns arrive as numbers: callers
 * leave them out or convert them. A driver that answers json as text gets it
 * parsed.
 */
export function rowOf<T>(json: Record<string, unknown> | string): T {
  const obj = (typeof json === "string" ? JSON.parse(json) : json) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const key = k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    out[key] = /_(at|until)$/.test(k) && typeof v === "string" ? new Date(v) : v;
  }
  return out as T;
}
