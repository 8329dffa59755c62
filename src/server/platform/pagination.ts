import { z } from "zod";
import { AppError } from "./errors";

/**
 * List conventions (spec 4.1): limit 1..200 (default 50), order asc|desc
 * (default desc) by (created_at, id), opaque cursor of at most 128 chars.
 * The cursor is base64url JSON of the last row's sort key plus the order it
 * was issued for, so a cursor cannot be replayed against the other order.
 */
export const zListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(128).optional(),
  order: z.enum(["asc", "desc"]).default("desc"),
});
export type TListQuery = z.infer<typeof zListQuery>;

export type TPage<T> = { items: T[]; next_cursor: string | null };

export const zPage = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), next_cursor: z.string().nullable() });

type TCursor = { t: string; id: string; o: "asc" | "desc" };

export function encodeCursor(row: { createdAt: Date; id: string }, order: "asc" | "desc"): string {
  const c: TCursor = { t: row.createdAt.toISOString(), id: row.id, o: order };
  return Buffer.from(JSON.stringify(c)).toString("base64url");
}

export function decodeCursor(cursor: string, order: "asc" | "desc"): { createdAt: Date; id: string } {
  const bad = () =>
    new AppError("bad_request", "cursor is not a cursor this list issued", {
      reason: "invalid_cursor",
      errors: [{ path: "/query/cursor", message: "invalid cursor" }],
    });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  const c = parsed as Partial<TCursor>;
  if (!c || typeof c.t !== "string" || typeof c.id !== "string" || c.o !== order) throw bad();
  const createdAt = new Date(c.t);
  if (Number.isNaN(createdAt.getTime()) || c.id.length > 64) throw bad();
  return { createdAt, id: c.id };
}

/**
 * Prisma `where`/`orderBy`/`take` for keyset pagination on (createdAt, id).
 * Fetches one extra row to know whether a next page exists.
 */
export function keysetArgs(q: TListQuery) {
  const dir = q.order;
  const cmp = dir === "desc" ? "lt" : "gt";
  const after = q.cursor ? decodeCursor(q.cursor, dir) : undefined;
  const where = after
    ? {
        OR: [{ createdAt: { [cmp]: after.createdAt } }, { createdAt: after.createdAt, id: { [cmp]: after.id } }],
      }
    : {};
  return { where, orderBy: [{ createdAt: dir }, { id: dir }], take: q.limit + 1 };
}

export function toPage<R extends { createdAt: Date; id: string }, T>(
  rows: R[],
  q: TListQuery,
  map: (row: R) => T,
): TPage<T> {
  const more = rows.length > q.limit;
  const slice = more ? rows.slice(0, q.limit) : rows;
  const last = slice[slice.length - 1];
  return { items: slice.map(map), next_cursor: more && last ? encodeCursor(last, q.order) : null };
}
