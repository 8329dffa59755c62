import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { SqlRunner } from "../../src/server/platform/db/sql-runner";

/**
 * Schema drift detection: what the hand-written SQL migrations build versus
 * what prisma/schema.prisma declares.
 *
 *   loadPrismaDmmf()       schema.prisma -> Prisma's own DMMF (via the schema
 *                          wasm the `prisma` CLI ships; @prisma/internals is
 *                          not installed and the generated client only keeps
 *                          a stripped runtime data model)
 *   introspectSchema(db)   pg_catalog -> tables, columns, indexes, foreign keys
 *   compareSchema(db, dmmf) -> human-readable differences, [] when they agree
 *
 * Out of scope on purpose: CHECK constraints, triggers, functions, and
 * partial or expression indexes, none of which schema.prisma can express.
 */

// ------------------------------------------------------------------ types

export type TReferentialAction = "Cascade" | "Restrict" | "NoAction" | "SetNull" | "SetDefault";

export type TColumn = {
  /** format_type() of the column, e.g. "timestamp(3) with time zone". */
  type: string;
  notNull: boolean;
  /** pg_get_expr() of the default, e.g. "CURRENT_TIMESTAMP", "0", "'x'::text". */
  default: string | null;
};

export type TIndex = { name: string; columns: string[]; unique: boolean; primary: boolean };

export type TForeignKey = {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: TReferentialAction;
  onUpdate: TReferentialAction;
};

export type TTable = { columns: Record<string, TColumn>; indexes: TIndex[]; foreignKeys: TForeignKey[] };

export type TIntrospectedSchema = { tables: Record<string, TTable> };

/** The parts of Prisma's DMMF this comparison reads. */
export type TDmmfField = {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "object" | "enum" | "unsupported";
  isList: boolean;
  isRequired: boolean;
  type: string;
  nativeType?: [string, string[]] | null;
  hasDefaultValue: boolean;
  default?: unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
};

export type TDmmfModel = { name: string; dbName: string | null; fields: TDmmfField[] };

export type TDmmfIndex = {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  fields: { name: string }[];
};

export type TDmmf = {
  datamodel: {
    models: TDmmfModel[];
    enums: { name: string; dbName?: string | null }[];
    indexes: TDmmfIndex[];
  };
};

// ------------------------------------------------------------------ DMMF

/**
 * Runs Prisma's schema engine (the `get_dmmf` export of the wasm module in
 * node_modules/prisma/build) on a schema file. The glue below mirrors the
 * four imports wasm-bindgen generated for that module.
 */
type TSchemaWasm = {
  memory: WebAssembly.Memory;
  __wbindgen_externrefs: WebAssembly.Table;
  __wbindgen_start(): void;
  __wbindgen_malloc(size: number, align: number): number;
  __wbindgen_free(ptr: number, size: number, align: number): void;
  __externref_table_dealloc(index: number): void;
  /** Returns [ptr, len, errorRef, isError]. */
  get_dmmf(ptr: number, len: number): [number, number, number, number];
};

