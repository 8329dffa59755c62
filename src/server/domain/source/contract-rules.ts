import type { TCapabilityEntry, TContractRejectionReason } from "./source.types";

/**
 * The spec 2.7 capability table, scope bounds (also spec 8) and the Address
 * and Domain rules. Checks throw ContractError with a JSON pointer into
 * capabilities.json; contract-validation.ts turns it into a TContractResult.
 */
export class ContractError extends Error {
  constructor(
    readonly reason: TContractRejectionReason,
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "ContractError";
  }
}

export type TCapabilityId = TCapabilityEntry["id"];
const MAX_SAFE = 9007199254740991;

/** RFC 6901 escaping of one reference token. */
export const pointerToken = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

// Address rule: dot-atom (letters, digits, !#$%&'*+/=?^_`{|}~-) or a quoted string of printable ASCII
// (RFC 5322 qtext and quoted-pairs, possibly empty), `@`, then dot-separated labels.
const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const QUOTED = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*"';
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const DOMAIN = `${LABEL}(?:\\.${LABEL})*`;
const ADDRESS_RE = new RegExp(`^(?:${ATOM}(?:\\.${ATOM})*|${QUOTED})@${DOMAIN}$`);
const DOMAIN_RE = new RegExp(`^${DOMAIN}$`);

/** Spec 2.7 Address rule (from_addresses and event addresses). */
export function isValidAddress(v: unknown): v is string {
  return typeof v === "string" && v.length <= 254 && !/[A-Z]/.test(v) && ADDRESS_RE.test(v);
}

/** Spec 2.7 Domain rule (recipient_domains): `*` or lowercase labels, at most 253 chars. */
export function isValidDomain(v: unknown): v is string {
  return v === "*" || (typeof v === "string" && v.length <= 253 && DOMAIN_RE.test(v));
}

type TCheck = (v: unknown, path: string, what: string) => void;
function invalid(path: string, message: string): never {
  throw new ContractError("scope_invalid", path, message);
}

const int =
  (min: number, max: number): TCheck =>
  (v, path, what) => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
      invalid(path, `${what} must be an integer from ${min} to ${max}`);
  };
const prefix: TCheck = (v, path, what) => {
  if (typeof v !== "string" || !v.startsWith("/") || v.includes(".."))
    invalid(path, `${what} must be a string starting with "/" and containing no ".."`);
};
const arrayOf =
  (min: number, max: number, item: (v: unknown) => boolean, itemRule: string): TCheck =>
  (v, path, what) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) {
      invalid(path, `${what} must be an array of ${min}${max === Infinity ? " or more" : ` to ${max}`} items`);
    }
    (v as unknown[]).forEach((x, i) => {
      if (!item(x)) invalid(`${path}/${i}`, `${what}[${i}] must be ${itemRule}`);
    });
  };

type TRule = { actions: readonly string[]; owner: TCapabilityEntry["credential_owner"]; scope: Record<string, TCheck> };

/** Spec 2.7 table; spec 8 bounds. Duplicates inside scope arrays are allowed (the spec does not forbid them). */
export const CAPABILITY_RULES: Record<TCapabilityId, TRule> = {
  "ai.generate": {
    actions: ["generate"],
    owner: "workspace",
    scope: {
      models: arrayOf(1, Infinity, (m) => m === "text" || m === "embedding", `"text" or "embedding"`),
      max_tokens_per_call: int(1, MAX_SAFE),
    },
  },
  "storage.object": {
    actions: ["read", "write", "delete", "list"],
    owner: "workspace",
    scope: { prefix, max_object_bytes: int(1, MAX_SAFE) },
  },
  "data.kv": {
    actions: ["get", "set", "delete", "list", "increment"],
    owner: "platform",
    scope: { prefix, max_value_bytes: int(1, 65536), max_keys: int(1, 100000) },
  },
  "email.send": {
    actions: ["send"],
    owner: "workspace",
    scope: {
      from_addresses: arrayOf(1, 32, isValidAddress, "an address (at most 254 chars, lowercase, local@domain)"),
      recipient_domains: arrayOf(1, 32, isValidDomain, `"*" or a lowercase domain of at most 253 chars`),
      max_recipients: int(1, 50),
      max_message_bytes: int(1, 1048576),
    },
  },
};

export const isCapabilityId = (v: unknown): v is TCapabilityId =>
  typeof v === "string" && Object.hasOwn(CAPABILITY_RULES, v);

/** Exactly the table's scope fields, each valid; returns a copy. */
export function checkScope(id: TCapabilityId, v: unknown, path: string): Record<string, unknown> {
  const rules = CAPABILITY_RULES[id].scope;
  if (!isPlainObject(v)) invalid(path, `${id}: scope must be an object`);
  const scope = v;
  for (const key of Object.keys(scope)) {
    if (!Object.hasOwn(rules, key))
      invalid(
        `${path}/${pointerToken(key)}`,
        `${id}: scope has no field ${JSON.stringify(key)} (allowed: ${Object.keys(rules).join(", ")})`,
      );
  }
  const out: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(rules)) {
    if (!Object.hasOwn(scope, key)) invalid(`${path}/${key}`, `${id}: scope.${key} is required`);
    check(scope[key], `${path}/${key}`, `${id}: scope.${key}`);
    out[key] = structuredClone(scope[key]);
  }
  return out;
}

/** Provider policy: allow (strings), fallback none|listed, optional prefer; data.kv is fixed to the platform. */
export function checkProvider(id: TCapabilityId, v: unknown, path: string): TCapabilityEntry["provider"] {
  if (!isPlainObject(v)) invalid(path, `${id}: provider must be an object`);
  const p = v;
  for (const key of Object.keys(p)) {
    if (key !== "allow" && key !== "fallback" && key !== "prefer")
      invalid(
        `${path}/${pointerToken(key)}`,
        `${id}: provider has no field ${JSON.stringify(key)} (allowed: allow, fallback, prefer)`,
      );
  }
  if (!Array.isArray(p.allow)) invalid(`${path}/allow`, `${id}: provider.allow must be an array of strings`);
  const allow = p.allow as unknown[];
  allow.forEach((a, i) => {
    if (typeof a !== "string") invalid(`${path}/allow/${i}`, `${id}: provider.allow[${i}] must be a string`);
  });
  if (p.fallback !== "none" && p.fallback !== "listed")
    invalid(`${path}/fallback`, `${id}: provider.fallback must be "none" or "listed"`);
  if (p.prefer !== undefined && typeof p.prefer !== "string")
    invalid(`${path}/prefer`, `${id}: provider.prefer must be a string`);
  if (id === "data.kv") {
    if (allow.length !== 1 || allow[0] !== "platform")
      invalid(`${path}/allow`, `data.kv: provider.allow must be exactly ["platform"]`);
    if (p.prefer !== undefined && p.prefer !== "platform")
      invalid(`${path}/prefer`, `data.kv: provider.prefer, if present, must be "platform"`);
    if (p.fallback !== "none") invalid(`${path}/fallback`, `data.kv: provider.fallback must be "none"`);
  }
  return {
    allow: [...(allow as string[])],
    fallback: p.fallback,
    ...(p.prefer !== undefined ? { prefer: p.prefer } : {}),
  };
}
