import { z } from "zod";

/**
 * One-time secrets by construction (issue #33 item 1). A response field that
 * carries a secret shown once (a client secret, a webhook signing secret, a
 * managed database's password) is marked in its output schema with
 * `oneTimeSecret(...)`, once. Everything else is derived from the mark:
 *
 * - the stored copy of a response (the idempotency table) never holds it:
 *   `stripOneTimeSecrets` removes every marked field before anything is
 *   written, for every operation, so a replay answers without it;
 * - the OpenAPI document carries the mark (`x-capstan-one-time-secret: true`),
 *   so a test can walk every operation that returns one and prove the value is
 *   nowhere in a dump of the database or in a log.
 *
 * A marked field is optional by construction: it is absent from a replay.
 */
export const ONE_TIME_SECRET = "x-capstan-one-time-secret";

const REPLAY_NOTE =
  "Shown only in this response: absent when the request is an idempotent replay (Idempotent-Replayed: true); never stored in a replayable form.";

export function oneTimeSecret<T extends z.ZodType>(schema: T, description: string) {
  return schema.meta({ [ONE_TIME_SECRET]: true, description: `${description} ${REPLAY_NOTE}` }).optional();
}

type TZod = { _zod: { def: Record<string, unknown> & { type: string } } };

function isMarked(schema: TZod): boolean {
  const meta: Record<string, unknown> | undefined = z.globalRegistry.get(schema as unknown as z.ZodType);
  return meta?.[ONE_TIME_SECRET] === true;
}

/** The JSON paths (property names from the root; `*` for array items) of every marked field of a schema. */
export function oneTimeSecretPaths(schema: unknown): string[][] {
  const out: string[][] = [];
  const seen = new Set<unknown>();
  const walk = (s: TZod | undefined, at: string[]): void => {
    if (!s?._zod || at.length > 12) return;
    if (isMarked(s)) {
      out.push(at);
      return;
    }
    if (seen.has(s)) return;
    seen.add(s);
    const def = s._zod.def;
    switch (def.type) {
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
      case "readonly":
      case "catch":
      case "nonoptional":
        walk(def.innerType as TZod, at);
        break;
      case "pipe":
        walk(def.out as TZod, at);
        break;
      case "lazy":
        walk((def.getter as () => TZod)(), at);
        break;
      case "object":
        for (const [k, child] of Object.entries(def.shape as Record<string, TZod>)) walk(child, [...at, k]);
        break;
      case "array":
        walk(def.element as TZod, [...at, "*"]);
        break;
      case "union":
      case "discriminatedUnion":
        for (const option of def.options as TZod[]) walk(option, at);
        break;
      case "intersection":
        walk(def.left as TZod, at);
        walk(def.right as TZod, at);
        break;
    }
    seen.delete(s);
  };
  walk(schema as TZod, []);
  // Unions may reach one path twice.
  return [...new Map(out.map((p) => [p.join("\u0000"), p])).values()];
}

function dropPath(value: unknown, path: string[]): void {
  if (value === null || typeof value !== "object") return;
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (head === "*") {
    if (Array.isArray(value)) for (const item of value) dropPath(item, rest);
    return;
  }
  const obj = value as Record<string, unknown>;
  if (!(head in obj)) return;
  if (rest.length === 0) delete obj[head];
  else dropPath(obj[head], rest);
}

/** A deep copy of `value` without the marked fields. */
export function stripOneTimeSecrets<T>(value: T, paths: string[][]): T {
  if (!paths.length || value === null || typeof value !== "object") return value;
  const copy = structuredClone(value);
  for (const p of paths) dropPath(copy, p);
  return copy;
}

/**
 * A JSON response body as it may be stored: marked fields removed. A body that
 * is not JSON cannot be checked, so it is not stored at all (empty string) when
 * the operation declares a secret.
 */
export function storableBody(text: string, paths: string[][]): string {
  if (!paths.length) return text;
  try {
    return JSON.stringify(stripOneTimeSecrets(JSON.parse(text) as unknown, paths));
  } catch {
    return "";
  }
}