export function loadPrismaDmmf(schemaPath = path.join(process.cwd(), "prisma", "schema.prisma")): TDmmf {
  const require = createRequire(import.meta.url);
  const wasmPath = path.join(
    path.dirname(require.resolve("prisma/package.json")),
    "build",
    "prisma_schema_build_bg.wasm",
  );
  const module = new WebAssembly.Module(readFileSync(wasmPath));

  let panicMessage = "";
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const readString = (ptr: number, len: number) => decoder.decode(new Uint8Array(wasm.memory.buffer, ptr >>> 0, len));
  const imports: Record<string, (ptr: number, len: number) => unknown> = {};
  for (const { name } of WebAssembly.Module.imports(module)) {
    if (name.startsWith("__wbg_set_message_")) imports[name] = (p, n) => void (panicMessage = readString(p, n));
    else if (name.startsWith("__wbg_Error_")) imports[name] = (p, n) => new Error(readString(p, n));
    else if (name.includes("wbindgen_throw")) {
      imports[name] = (p, n) => {
        throw new Error(readString(p, n));
      };
    } else if (name === "__wbindgen_init_externref_table") {
      imports[name] = () => {
        const table = wasm.__wbindgen_externrefs;
        const base = table.grow(4);
        table.set(0, undefined);
        table.set(base + 0, undefined);
        table.set(base + 1, null);
        table.set(base + 2, true);
        table.set(base + 3, false);
      };
    } else throw new Error(`prisma schema wasm needs an unknown import ${name}: update loadPrismaDmmf()`);
  }
  // The imports above only run after this line (from __wbindgen_start and get_dmmf).
  const wasm = new WebAssembly.Instance(module, { __wbindgen_placeholder__: imports })
    .exports as unknown as TSchemaWasm;
  wasm.__wbindgen_start();

  const input = new TextEncoder().encode(
    JSON.stringify({ prismaSchema: readFileSync(schemaPath, "utf8"), noColor: true }),
  );
  const ptr = wasm.__wbindgen_malloc(input.length, 1) >>> 0;
  new Uint8Array(wasm.memory.buffer).set(input, ptr);
  let result: [number, number, number, number];
  try {
    result = wasm.get_dmmf(ptr, input.length);
  } catch (err) {
    throw new Error(`get_dmmf panicked: ${panicMessage || (err as Error).message}`);
  }
  const [outPtr, outLen, errRef, isErr] = result;
  if (isErr) {
    const err = wasm.__wbindgen_externrefs.get(errRef) as Error | undefined;
    wasm.__externref_table_dealloc(errRef);
    throw new Error(`${schemaPath} does not validate: ${err?.message ?? "unknown error"}`);
  }
  const json = readString(outPtr, outLen);
  wasm.__wbindgen_free(outPtr, outLen, 1);
  return { datamodel: (JSON.parse(json) as TDmmf).datamodel };
}

// ------------------------------------------------------------ introspection

const ACTIONS: Record<string, TReferentialAction> = {
  a: "NoAction",
  r: "Restrict",
  c: "Cascade",
  n: "SetNull",
  d: "SetDefault",
};

export async function introspectSchema(db: SqlRunner, schema = "public"): Promise<TIntrospectedSchema> {
  const tables = await db.query<{ table: string }>(
    `SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY 1`,
    [schema],
  );
  const out: TIntrospectedSchema = { tables: {} };
  for (const { table } of tables) out.tables[table] = { columns: {}, indexes: [], foreignKeys: [] };
  const tableOf = (name: string) => out.tables[name]!;

  const columns = await db.query<{
    table: string;
    column: string;
    type: string;
    not_null: boolean;
    default: string | null;
  }>(
    `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
            a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
      ORDER BY c.relname, a.attnum`,
    [schema],
  );
  for (const c of columns) {
    tableOf(c.table).columns[c.column] = { type: c.type, notNull: c.not_null, default: c.default };
  }

  // Key columns only (not INCLUDE columns); partial and expression indexes
  // are left out because schema.prisma cannot declare them.
  const indexes = await db.query<{ table: string; name: string; unique: boolean; primary: boolean; columns: string[] }>(
    `SELECT t.relname AS table, i.relname AS name, ix.indisunique AS unique, ix.indisprimary AS primary,
            ARRAY(SELECT a.attname::text
                    FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                   WHERE k.ord <= ix.indnkeyatts
                   ORDER BY k.ord) AS columns
       FROM pg_index ix
       JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_class i ON i.oid = ix.indexrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = $1 AND t.relkind IN ('r', 'p')
        AND ix.indpred IS NULL AND ix.indexprs IS NULL
      ORDER BY t.relname, i.relname`,
    [schema],
  );
  for (const ix of indexes) {
    tableOf(ix.table).indexes.push({ name: ix.name, columns: ix.columns, unique: ix.unique, primary: ix.primary });
  }

  const fks = await db.query<{
    table: string;
    name: string;
    ref_table: string;
    on_delete: string;
    on_update: string;
    columns: string[];
    ref_columns: string[];
  }>(
    `SELECT t.relname AS table, c.conname AS name, rt.relname AS ref_table,
            c.confdeltype::text AS on_delete, c.confupdtype::text AS on_update,
            ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS ref_columns
       FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_class rt ON rt.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE c.contype = 'f' AND n.nspname = $1
      ORDER BY t.relname, c.conname`,
    [schema],
  );
  for (const fk of fks) {
    tableOf(fk.table).foreignKeys.push({
      name: fk.name,
      columns: fk.columns,
      refTable: fk.ref_table,
      refColumns: fk.ref_columns,
      onDelete: ACTIONS[fk.on_delete] ?? (`unknown(${fk.on_delete})` as TReferentialAction),
      onUpdate: ACTIONS[fk.on_update] ?? (`unknown(${fk.on_update})` as TReferentialAction),
    });
  }
  return out;
}

