/** JSON.stringify for database rows, which may hold bigint columns (JSON has no bigint). */
export function rowsText(rows: unknown): string {
  return JSON.stringify(rows, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}
