/**
 * Prisma's `startsWith` / `endsWith` / `contains` compile to SQL LIKE and pass
 * the value through unescaped, so `%` and `_` in user input act as wildcards
 * (and `\` as PostgreSQL's default LIKE escape). Every such filter on input
 * goes through here: `{ key: { startsWith: likeLiteral(prefix) } }`.
 */
export function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (c) => "\\" + c);
}