// ------------------------------------------------------------- comparison

const IGNORED_TABLES = new Set(["_prisma_migrations"]);

const tableName = (m: TDmmfModel) => m.dbName ?? m.name;
const columnName = (f: TDmmfField) => f.dbName ?? f.name;
const isColumn = (f: TDmmfField) => f.kind === "scalar" || f.kind === "enum";

function quoteTypeName(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** The format_type() PostgreSQL reports for a Prisma field (Prisma's defaults for PostgreSQL). */
export function expectedColumnType(field: TDmmfField, dmmf: TDmmf): string {
  const [native, args = []] = field.nativeType ?? [undefined, []];
  const mod = args.length ? `(${args.join(",")})` : "";
  let base: string | undefined;
  if (field.kind === "enum") {
    const en = dmmf.datamodel.enums.find((e) => e.name === field.type);
    base = quoteTypeName(en?.dbName ?? field.type);
  } else {
    switch (field.type) {
      case "String":
        base = (
          {
            undefined: "text",
            Text: "text",
            VarChar: `character varying${mod}`,
            Char: `character${mod}`,
            Uuid: "uuid",
            Xml: "xml",
            Inet: "inet",
            Citext: "citext",
          } as Record<string, string>
        )[String(native)];
        break;
      case "Int":
        base = (
          { undefined: "integer", Integer: "integer", SmallInt: "smallint", Oid: "oid" } as Record<string, string>
        )[String(native)];
        break;
      case "BigInt":
        base = native === undefined || native === "BigInt" ? "bigint" : undefined;
        break;
      case "Float":
        base = (
          { undefined: "double precision", DoublePrecision: "double precision", Real: "real" } as Record<string, string>
        )[String(native)];
        break;
      case "Decimal":
        base =
          native === undefined
            ? "numeric(65,30)"
            : native === "Decimal"
              ? `numeric${mod}`
              : native === "Money"
                ? "money"
                : undefined;
        break;
      case "Boolean":
        base = native === undefined || native === "Boolean" ? "boolean" : undefined;
        break;
      case "DateTime":
        base = (
          {
            undefined: "timestamp(3) without time zone",
            Timestamp: `timestamp${mod} without time zone`,
            Timestamptz: `timestamp${mod} with time zone`,
            Date: "date",
            Time: `time${mod} without time zone`,
            Timetz: `time${mod} with time zone`,
          } as Record<string, string>
        )[String(native)];
        break;
      case "Json":
        base = ({ undefined: "jsonb", JsonB: "jsonb", Json: "json" } as Record<string, string>)[String(native)];
        break;
      case "Bytes":
        base = native === undefined || native === "ByteA" ? "bytea" : undefined;
        break;
    }
  }
  if (!base) return `<unsupported: ${field.type}${native ? ` @db.${native}${mod}` : ""}>`;
  return field.isList ? `${base}[]` : base;
}

/** Strips casts and parentheses: "(0)::double precision" -> "0", "'a''b'::text" -> "'a''b'". */
function stripCasts(expr: string): string {
  let s = expr.trim();
  for (;;) {
    const next = s
      .replace(/::[a-z_ ]+(\([\d, ]+\))?(\[\])?$/i, "")
      .replace(/^\((.*)\)$/s, "$1")
      .trim();
    if (next === s) return s;
    s = next;
  }
}

function sqlStringLiteral(expr: string): string | undefined {
  const m = /^'((?:[^']|'')*)'$/s.exec(stripCasts(expr));
  return m ? m[1]!.replace(/''/g, "'") : undefined;
}

const CLIENT_SIDE_DEFAULTS = new Set(["uuid", "cuid", "nanoid", "ulid"]);
const NUMERIC_TYPES = new Set(["Int", "BigInt", "Float", "Decimal"]);

