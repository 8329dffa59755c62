/**
 * RFC 8785 (JCS) canonical JSON: object keys sorted by UTF-16 code units,
 * no whitespace, ECMAScript number and string serialisation. Used for hashes
 * (descriptor, contract, audit chain, idempotency request fingerprints).
 */
export function canonicalJson(value: unknown): string {
  // Like JSON.stringify, honour toJSON (a Date becomes its ISO string).
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return canonicalJson((value as { toJSON: () => unknown }).toJSON());
  }
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("canonical JSON cannot encode non-finite numbers");
    return JSON.stringify(value);
  }
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "[" + value.map((v) => canonicalJson(v === undefined ? null : v)).join(",") + "]";
  if (typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonicalJson(obj[k])).join(",") + "}";
  }
  throw new Error(`canonical JSON cannot encode ${typeof value}`);
}
