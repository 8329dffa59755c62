import canonicalize from "canonicalize";

/**
 * RFC 8785 (JCS) canonical JSON by `canonicalize`: object keys sorted by UTF-16
 * code units, no whitespace, ECMAScript number and string serialisation, toJSON
 * honoured (a Date becomes its ISO string), undefined members dropped and
 * undefined array items null. Used for hashes (descriptor, contract, audit
 * chain, idempotency request fingerprints).
 *
 * For every JSON value (strings, numbers, nested objects, arrays, null,
 * booleans: all an audit record holds) the output is byte for byte the one of
 * the hand-written function it replaced, so existing audit chains and stored
 * hashes still verify (canonical-json.test.ts checks this property). Values
 * JSON cannot carry are refused first, as before: canonicalize would turn a
 * nested function into the text `undefined` and drop symbols silently.
 */
export function canonicalJson(value: unknown): string {
  assertEncodable(value, 0);
  const out = canonicalize(value);
  if (out === undefined) throw new Error(`canonical JSON cannot encode ${typeof value}`);
  return out;
}

function assertEncodable(value: unknown, depth: number): void {
  if (depth > 10_000) throw new Error("canonical JSON input is nested too deeply");
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("canonical JSON cannot encode non-finite numbers");
    return;
  }
  if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol")
    throw new Error(`canonical JSON cannot encode ${typeof value}`);
  if (value === null || typeof value !== "object") return;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return assertEncodable((toJSON as () => unknown).call(value), depth + 1);
  if (Array.isArray(value)) {
    for (const v of value as unknown[]) assertEncodable(v, depth + 1);
    return;
  }
  for (const v of Object.values(value)) if (v !== undefined) assertEncodable(v, depth + 1);
}
