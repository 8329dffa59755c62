/**
 * Issue #15 item 6: every query of a service goes through `scopedDb(ws)` (docs/decisions.md "One
 * tenant-scoped data layer"). This guard reads src/server and fails on any `db()` use that is
 * neither in a platform module listed below (with its reason) nor marked, on its own line or one
 * of the three lines above it, with `platform-scoped:` (the query sees every workspace on purpose:
 * a claim, a sweep, a lookup by a globally unique id before the workspace is known, a global
 * model) or `raw SQL on purpose` (a hot-path statement that names the workspace itself). So an
 * unscoped query cannot land silently. Routers and tRPC wiring must not touch Prisma at all.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

/** Modules that ARE the platform layer: every query of theirs is platform-wide by nature. */
const PLATFORM_MODULES: Record<string, string> = {
  "src/server/platform/db/client.ts": "defines db()",
  "src/server/platform/db/scoped.ts": "builds scopedDb(ws) on db()",
  "src/server/platform/idempotency.ts":
    "idempotency records are keyed by principal, replayed before a workspace is resolved",
  "src/server/domain/signing-keys/signing-keys.service.ts": "the platform's JWT signing keys",
  "src/server/domain/signing-keys/jwt.service.ts": "the platform's JWT signing keys",
  "src/server/platform/retention.ts": "retention deletes expired rows of every workspace",
  "src/server/domain/runners/runner-hosts.service.ts": "runner hosts serve every workspace (placement, leases)",
};

const MARKER = /platform-scoped|raw SQL on purpose/i;
const USE = /(?<![\w.$])db\(\)/;
const LOOKBACK = 3;

/** The code of a line without its comment (a line comment, or a line inside a block comment). */
function code(line: string): string {
  const t = line.trim();
  if (t.startsWith("//") || t.startsWith("*") || t.startsWith("/*")) return "";
  return line.replace(/\s\/\/\s.*$/, "");
}

/** `file:line` of every unmarked `db()` use in a file's text. */
function unmarkedUses(file: string, text: string): string[] {
  if (file in PLATFORM_MODULES) return [];
  const lines = text.split("\n");
  const bad: string[] = [];
  lines.forEach((line, i) => {
    if (!USE.test(code(line))) return;
    const near = lines.slice(Math.max(0, i - LOOKBACK), i + 1).join("\n");
    if (!MARKER.test(near)) bad.push(`${file}:${i + 1}: ${line.trim()}`);
  });
  return bad;
}

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(rel);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [rel] : [];
  });
}

const read = (rel: string) => readFileSync(path.join(root, rel), "utf8");

describe("scoped data access sites", () => {
  it("every db() use in src/server is a platform module or says why it is platform-scoped", () => {
    const bad = sources("src/server").flatMap((f) => unmarkedUses(f, read(f)));
    expect(
      bad,
      `unscoped db() uses: use scopedDb(ws), or comment "platform-scoped: <why>" on the line or just above it\n${bad.join("\n")}`,
    ).toEqual([]);
  });

  it("every allow-listed platform module exists", () => {
    for (const f of Object.keys(PLATFORM_MODULES)) expect(() => read(f), f).not.toThrow();
  });

  it("catches a planted unscoped query, and accepts a marked one", () => {
    const planted = [
      'import { db } from "@/server/platform/db/client";',
      "export async function leak(id: string) {",
      "  // look the product up",
      "  return db().product.findUnique({ where: { id } });",
      "}",
    ].join("\n");
    expect(unmarkedUses("src/server/domain/x/leak.service.ts", planted)).toEqual([
      "src/server/domain/x/leak.service.ts:4: return db().product.findUnique({ where: { id } });",
    ]);
    // A marker too far above does not count; a mention in a comment is not a use.
    const far = ["// platform-scoped: not this one", "", "", "", "const x = await db().user.count();"].join("\n");
    expect(unmarkedUses("src/server/domain/x/far.ts", far)).toHaveLength(1);
    expect(unmarkedUses("src/server/domain/x/doc.ts", " * the read uses db(); the writes are scoped")).toEqual([]);
    const marked = ["// platform-scoped: a sweep over every workspace", "const n = await db().user.count();"].join(
      "\n",
    );
    expect(unmarkedUses("src/server/domain/x/ok.ts", marked)).toEqual([]);
    expect(unmarkedUses("src/server/platform/idempotency.ts", planted)).toEqual([]);
  });

  it("routers and the tRPC wiring do not touch Prisma", () => {
    const wiring = [
      ...sources("src/server/trpc"),
      ...sources("src/server/domain").filter((f) => f.endsWith(".router.ts")),
    ];
    expect(wiring.length).toBeGreaterThan(5);
    const bad = wiring.filter((f) => /from "@\/server\/platform\/db\/|from "@\/generated\/prisma/.test(read(f)));
    expect(bad).toEqual([]);
  });
});
