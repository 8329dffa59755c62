import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

/**
 * The one-time-secrets audit (issue #33 item 1), shared by the test over the
 * real app and the tests that plant a careless operation in an extended router.
 *
 * - `markedOperations`: every operation of an OpenAPI document whose success
 *   response carries a field marked `x-capstan-one-time-secret`.
 * - `unmarkedSecretFields`: response fields whose name says "secret" but that
 *   carry no mark and sit under no marked field (a forgotten mark).
 * - `leaksOf`: where a value appears in a full pg_dump, a log or a file.
 */
type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export const MARK = "x-capstan-one-time-secret";

/** A response property named like a secret (whole name or `_` suffix); `secret_rotated_at`, `max_tokens_per_call` are not. */
export const SECRET_NAME = /(^|_)(secret|password|passwd|token|api_key|private_key|private_jwk|credential)$/i;

/**
 * Response fields that look secret but are not one-time secrets, each with why.
 * Keys: "<method> <path> <json path>".
 */
export const NOT_ONE_TIME: Record<string, string> = {
  "post /v1/oauth/token access_token":
    "a short-lived bearer token minted anew by every call (RFC 6749), not a stored secret; the token endpoint keeps no idempotency record",
};

function deref(doc: TJson, s: TJson | undefined, seen = new Set<string>()): TJson | undefined {
  let cur = s;
  while (cur?.$ref && typeof cur.$ref === "string") {
    if (seen.has(cur.$ref)) return undefined;
    seen.add(cur.$ref);
    const parts = cur.$ref.replace(/^#\//, "").split("/");
    cur = parts.reduce<TJson | undefined>((o, k) => o?.[k], doc);
  }
  return cur;
}

type TVisit = (at: string[], schema: TJson, marked: boolean) => void;
function walkSchema(
  doc: TJson,
  schema: TJson | undefined,
  at: string[],
  marked: boolean,
  visit: TVisit,
  depth = 0,
): void {
  const s = deref(doc, schema);
  if (!s || depth > 20) return;
  const isMarked = marked || s[MARK] === true || schema?.[MARK] === true;
  visit(at, s, isMarked);
  for (const key of ["anyOf", "oneOf", "allOf"])
    for (const sub of (s[key] ?? []) as TJson[]) walkSchema(doc, sub, at, isMarked, visit, depth + 1);
  for (const [k, sub] of Object.entries<TJson>(s.properties ?? {}))
    walkSchema(doc, sub, [...at, k], isMarked, visit, depth + 1);
  if (s.items) walkSchema(doc, s.items as TJson, [...at, "*"], isMarked, visit, depth + 1);
  if (s.additionalProperties && typeof s.additionalProperties === "object")
    walkSchema(doc, s.additionalProperties as TJson, [...at, "*"], isMarked, visit, depth + 1);
}

export type TOperation = { method: string; path: string; key: string; status: string; schema: TJson };

export function successOperations(doc: TJson): TOperation[] {
  const out: TOperation[] = [];
  for (const [p, item] of Object.entries<TJson>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<TJson>(item)) {
      if (typeof op !== "object" || !op?.responses) continue;
      for (const [status, r] of Object.entries<TJson>(op.responses)) {
        if (!/^2\d\d$/.test(status)) continue;
        for (const media of Object.values<TJson>(r.content ?? {})) {
          if (media.schema) out.push({ method, path: p, key: `${method} ${p}`, status, schema: media.schema as TJson });
        }
      }
    }
  }
  return out;
}

/** The paths (from the body's root) of the outermost marked fields of an operation's response. */
export function markedPaths(doc: TJson, op: TOperation): string[][] {
  const found = new Map<string, string[]>();
  walkSchema(doc, op.schema, [], false, (at, _s, marked) => {
    if (!marked || !at.length) return;
    // Keep only the outermost: a marked object's inner fields are covered by it.
    for (let i = 1; i < at.length; i++) if (found.has(at.slice(0, i).join("."))) return;
    found.set(at.join("."), at);
  });
  return [...found.values()];
}

export function markedOperations(doc: TJson): Array<TOperation & { paths: string[][] }> {
  return successOperations(doc)
    .map((op) => ({ ...op, paths: markedPaths(doc, op) }))
    .filter((op) => op.paths.length > 0);
}

export function unmarkedSecretFields(doc: TJson): string[] {
  const out = new Set<string>();
  for (const op of successOperations(doc)) {
    walkSchema(doc, op.schema, [], false, (at, _s, marked) => {
      const name = at[at.length - 1];
      if (marked || !name || !SECRET_NAME.test(name)) return;
      const id = `${op.key} ${at.join(".")}`;
      if (!NOT_ONE_TIME[id]) out.add(id);
    });
  }
  return [...out].sort();
}

/** Every string under the marked paths of a response body. */
export function secretValues(body: unknown, paths: string[][]): string[] {
  const out: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === "string" && v.length) out.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === "object") Object.values(v).forEach(collect);
  };
  const at = (v: unknown, p: string[]): void => {
    if (v === null || typeof v !== "object") return;
    const [head, ...rest] = p;
    if (head === undefined) return collect(v);
    if (head === "*") return Array.isArray(v) ? v.forEach((x) => at(x, rest)) : undefined;
    const obj = v as Record<string, unknown>;
    if (!(head in obj)) return;
    if (rest.length) at(obj[head], rest);
    else collect(obj[head]);
  };
  for (const p of paths) at(body, p);
  return out;
}

/** Whether a replayed body still has any marked field. */
export function hasMarkedField(body: unknown, paths: string[][]): boolean {
  return paths.some((p) => {
    let cur: unknown = body;
    for (const k of p) {
      if (k === "*") return Array.isArray(cur) && cur.some((x) => hasMarkedField(x, [p.slice(p.indexOf("*") + 1)]));
      if (cur === null || typeof cur !== "object" || !(k in cur)) return false;
      cur = (cur as Record<string, unknown>)[k];
    }
    return true;
  });
}

/** A full plain-text dump of a database (schema and data) with the PostgreSQL client's own pg_dump. */
export async function pgDump(databaseUrl: string): Promise<string> {
  const { stdout } = await promisify(execFile)("pg_dump", ["--no-owner", "--format=plain", databaseUrl], {
    maxBuffer: 1024 * 1024 * 1024,
  });
  return stdout;
}

/** The text of every file under a directory (logs, launch files, blobs), by path. */
export function filesUnder(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (d: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && st.size < 64 * 1024 * 1024)
        out.push({ file: p, text: readFileSync(p).toString("latin1") });
    }
  };
  walk(dir);
  return out;
}

/** Where each secret appears (also URL-encoded): "<where>: <first chars of the secret>". */
export function leaksOf(secrets: string[], haystacks: Array<{ where: string; text: string }>): string[] {
  const out: string[] = [];
  for (const s of secrets) {
    const forms = [...new Set([s, encodeURIComponent(s)])];
    for (const h of haystacks) if (forms.some((f) => h.text.includes(f))) out.push(`${h.where}: ${s.slice(0, 8)}…`);
  }
  return out;
}
