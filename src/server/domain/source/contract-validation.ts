import { canonicalJson } from "@/server/platform/canonical-json";
import { sha256Hex } from "@/server/platform/crypto";
import {
  CAPABILITY_RULES,
  checkProvider,
  checkScope,
  ContractError,
  isCapabilityId,
  isPlainObject,
  pointerToken,
  type TCapabilityId,
} from "./contract-rules";
import type { TCapabilityEntry, TContractResult } from "./source.types";

export { isValidAddress, isValidDomain } from "./contract-rules";
export { isWidening } from "./contract-widening";

export const MAX_CONTRACT_BYTES = 64 * 1024;
export const MAX_CONTRACT_ENTRIES = 32;
const ENTRY_FIELDS = ["id", "required", "actions", "scope", "credential_owner", "provider"];

/** sha256 of the RFC 8785 canonical JSON of the capabilities sorted by id. */
export function contractHash(capabilities: TCapabilityEntry[]): string {
  return sha256Hex(canonicalJson([...capabilities].sort(byId)));
}

const byId = (a: TCapabilityEntry, b: TCapabilityEntry) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Validates a repository's capabilities.json (`{"capabilities": [entry...]}`,
 * each entry exactly spec 2.7's). `null` (no file) is the empty contract.
 *
 * The first failure wins and `path` is an RFC 6901 pointer into the file
 * ("/" for the whole document). Document checks run in this order: size,
 * JSON, top-level shape, the `capabilities` array, entry count; then the
 * entries in file order. Reasons:
 * - `contract_too_large`: the UTF-8 text is over 64 KiB ("/"), or there are
 *   more than 32 entries ("/capabilities").
 * - `scope_invalid` for every structural fault, which the spec has no other
 *   reason for: text that is not JSON, a top level that is not an object,
 *   a top-level member other than `capabilities` (and an optional string
 *   `$schema`), `capabilities` missing or not an array, an entry that is not
 *   an object, a duplicate id, an extra entry field, `required` missing or not
 *   boolean, `actions` missing, not an array, empty or with a duplicate, and
 *   anything wrong in `scope` or `provider` (missing or extra fields, types,
 *   bounds, the Address and Domain rules, the fixed data.kv provider).
 * - `unknown_capability`: `id` is not one of the four ids (missing or not a
 *   string included).
 * - `unknown_action`: an action is not allowed for the id (a non-string
 *   included).
 * - `owner_not_supported`: `credential_owner` is not the table's owner for
 *   the id (missing included).
 * Per entry the order is: id, duplicate id, extra fields, required, actions,
 * credential_owner, scope, provider. A leading UTF-8 BOM is ignored; duplicate
 * JSON keys follow JSON.parse (the last wins).
 *
 * On success the capabilities are sorted by id and rebuilt from the known
 * fields; everything else (action order, scope array order) is kept as given,
 * so only formatting, key order and entry order do not change the hash.
 * `scope_widened` is not decided here (see isWidening).
 */
export function validateContract(text: string | null): TContractResult {
  if (text === null) return { ok: true, capabilities: [], contractHash: contractHash([]) };
  try {
    const capabilities = parseContract(text).sort(byId);
    return { ok: true, capabilities, contractHash: contractHash(capabilities) };
  } catch (err) {
    if (err instanceof ContractError) return { ok: false, reason: err.reason, path: err.path, message: err.message };
    throw err;
  }
}

function parseContract(text: string): TCapabilityEntry[] {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_CONTRACT_BYTES) {
    throw new ContractError(
      "contract_too_large",
      "/",
      `capabilities.json is ${bytes} bytes; the limit is ${MAX_CONTRACT_BYTES}`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new ContractError("scope_invalid", "/", `capabilities.json is not valid JSON (${(err as Error).message})`);
  }
  if (!isPlainObject(doc))
    throw new ContractError("scope_invalid", "/", `capabilities.json must be an object {"capabilities": [...]}`);
  for (const key of Object.keys(doc)) {
    if (key === "capabilities") continue;
    if (key === "$schema" && typeof doc[key] === "string") continue;
    throw new ContractError(
      "scope_invalid",
      `/${pointerToken(key)}`,
      `capabilities.json has no member ${JSON.stringify(key)} (only "capabilities")`,
    );
  }
  const list = doc.capabilities;
  if (!Array.isArray(list))
    throw new ContractError("scope_invalid", "/capabilities", `capabilities.json needs a "capabilities" array`);
  if (list.length > MAX_CONTRACT_ENTRIES) {
    throw new ContractError(
      "contract_too_large",
      "/capabilities",
      `capabilities.json has ${list.length} entries; the limit is ${MAX_CONTRACT_ENTRIES}`,
    );
  }
  const seen = new Set<string>();
  return list.map((entry, i) => checkEntry(entry, `/capabilities/${i}`, seen));
}

function checkEntry(v: unknown, path: string, seen: Set<string>): TCapabilityEntry {
  if (!isPlainObject(v)) throw new ContractError("scope_invalid", path, "a capability entry must be an object");
  const id = v.id;
  if (!isCapabilityId(id)) {
    throw new ContractError(
      "unknown_capability",
      `${path}/id`,
      `unknown capability ${JSON.stringify(id ?? null)}; known: ${Object.keys(CAPABILITY_RULES).join(", ")}`,
    );
  }
  if (seen.has(id)) throw new ContractError("scope_invalid", `${path}/id`, `${id} is listed more than once`);
  seen.add(id);
  for (const key of Object.keys(v)) {
    if (!ENTRY_FIELDS.includes(key))
      throw new ContractError(
        "scope_invalid",
        `${path}/${pointerToken(key)}`,
        `${id}: an entry has no field ${JSON.stringify(key)}`,
      );
  }
  if (typeof v.required !== "boolean")
    throw new ContractError("scope_invalid", `${path}/required`, `${id}: required must be a boolean`);
  const actions = checkActions(id, v.actions, `${path}/actions`);
  const owner = CAPABILITY_RULES[id].owner;
  if (v.credential_owner !== owner) {
    throw new ContractError(
      "owner_not_supported",
      `${path}/credential_owner`,
      `${id}: credential_owner must be "${owner}", not ${JSON.stringify(v.credential_owner ?? null)}`,
    );
  }
  const scope = checkScope(id, v.scope, `${path}/scope`);
  const provider = checkProvider(id, v.provider, `${path}/provider`);
  return { id, required: v.required, actions, scope, credential_owner: owner, provider };
}

function checkActions(id: TCapabilityId, v: unknown, path: string): string[] {
  if (!Array.isArray(v) || v.length === 0)
    throw new ContractError("scope_invalid", path, `${id}: actions must be a non-empty array`);
  const allowed = CAPABILITY_RULES[id].actions;
  const out: string[] = [];
  v.forEach((a: unknown, i) => {
    if (typeof a !== "string" || !allowed.includes(a)) {
      throw new ContractError(
        "unknown_action",
        `${path}/${i}`,
        `${id}: unknown action ${JSON.stringify(a)}; allowed: ${allowed.join(", ")}`,
      );
    }
    if (out.includes(a))
      throw new ContractError("scope_invalid", `${path}/${i}`, `${id}: action ${a} is listed more than once`);
    out.push(a);
  });
  return out;
}
