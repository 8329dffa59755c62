import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { migrate } from "../src/server/platform/db/migrate";
import { type SqlRunner, connectPg } from "../src/server/platform/db/sql-runner";

/**
 * Migration 20261126060000_resource_names on a database that already has
 * rows: every product, webhook and binding gets a derived name, duplicates
 * within a workspace get their id appended, live service identities that
 * shared a name are told apart, and the unique indexes then hold.
 */
const ADMIN_URL =
  process.env.CAPSTAN_TEST_PG_ADMIN_URL ||
  process.env.TEST_DATABASE_URL ||
  "postgres://postgres@127.0.0.1:5432/postgres";
const NAMES = "20261126060000_resource_names";
const dbName = `capstan_names_${randomBytes(6).toString("hex")}`;
const dirs: string[] = [];
let runner: SqlRunner | undefined;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await runner?.close();
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it("backfills unique names and then enforces them", async () => {
  await admin(`CREATE DATABASE "${dbName}"`);
  const u = new URL(ADMIN_URL);
  u.pathname = "/" + dbName;
  runner = await connectPg(u.toString());
  const all = path.join(process.cwd(), "prisma", "migrations");
  const before = mkdtempSync(path.join(tmpdir(), "capstan-names-"));
  dirs.push(before);
  cpSync(all, before, {
    recursive: true,
    filter: (src) => !path.basename(src).startsWith(NAMES) && !/\/2026112[6-9]|\/202612/.test(src),
  });
  await migrate(runner, { dir: before });

  const q = (sql: string, params: unknown[] = []) => runner!.query<Record<string, string>>(sql, params);
  await q(`INSERT INTO workspaces (id, name) VALUES ('ws_a', 'A'), ('ws_b', 'B')`);
  const prod = (id: string, ws: string, repo: string, at: string) =>
    q(
      `INSERT INTO products (id, workspace_id, input_revision_id, repo_url, ref, created_by, created_at) VALUES ($1, $2, $3, $4, 'main', 'usr_x', $5)`,
      [id, ws, `rev_${id}`, repo, at],
    );
  await prod("prod_1", "ws_a", "https://github.com/acme/Shop.git", "2026-01-01T00:00:00Z");
  await prod("prod_2", "ws_a", "https://gitlab.com/other/shop", "2026-01-02T00:00:00Z");
  await prod("prod_3", "ws_a", "git@github.com:acme/blog.git", "2026-01-03T00:00:00Z");
  await prod("prod_4", "ws_b", "https://github.com/acme/shop.git", "2026-01-04T00:00:00Z");
  const hook = (id: string, url: string, description: string | null) =>
    q(
      `INSERT INTO event_subscriptions (id, workspace_id, url, description, event_types, secret_sealed, status, created_by) VALUES ($1, 'ws_a', $2, $3, '["*"]', 'x', 'active', 'usr_x')`,
      [id, url, description],
    );
  await hook("wb_1", "https://hooks.example.com/a", null);
  await hook("wb_2", "https://hooks.example.com/b", "  ");
  await hook("wb_3", "https://other.example.com/", "Orders");
  const svc = (id: string, name: string, status: string, at: string) =>
    q(
      `INSERT INTO service_identities (id, workspace_id, kind, name, secret_hash, status, created_by, created_at) VALUES ($1, 'ws_a', 'workspace', $2, 'h', $3, 'usr_x', $4)`,
      [id, name, status, at],
    );
  await svc("svc_1", "ci", "active", "2026-01-01T00:00:00Z");
  await svc("svc_2", "CI", "active", "2026-01-02T00:00:00Z");
  await svc("svc_3", "ci", "revoked", "2026-01-03T00:00:00Z");

  expect((await migrate(runner, { dir: all })).applied).toContain(NAMES);

  const names = async (table: string) =>
    Object.fromEntries((await q(`SELECT id, name FROM ${table}`)).map((r) => [r.id, r.name]));
  expect(await names("products")).toEqual({ prod_1: "Shop", prod_2: "shop (prod_2)", prod_3: "blog", prod_4: "shop" });
  expect(await names("event_subscriptions")).toEqual({
    wb_1: "hooks.example.com",
    wb_2: "hooks.example.com (wb_2)",
    wb_3: "Orders",
  });
  expect(await names("service_identities")).toEqual({ svc_1: "ci", svc_2: "CI (svc_2)", svc_3: "ci" });
  await expect(
    q(
      `INSERT INTO products (id, workspace_id, name, input_revision_id, repo_url, ref, created_by) VALUES ('prod_5', 'ws_a', 'SHOP', 'rev_5', 'https://x/y', 'main', 'usr_x')`,
    ),
  ).rejects.toThrow(/unique|duplicate/i);
  await expect(q(`UPDATE service_identities SET name = 'Ci' WHERE id = 'svc_2'`)).rejects.toThrow(/unique|duplicate/i);
  // A revoked identity's name is free.
  await q(`UPDATE service_identities SET name = 'ci' WHERE id = 'svc_3'`);
});
