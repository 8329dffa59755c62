import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../src/server/platform/db/migrate";
import { type SqlRunner, connectPg } from "../src/server/platform/db/sql-runner";
import {
  type TDmmf,
  type TIntrospectedSchema,
  type TTable,
  compareSchema,
  introspectSchema,
  loadPrismaDmmf,
} from "./support/schema-compare";

/**
 * prisma/schema.prisma and the hand-written SQL in prisma/migrations must
 * describe the same database: migrate a fresh database, introspect it and
 * compare with Prisma's DMMF of schema.prisma.
 */
const ADMIN_URL =
  process.env.CAPSTAN_TEST_PG_ADMIN_URL ||
  process.env.TEST_DATABASE_URL ||
  "postgres://postgres@127.0.0.1:5432/postgres";
const DB_NAME = `capstan_drift_${randomBytes(6).toString("hex")}`;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function urlFor(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = "/" + name;
  return u.toString();
}

let db: SqlRunner | undefined;
let introspected: TIntrospectedSchema;
let dmmf: TDmmf;

beforeAll(async () => {
  dmmf = loadPrismaDmmf();
  await admin(`CREATE DATABASE "${DB_NAME}"`);
  db = await connectPg(urlFor(DB_NAME));
  await migrate(db);
  introspected = await introspectSchema(db);
});

