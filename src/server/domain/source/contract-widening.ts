import type { TCapabilityEntry } from "./source.types";

const NUMERIC_LIMITS = [
  "max_tokens_per_call",
  "max_object_bytes",
  "max_value_bytes",
  "max_keys",
  "max_recipients",
  "max_message_bytes",
];
const SET_FIELDS = ["models", "from_addresses"];

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** Path-prefix containment: "/a/b" and "/a/" are within "/a"; "/ab" is not (conservative for string prefixes). */
function prefixWithin(inner: string, outer: string): boolean {
  if (inner === outer) return true;
  return inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
}

function entryWidening(prev: TCapabilityEntry, next: TCapabilityEntry): string | null {
  const action = next.actions.find((a) => !prev.actions.includes(a));
  if (action) return `adds action ${action}`;
  for (const key of NUMERIC_LIMITS) {
    const n = next.scope[key];
    const p = prev.scope[key];
    if (typeof n === "number" && (typeof p !== "number" || n > p))
      return `raises ${key} from ${typeof p === "number" ? p : "none"} to ${n}`;
  }
  for (const key of SET_FIELDS) {
    const had = strings(prev.scope[key]);
    const added = strings(next.scope[key]).find((x) => !had.includes(x));
    if (added !== undefined) return `adds ${key} item ${added}`;
  }
  const hadDomains = strings(prev.scope.recipient_domains);
  if (!hadDomains.includes("*")) {
    const added = strings(next.scope.recipient_domains).find((d) => !hadDomains.includes(d));
    if (added !== undefined) return `adds recipient domain ${added}`;
  }
  const n = next.scope.prefix;
  const p = prev.scope.prefix;
  if (typeof n === "string" && (typeof p !== "string" || !prefixWithin(n, p)))
    return `widens prefix from ${typeof p === "string" ? p : "none"} to ${n}`;
  const provider = next.provider.allow.find((a) => !prev.provider.allow.includes(a));
  if (provider !== undefined) return `allows provider ${provider}`;
  if (prev.provider.fallback === "none" && next.provider.fallback === "listed")
    return "switches provider fallback from none to listed";
  return null;
}

/**
 * Whether `next` asks for more than `previous` (design "Source intake",
 * `scope_widened`): a new capability id, a new action, a higher numeric
 * limit, a new model, from_address or recipient domain (anything is covered
 * by a previous "*"), a prefix outside the previous one, a new allowed
 * provider, or fallback none -> listed. Dropping or narrowing is never
 * widening; `required` and `prefer` do not count. `why` names the first
 * widening found, capabilities in id order.
 */
export function isWidening(previous: TCapabilityEntry[], next: TCapabilityEntry[]): { widened: boolean; why?: string } {
  const prevById = new Map(previous.map((c) => [c.id, c]));
  for (const entry of [...next].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const prev = prevById.get(entry.id);
    if (!prev) return { widened: true, why: `adds capability ${entry.id}` };
    const why = entryWidening(prev, entry);
    if (why) return { widened: true, why: `${entry.id}: ${why}` };
  }
  return { widened: false };
}
