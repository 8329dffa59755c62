import { AppError, issuePath } from "./errors";

/**
 * Input that no schema rejects but PostgreSQL or the validator cannot take:
 * NUL characters (a `text` or `jsonb` value cannot hold U+0000), unpaired
 * UTF-16 surrogates (not valid UTF-8; jsonb refuses `\ud800`) and nesting
 * deep enough to overflow a recursive validator's stack. Checked once where
 * input enters (request bodies in body.ts, every tRPC/REST procedure input in
 * trpc/init.ts), iteratively, before any schema runs or anything is written:
 * a 400 problem naming the field.
 */
export const MAX_JSON_DEPTH = 64;

// A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSAFE_CHARS = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isSafeString(s: string): boolean {
  return !UNSAFE_CHARS.test(s);
}

type TNode = { v: unknown; key: PropertyKey; depth: number; parent: TNode | null };

function pathOf(node: TNode | null): PropertyKey[] {
  const out: PropertyKey[] = [];
  for (let n = node; n?.parent; n = n.parent) out.push(n.key);
  return out.reverse();
}

/** Throws a 400 problem for the first unsafe string (value or member name) or too-deep container in `value`. */
export function assertSafeInput(value: unknown, what = "request"): void {
  // Parent links instead of a path per node: the path is only built for the error.
  const stack: TNode[] = [{ v: value, key: "", depth: 0, parent: null }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.v;
    if (typeof v === "string") {
      if (!isSafeString(v)) throw unsafeString(pathOf(node), what);
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (node.depth >= MAX_JSON_DEPTH) {
      const at = issuePath(pathOf(node));
      throw new AppError("bad_request", `The ${what} nests deeper than ${MAX_JSON_DEPTH} levels at ${at}`, {
        reason: "nesting_too_deep",
        errors: [{ path: at, message: `nests deeper than ${MAX_JSON_DEPTH} levels` }],
        extensions: { max_depth: MAX_JSON_DEPTH },
      });
    }
    const depth = node.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, depth, parent: node });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      if (!isSafeString(k))
        throw unsafeString([...pathOf(node), k.replace(new RegExp(UNSAFE_CHARS.source, "g"), "\ufffd")], what);
      stack.push({ v: (v as Record<string, unknown>)[k], key: k, depth, parent: node });
    }
  }
}

function unsafeString(path: PropertyKey[], what: string): AppError {
  const at = issuePath(path);
  const message = "must not contain NUL characters or unpaired UTF-16 surrogates";
  return new AppError("bad_request", `${at} in the ${what} ${message}`, {
    reason: "invalid_string",
    errors: [{ path: at, message }],
  });
}