/** Why the column default does not match the field's @default, or undefined when it does. */
function defaultMismatch(field: TDmmfField, actual: string | null): string | undefined {
  const d = field.default as { name?: string; args?: unknown[] } | string | number | boolean | undefined | null;
  const isFunc = typeof d === "object" && d !== null && !Array.isArray(d) && typeof d.name === "string";
  const expectNone = !field.hasDefaultValue || d === undefined || (isFunc && CLIENT_SIDE_DEFAULTS.has(d.name!));
  if (expectNone) return actual === null ? undefined : `has default ${actual}, schema.prisma has none`;
  if (actual === null) return `has no default, schema.prisma has @default(${describeDefault(d)})`;
  if (isFunc) {
    switch (d.name) {
      case "now":
        return /^(CURRENT_TIMESTAMP|now\(\))$/i.test(actual)
          ? undefined
          : `default is ${actual}, expected CURRENT_TIMESTAMP`;
      case "autoincrement":
        return /^nextval\(/.test(actual) ? undefined : `default is ${actual}, expected a sequence (nextval)`;
      case "dbgenerated":
        return undefined; // presence is all that can be compared without parsing SQL
      default:
        return `default is ${actual}, and @default(${d.name}()) is not understood by this comparison`;
    }
  }
  if (field.kind === "scalar" && NUMERIC_TYPES.has(field.type)) {
    const n = Number(sqlStringLiteral(actual) ?? stripCasts(actual));
    return n === Number(d) ? undefined : `default is ${actual}, schema.prisma says ${String(d)}`;
  }
  if (field.type === "Boolean") {
    return stripCasts(actual) === String(d) ? undefined : `default is ${actual}, schema.prisma says ${d}`;
  }
  if (typeof d === "string") {
    return sqlStringLiteral(actual) === d ? undefined : `default is ${actual}, schema.prisma says "${d}"`;
  }
  return `default is ${actual}, and @default(${JSON.stringify(d)}) is not understood by this comparison`;
}

function describeDefault(d: unknown): string {
  if (d && typeof d === "object" && "name" in d) return `${(d as { name: string }).name}()`;
  return JSON.stringify(d);
}

const key = (cols: string[]) => cols.join(",");

export function compareSchema(introspected: TIntrospectedSchema, dmmf: TDmmf): string[] {
  const diffs: string[] = [];
  const models = dmmf.datamodel.models;
  const modelByName = new Map(models.map((m) => [m.name, m]));

  const expectedTables = new Set(models.map(tableName));
  const actualTables = new Set(Object.keys(introspected.tables).filter((t) => !IGNORED_TABLES.has(t)));
  for (const t of expectedTables) if (!actualTables.has(t)) diffs.push(`table "${t}" is missing from the database`);
  for (const t of actualTables)
    if (!expectedTables.has(t)) diffs.push(`table "${t}" exists in the database but not in schema.prisma`);

  for (const model of models) {
    const table = tableName(model);
    const actual = introspected.tables[table];
    if (!actual) continue;
    const at = (what: string) => `table "${table}": ${what}`;
    const colOf = (fieldName: string) => {
      const f = model.fields.find((x) => x.name === fieldName);
      return f ? columnName(f) : `<unknown field ${fieldName}>`;
    };

    // Columns: presence, type, nullability, default.
    const fields = model.fields.filter(isColumn);
    const expectedCols = new Set(fields.map(columnName));
    for (const c of Object.keys(actual.columns)) {
      if (!expectedCols.has(c)) diffs.push(at(`column "${c}" exists in the database but not in schema.prisma`));
    }
    for (const field of fields) {
      const col = columnName(field);
      const c = actual.columns[col];
      if (!c) {
        diffs.push(at(`column "${col}" (${model.name}.${field.name}) is missing from the database`));
        continue;
      }
      const type = expectedColumnType(field, dmmf);
      if (c.type !== type) diffs.push(at(`column "${col}" is ${c.type}, schema.prisma says ${type}`));
      const notNull = field.isRequired || field.isList;
      if (c.notNull !== notNull) {
        diffs.push(
          at(
            `column "${col}" is ${c.notNull ? "NOT NULL" : "nullable"}, schema.prisma says ${notNull ? "required" : "optional"}`,
          ),
        );
      }
      const bad = defaultMismatch(field, c.default);
      if (bad) diffs.push(at(`column "${col}" ${bad}`));
    }

    // Indexes: primary key, unique and plain, compared by column list.
    const declared = dmmf.datamodel.indexes.filter((ix) => ix.model === model.name);
    const pk = declared.find((ix) => ix.type === "id");
    const actualPk = actual.indexes.find((ix) => ix.primary);
    const pkCols = pk ? pk.fields.map((f) => colOf(f.name)) : undefined;
    if (pkCols && !actualPk) diffs.push(at(`primary key (${key(pkCols)}) is missing`));
    if (!pkCols && actualPk)
      diffs.push(at(`has primary key (${key(actualPk.columns)}) that schema.prisma does not declare`));
    if (pkCols && actualPk && key(pkCols) !== key(actualPk.columns)) {
      diffs.push(at(`primary key is (${key(actualPk.columns)}), schema.prisma says (${key(pkCols)})`));
    }
    for (const [kind, unique] of [
      ["unique", true],
      ["normal", false],
    ] as const) {
      const label = unique ? "unique index" : "index";
      const want = new Set(
        declared.filter((ix) => ix.type === kind).map((ix) => key(ix.fields.map((f) => colOf(f.name)))),
      );
      const have = new Map(
        actual.indexes.filter((ix) => !ix.primary && ix.unique === unique).map((ix) => [key(ix.columns), ix.name]),
      );
      for (const cols of want) if (!have.has(cols)) diffs.push(at(`${label} on (${cols}) is missing`));
      for (const [cols, name] of have) {
        if (!want.has(cols)) diffs.push(at(`${label} "${name}" on (${cols}) is not declared in schema.prisma`));
      }
    }

    // Foreign keys: one per relation field that holds the foreign key.
    const relations = model.fields.filter((f) => f.kind === "object" && f.relationFromFields?.length);
    const wantFks = new Map(
      relations.map((rel) => {
        const target = modelByName.get(rel.type);
        const from = rel.relationFromFields!.map(colOf);
        const fromRequired = rel.relationFromFields!.some((n) => model.fields.find((f) => f.name === n)?.isRequired);
        return [
          key(from),
          {
            field: rel.name,
            refTable: target ? tableName(target) : `<unknown model ${rel.type}>`,
            refColumns: (rel.relationToFields ?? []).map((n) => {
              const f = target?.fields.find((x) => x.name === n);
              return f ? columnName(f) : `<unknown field ${n}>`;
            }),
            // Prisma's defaults: Restrict (required) / SetNull (optional) on delete, Cascade on update.
            onDelete: rel.relationOnDelete ?? (fromRequired ? "Restrict" : "SetNull"),
            onUpdate: rel.relationOnUpdate ?? "Cascade",
          },
        ] as const;
      }),
    );
    const haveFks = new Map(actual.foreignKeys.map((fk) => [key(fk.columns), fk]));
    for (const [cols, want] of wantFks) {
      const fk = haveFks.get(cols);
      if (!fk) {
        diffs.push(at(`foreign key on (${cols}) for ${model.name}.${want.field} is missing`));
        continue;
      }
      if (fk.refTable !== want.refTable || key(fk.refColumns) !== key(want.refColumns)) {
        diffs.push(
          at(
            `foreign key "${fk.name}" references ${fk.refTable}(${key(fk.refColumns)}), schema.prisma says ${want.refTable}(${key(want.refColumns)})`,
          ),
        );
      }
      if (fk.onDelete !== want.onDelete)
        diffs.push(at(`foreign key "${fk.name}" is ON DELETE ${fk.onDelete}, schema.prisma says ${want.onDelete}`));
      if (fk.onUpdate !== want.onUpdate)
        diffs.push(at(`foreign key "${fk.name}" is ON UPDATE ${fk.onUpdate}, schema.prisma says ${want.onUpdate}`));
    }
    for (const [cols, fk] of haveFks) {
      if (!wantFks.has(cols)) diffs.push(at(`foreign key "${fk.name}" on (${cols}) is not declared in schema.prisma`));
    }
  }
  return diffs;
}