afterAll(async () => {
  await db?.close();
  await admin(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
});

/** A deep copy of the introspected schema with one table changed. */
function doctored(table: string, change: (t: TTable) => void): TIntrospectedSchema {
  const copy = structuredClone(introspected);
  change(copy.tables[table]!);
  return copy;
}

function doctoredDmmf(change: (d: TDmmf) => void): TDmmf {
  const copy = structuredClone(dmmf);
  change(copy);
  return copy;
}

const model = (d: TDmmf, name: string) => d.datamodel.models.find((m) => m.name === name)!;

describe("schema.prisma versus the migrated database", () => {
  it("agree", () => {
    expect(compareSchema(introspected, dmmf)).toEqual([]);
  });

  it("are both non-trivial, so the agreement means something", () => {
    const models = dmmf.datamodel.models;
    expect(models.length).toBeGreaterThanOrEqual(9);
    const tables = Object.keys(introspected.tables)
      .filter((t) => t !== "_prisma_migrations")
      .sort();
    expect(tables).toEqual(models.map((m) => m.dbName ?? m.name).sort());

    // Spot checks of what the introspection reads.
    const users = introspected.tables.users!;
    expect(users.columns.email).toEqual({ type: "text", notNull: true, default: null });
    expect(users.columns.created_at).toEqual({
      type: "timestamp(3) with time zone",
      notNull: true,
      default: "CURRENT_TIMESTAMP",
    });
    expect(users.indexes).toContainEqual({ name: "users_email_key", columns: ["email"], unique: true, primary: false });
    expect(introspected.tables.budgets!.columns.used_units).toEqual({
      type: "double precision",
      notNull: true,
      default: "0",
    });
    expect(introspected.tables.budgets!.columns.limit_units!.notNull).toBe(false);
    expect(introspected.tables.audit_records!.columns.seq!.type).toBe("bigint");
    expect(introspected.tables.idempotency_keys!.columns.response_headers!.type).toBe("jsonb");
    expect(introspected.tables.idempotency_keys!.columns.response_status!.type).toBe("integer");
    expect(introspected.tables.memberships!.foreignKeys).toContainEqual({
      name: "memberships_workspace_id_fkey",
      columns: ["workspace_id"],
      refTable: "workspaces",
      refColumns: ["id"],
      onDelete: "Cascade",
      onUpdate: "Cascade",
    });
    expect(introspected.tables.memberships!.indexes).toContainEqual({
      name: "memberships_workspace_id_user_id_key",
      columns: ["workspace_id", "user_id"],
      unique: true,
      primary: false,
    });
  });
});

/**
 * Every *_id column of the tables created from 20261122000500 to 20261125180000 references its table
 * (20261125190000_integrity), except the ids below, which name no row of this database.
 */
const NOT_REFERENCES: Record<string, string> = {
  correlation_id: "a request's correlation id",
  "capability_invocations.execution_id": "the app's execution, not a row",
  "capability_invocations.bridge_invocation_id": "the Bridge call's own id",
  "capability_invocations.product_id": "a money record; not yet verified to always name a products row",
  "budget_reservations.instance_id": "a server process",
  "budget_reservations.invocation_id": "reserved before the invocation record exists (durability journal)",
  "kv_entries.product_id": "the owner: a product or a managed resource",
  "storage_objects.product_id": "the owner: a product or a managed resource",
  "deadlines.subject_id": "polymorphic (subject_kind)",
  "pending_operations.subject_id": "polymorphic",
  "accesses.account_id": "an end-user account of the app, no table",
  "sessions.account_id": "an end-user account of the app, no table",
  "invocations.account_id": "an end-user account of the app, no table",
  "wallet_entries.source_id": "polymorphic (source_kind)",
  "payment_events.event_id": "the gateway's event id",
  "payment_events.order_id": "a callback may name an order this database does not hold",
};

describe("foreign keys (#15 item 8)", () => {
  it("every *_id column of the tables from 20261122000500 on references a table, or is listed as naming no row", () => {
    const dir = path.join(process.cwd(), "prisma", "migrations");
    const tables = readdirSync(dir)
      .filter((m) => m >= "20261122000500" && m <= "20261125180000_~")
      .flatMap((m) =>
        [
          ...readFileSync(path.join(dir, m, "migration.sql"), "utf8").matchAll(
            /CREATE TABLE (?:IF NOT EXISTS )?"?(\w+)"?/gi,
          ),
        ].map((x) => x[1]!),
      );
    expect(tables.length).toBeGreaterThanOrEqual(25);
    const missing: string[] = [];
    for (const table of tables) {
      const t = introspected.tables[table]!;
      const referenced = new Set(t.foreignKeys.flatMap((fk) => fk.columns));
      for (const column of Object.keys(t.columns).filter((c) => c.endsWith("_id"))) {
        if (!referenced.has(column) && !NOT_REFERENCES[column] && !NOT_REFERENCES[`${table}.${column}`])
          missing.push(`${table}.${column}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it.each([
    ["deployments", "revision_id"],
    ["deployments", "release_id"],
    ["deployments", "product_id"],
    ["surfaces", "product_id"],
    ["surfaces", "deployment_id"],
    ["releases", "product_id"],
    ["releases", "version_id"],
    ["versions", "product_id"],
    ["versions", "revision_id"],
    ["evaluations", "revision_id"],
    ["fixes", "revision_id"],
    ["accesses", "surface_id"],
    ["sessions", "surface_id"],
    ["invocations", "session_id"],
    ["domains", "product_id"],
    ["capability_invocations", "workspace_id"],
  ])("the list filter %s.%s leads an index", (table, column) => {
    expect(introspected.tables[table]!.indexes.some((ix) => ix.columns[0] === column)).toBe(true);
  });

  it("a reference is checked at commit, and ON DELETE CASCADE removes the rows of a deleted workspace", async () => {
    const c = db!;
    const blobs = async (ws: string) =>
      (await c.query(`SELECT 1 FROM workspace_blobs WHERE workspace_id = $1`, [ws])).length;
    await expect(
      c.exec(`INSERT INTO workspace_blobs (workspace_id, sha256) VALUES ('ws_fk_missing', 'a')`),
    ).rejects.toThrow(/foreign key/);
    expect(await blobs("ws_fk_missing")).toBe(0);
    // Deferred: the parent may come later in the same transaction.
    await c.exec(
      `BEGIN; INSERT INTO workspace_blobs (workspace_id, sha256) VALUES ('ws_fk', 'a'); INSERT INTO workspaces (id, name) VALUES ('ws_fk', 'fk'); COMMIT;`,
    );
    expect(await blobs("ws_fk")).toBe(1);
    await c.exec(`DELETE FROM workspaces WHERE id = 'ws_fk'`);
    expect(await blobs("ws_fk")).toBe(0);
  });
});

describe("compareSchema detects drift", () => {
  it.each<[string, () => TIntrospectedSchema, RegExp]>([
    [
      "a missing table",
      () => {
        const copy = structuredClone(introspected);
        delete copy.tables.plans;
        return copy;
      },
      /table "plans" is missing/,
    ],
    [
      "an extra table",
      () => ({ tables: { ...introspected.tables, stray: { columns: {}, indexes: [], foreignKeys: [] } } }),
      /table "stray" exists in the database but not in schema.prisma/,
    ],
    [
      "a removed column",
      () => doctored("users", (t) => delete t.columns.password_hash),
      /"users": column "password_hash" .*missing/,
    ],
    [
      "an extra column",
      () => doctored("users", (t) => (t.columns.nickname = { type: "text", notNull: false, default: null })),
      /"users": column "nickname" exists in the database but not in schema.prisma/,
    ],
    [
      "a flipped nullability (NOT NULL dropped)",
      () => doctored("users", (t) => (t.columns.email!.notNull = false)),
      /"users": column "email" is nullable, schema.prisma says required/,
    ],
    [
      "a flipped nullability (NOT NULL added)",
      () => doctored("api_tokens", (t) => (t.columns.revoked_at!.notNull = true)),
      /"api_tokens": column "revoked_at" is NOT NULL, schema.prisma says optional/,
    ],
    [
      "a timestamp precision change",
      () => doctored("users", (t) => (t.columns.created_at!.type = "timestamp(6) with time zone")),
      /"users": column "created_at" is timestamp\(6\) with time zone, schema.prisma says timestamp\(3\) with time zone/,
    ],
    [
      "a timestamp without time zone",
      () => doctored("api_tokens", (t) => (t.columns.expires_at!.type = "timestamp(3) without time zone")),
      /"api_tokens": column "expires_at" is timestamp\(3\) without time zone/,
    ],
    [
      "json instead of jsonb",
      () => doctored("signing_keys", (t) => (t.columns.public_jwk!.type = "json")),
      /"signing_keys": column "public_jwk" is json, schema.prisma says jsonb/,
    ],
    [
      "integer instead of bigint",
      () => doctored("audit_records", (t) => (t.columns.seq!.type = "integer")),
      /"audit_records": column "seq" is integer, schema.prisma says bigint/,
    ],
    [
      "a dropped now() default",
      () => doctored("users", (t) => (t.columns.created_at!.default = null)),
      /"users": column "created_at" has no default, schema.prisma has @default\(now\(\)\)/,
    ],
    [
      "a different numeric default",
      () => doctored("budgets", (t) => (t.columns.used_units!.default = "1")),
      /"budgets": column "used_units" default is 1, schema.prisma says 0/,
    ],
    [
      "a default schema.prisma does not have",
      () => doctored("users", (t) => (t.columns.name!.default = "''::text")),
      /"users": column "name" has default ''::text, schema.prisma has none/,
    ],
    [
      "a removed unique index",
      () =>
        doctored(
          "memberships",
          (t) => (t.indexes = t.indexes.filter((ix) => ix.name !== "memberships_workspace_id_user_id_key")),
        ),
      /"memberships": unique index on \(workspace_id,user_id\) is missing/,
    ],
    [
      "a removed field-level @unique index",
      () => doctored("users", (t) => (t.indexes = t.indexes.filter((ix) => ix.name !== "users_email_key"))),
      /"users": unique index on \(email\) is missing/,
    ],
    [
      "a unique index that is not unique",
      () =>
        doctored("budgets", (t) =>
          t.indexes.filter((ix) => ix.unique && !ix.primary).forEach((ix) => (ix.unique = false)),
        ),
      /"budgets": unique index on \(workspace_id,usage_category,month\) is missing/,
    ],
    [
      "a unique index over different columns",
      () =>
        doctored(
          "audit_records",
          (t) => (t.indexes.find((ix) => ix.name === "audit_records_workspace_id_seq_key")!.columns = ["seq"]),
        ),
      /"audit_records": unique index on \(workspace_id,seq\) is missing/,
    ],
    [
      "an extra unique index",
      () =>
        doctored("workspaces", (t) =>
          t.indexes.push({ name: "workspaces_name_key", columns: ["name"], unique: true, primary: false }),
        ),
      /"workspaces": unique index "workspaces_name_key" on \(name\) is not declared/,
    ],
    [
      "a removed plain index",
      () =>
        doctored(
          "audit_records",
          (t) => (t.indexes = t.indexes.filter((ix) => ix.name !== "audit_records_correlation_id_idx")),
        ),
      /"audit_records": index on \(correlation_id\) is missing/,
    ],
    [
      "a missing primary key",
      () => doctored("plans", (t) => (t.indexes = t.indexes.filter((ix) => !ix.primary))),
      /"plans": primary key \(workspace_id\) is missing/,
    ],
    [
      "a removed foreign key",
      () => doctored("api_tokens", (t) => (t.foreignKeys = [])),
      /"api_tokens": foreign key on \(user_id\) for ApiToken.user is missing/,
    ],
    [
      "a different ON DELETE action",
      () =>
        doctored(
          "memberships",
          (t) => (t.foreignKeys.find((fk) => fk.columns[0] === "user_id")!.onDelete = "Restrict"),
        ),
      /"memberships": foreign key "memberships_user_id_fkey" is ON DELETE Restrict, schema.prisma says Cascade/,
    ],
    [
      "a different ON UPDATE action",
      () => doctored("budgets", (t) => (t.foreignKeys[0]!.onUpdate = "NoAction")),
      /"budgets": foreign key "budgets_workspace_id_fkey" is ON UPDATE NoAction, schema.prisma says Cascade/,
    ],
    [
      "a foreign key to the wrong table",
      () => doctored("plans", (t) => (t.foreignKeys[0]!.refTable = "users")),
      /"plans": foreign key "plans_workspace_id_fkey" references users\(id\), schema.prisma says workspaces\(id\)/,
    ],
    [
      "an undeclared foreign key",
      () =>
        doctored("workspaces", (t) =>
          t.foreignKeys.push({
            name: "workspaces_created_by_id_fkey",
            columns: ["created_by_id"],
            refTable: "users",
            refColumns: ["id"],
            onDelete: "SetNull",
            onUpdate: "Cascade",
          }),
        ),
      /"workspaces": foreign key "workspaces_created_by_id_fkey" on \(created_by_id\) is not declared/,
    ],
  ])("%s", (_label, make, expected) => {
    const diffs = compareSchema(make(), dmmf);
    expect(diffs.length).toBeGreaterThan(0);
    expect(diffs.join("\n")).toMatch(expected);
  });

  it.each<[string, (d: TDmmf) => void, RegExp]>([
    [
      "a field the migrations never added",
      (d) =>
        model(d, "User").fields.push({
          name: "avatarUrl",
          dbName: "avatar_url",
          kind: "scalar",
          isList: false,
          isRequired: false,
          type: "String",
          hasDefaultValue: false,
        }),
      /"users": column "avatar_url" \(User.avatarUrl\) is missing/,
    ],
    [
      "a field made optional in schema.prisma",
      (d) => (model(d, "Workspace").fields.find((f) => f.name === "name")!.isRequired = false),
      /"workspaces": column "name" is NOT NULL, schema.prisma says optional/,
    ],
    [
      "a changed native type",
      (d) => (model(d, "ApiToken").fields.find((f) => f.name === "expiresAt")!.nativeType = ["Timestamp", ["3"]]),
      /"api_tokens": column "expires_at" is timestamp\(3\) with time zone, schema.prisma says timestamp\(3\) without time zone/,
    ],
    [
      "a renamed table",
      (d) => (model(d, "Plan").dbName = "workspace_plans"),
      /table "workspace_plans" is missing[\s\S]*table "plans" exists in the database but not in schema.prisma/,
    ],
    [
      "a new @@unique",
      (d) =>
        d.datamodel.indexes.push({ model: "ApiToken", type: "unique", fields: [{ name: "userId" }, { name: "name" }] }),
      /"api_tokens": unique index on \(user_id,name\) is missing/,
    ],
    [
      "an onDelete changed in schema.prisma",
      (d) => (model(d, "Budget").fields.find((f) => f.name === "workspace")!.relationOnDelete = "Restrict"),
      /"budgets": foreign key "budgets_workspace_id_fkey" is ON DELETE Cascade, schema.prisma says Restrict/,
    ],
  ])("when schema.prisma gains %s", (_label, change, expected) => {
    const diffs = compareSchema(introspected, doctoredDmmf(change));
    expect(diffs.join("\n")).toMatch(expected);
  });
});

describe("drift end to end", () => {
  it("is found when the database is altered", async () => {
    await db!.exec("BEGIN");
    let altered: TIntrospectedSchema;
    try {
      await db!.exec(`
        DROP INDEX "users_email_key";
        ALTER TABLE "api_tokens" ALTER COLUMN "name" DROP NOT NULL;
        ALTER TABLE "budgets" ALTER COLUMN "used_units" SET DEFAULT 1;
        ALTER TABLE "memberships" DROP CONSTRAINT "memberships_user_id_fkey";
        ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id")
          REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
        ALTER TABLE "signing_keys" ADD COLUMN "note" TEXT;
        ALTER TABLE "plans" ALTER COLUMN "created_at" TYPE TIMESTAMPTZ(6);
      `);
      altered = await introspectSchema(db!);
    } finally {
      await db!.exec("ROLLBACK");
    }
    const diffs = compareSchema(altered, dmmf);
    expect(diffs.sort()).toEqual(
      [
        'table "api_tokens": column "name" is nullable, schema.prisma says required',
        'table "budgets": column "used_units" default is 1, schema.prisma says 0',
        'table "memberships": foreign key "memberships_user_id_fkey" is ON DELETE Restrict, schema.prisma says Cascade',
        'table "plans": column "created_at" is timestamp(6) with time zone, schema.prisma says timestamp(3) with time zone',
        'table "signing_keys": column "note" exists in the database but not in schema.prisma',
        'table "users": unique index on (email) is missing',
      ].sort(),
    );
    // The rollback restored the migrated state.
    expect(compareSchema(await introspectSchema(db!), dmmf)).toEqual([]);
  });

  it("is found when schema.prisma is edited", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "capstan-drift-"));
    try {
      const original = readFileSync(path.join(process.cwd(), "prisma", "schema.prisma"), "utf8");
      const edited = original
        .replace(/(\n\s*email\s+)String(\s+)@unique/, "$1String?$2")
        .replace(/(\n\s*seq\s+)BigInt/, "$1Int")
        .replace(/(\n\s*usedUnits\s+Float\s+)@default\(0\)/, "$1@default(2.5)");
      expect(edited).not.toBe(original);
      const file = path.join(dir, "schema.prisma");
      writeFileSync(file, edited);
      const diffs = compareSchema(introspected, loadPrismaDmmf(file));
      expect(diffs.sort()).toEqual(
        [
          'table "audit_records": column "seq" is bigint, schema.prisma says integer',
          'table "budgets": column "used_units" default is 0, schema.prisma says 2.5',
          'table "users": column "email" is NOT NULL, schema.prisma says optional',
          'table "users": unique index "users_email_key" on (email) is not declared in schema.prisma',
        ].sort(),
      );

      writeFileSync(file, original.replace("model User {", "model User {\n  broken NotAType"));
      expect(() => loadPrismaDmmf(file)).toThrow(/does not validate/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("loadPrismaDmmf", () => {
  it("reads the full data model Prisma derives from schema.prisma", () => {
    const membership = model(dmmf, "Membership");
    expect(membership.dbName).toBe("memberships");
    const workspace = membership.fields.find((f) => f.name === "workspace")!;
    expect(workspace.relationFromFields).toEqual(["workspaceId"]);
    expect(workspace.relationOnDelete).toBe("Cascade");
    const createdAt = membership.fields.find((f) => f.name === "createdAt")!;
    expect(createdAt.nativeType).toEqual(["Timestamptz", ["3"]]);
    expect(createdAt.default).toEqual({ name: "now", args: [] });
    expect(dmmf.datamodel.indexes).toContainEqual({
      model: "User",
      type: "unique",
      isDefinedOnField: true,
      fields: [{ name: "email" }],
    });
  });
});
