import dns, { type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import {
  Agent,
  buildConnector,
  fetch as undiciFetch,
  request as undiciRequest,
  type RequestInit,
  type Response,
} from "undici";
import { deadline } from "./deadline";
import { env } from "./env";

/**
 * The outbound-egress guard (SSRF, DNS rebinding). Creation-time checks
 * (isPrivateHostLiteral) only see what a URL says; the connect-time guard
 * sees where it goes: every connection of an egress agent resolves the host
 * itself, refuses it when ANY address is not public, and connects to exactly
 * the addresses it checked, so a DNS answer that changes between check and
 * connect cannot win. IP literals skip DNS and are checked as they are.
 * Each purpose has its own allow flag (development, tests), read per
 * connection; a pooled keep-alive connection is not re-checked.
 */
export type TEgressPurpose = "provider" | "webhook" | "oidc";

export class EgressBlockedError extends Error {
  readonly code = "EGRESS_BLOCKED";
  constructor(readonly host: string) {
    // Never the resolved addresses: they would tell a caller about the internal network.
    super(`egress blocked: ${host} resolves to a non-public address`);
    this.name = "EgressBlockedError";
  }
}

/**
 * The EgressBlockedError in `err` or its causes (undici's fetch wraps connect
 * errors in "fetch failed"). Recognised by its code, not `instanceof`: the
 * agents are shared on globalThis across Next.js bundles, each of which has
 * its own copy of the class.
 */
export function egressBlocked(err: unknown): EgressBlockedError | null {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof Error && (e as { code?: unknown }).code === "EGRESS_BLOCKED") return e as EgressBlockedError;
  }
  return null;
}

/**
 * Ranges (ipaddr.js names) that are globally reachable unicast; every other
 * range it knows, and any it adds in a later version, is refused (fail closed).
 * as112/amt (v4 and v6), Teredo and DRIP tags are public anycast or unicast;
 * documentation, benchmarking, reserved, ORCHID, discard and SRv6 are not.
 */
const PUBLIC_V4_RANGES: ReadonlySet<string> = new Set(["unicast", "as112", "amt"]);
const PUBLIC_V6_RANGES: ReadonlySet<string> = new Set([
  "unicast",
  "teredo",
  "amt",
  "as112v6",
  "droneRemoteIdProtocolEntityTags",
]);
/** ::a.b.c.d (IPv4-compatible, deprecated; :: and ::1 included), NAT64 well-known prefix (RFC 6052). */
const V4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/** The IPv4 address in the last 32 bits of `v6`. */
function low32(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const p = v6.parts;
  return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 255, p[7]! >> 8, p[7]! & 255]);
}

function isPublicV6(v6: ipaddr.IPv6): boolean {
  // ::a.b.c.d is judged as the v4 address (:: and ::1 land in 0/8), before range(), which calls it unicast.
  if (v6.match(V4_COMPATIBLE)) return isPublicV4(low32(v6));
  const range: string = v6.range();
  // Mapped (::ffff:0:0/96), SIIT (::ffff:0:0:0/96) and NAT64 (64:ff9b::/96) reach the embedded v4 address;
  // local-use NAT64 (64:ff9b:1::/48, the rest of rfc6052) translates into whatever network it is deployed in.
  if (range === "ipv4Mapped" || range === "rfc6145") return isPublicV4(low32(v6));
  if (range === "rfc6052") return v6.match(NAT64_WELL_KNOWN) && isPublicV4(low32(v6));
  // 6to4 (2002::/16) carries the v4 address in groups 1-2.
  if (range === "6to4") {
    const p = v6.parts;
    return isPublicV4(new ipaddr.IPv4([p[1]! >> 8, p[1]! & 255, p[2]! >> 8, p[2]! & 255]));
  }
  return PUBLIC_V6_RANGES.has(range);
}

function isPublicV4(v4: ipaddr.IPv4): boolean {
  return PUBLIC_V4_RANGES.has(v4.range());
}

/** Whether `ip` is a globally routable unicast address; anything else (a host name included) is not. */
export function isPublicAddress(ip: string): boolean {
  const addr = ip.replace(/^\[|\]$/g, "").split("%")[0]!;
  // node:net's isIP first: ipaddr.js parses legacy forms (0x7f.1, 127.1) that are not addresses here.
  const kind = isIP(addr);
  if (kind === 4) return isPublicV4(ipaddr.IPv4.parse(addr));
  if (kind === 6) return isPublicV6(ipaddr.IPv6.parse(addr));
  return false;
}

/**
 * The creation-time check: `localhost`, `*.localhost`, and literal addresses
 * that are not public (bracketed IPv6 and the numeric IPv4 forms URL parsers
 * accept, such as 2130706433 or 0x7f.1, included). A DNS name is not judged
 * here; the connect-time guard judges where it resolves.
 */
export function isPrivateHostLiteral(host: string): boolean {
  let h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (!isIP(h)) {
    try {
      h = new URL(`http://${h}`).hostname.replace(/^\[|\]$/g, "");
    } catch {
      return false;
    }
  }
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  return isIP(h) !== 0 && !isPublicAddress(h);
}

/** Whether a purpose may reach private addresses; read at call time (tests switch the flags). */
export function egressAllowsPrivate(purpose: TEgressPurpose): boolean {
  if (purpose === "provider") return env().CAPSTAN_PROVIDER_ALLOW_PRIVATE;
  if (purpose === "webhook") return env().CAPSTAN_WEBHOOK_ALLOW_PRIVATE;
  // Not in env(): tests switch it without resetting the env cache.
  return process.env.OIDC_ALLOW_INSECURE_ISSUER === "1";
}

/** Throws EgressBlockedError when `host` is a literal non-public address the purpose may not reach. */
export function checkEgressLiteral(purpose: TEgressPurpose, host: string): void {
  const h = host.replace(/^\[|\]$/g, "");
  if (isIP(h) && !isPublicAddress(h) && !egressAllowsPrivate(purpose)) throw new EgressBlockedError(h);
}

/**
 * Every address of `hostname` for a connection of `purpose`, or
 * EgressBlockedError when any of them is not public (IP literals are judged
 * as they are). Connect to these addresses only, never re-resolve.
 */
export async function resolveEgress(purpose: TEgressPurpose, hostname: string): Promise<LookupAddress[]> {
  const h = hostname.replace(/^\[|\]$/g, "");
  const family = isIP(h);
  if (family) {
    checkEgressLiteral(purpose, h);
    return [{ address: h, family }];
  }
  const addresses = await dns.promises.lookup(h, { all: true });
  if (!addresses.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: "ENOTFOUND" });
  if (!egressAllowsPrivate(purpose) && addresses.some((a) => !isPublicAddress(a.address)))
    throw new EgressBlockedError(h);
  return addresses;
}

/** A net `lookup` that resolves all addresses and refuses the host when any of them is not public. */
export function guardedLookup(purpose: TEgressPurpose): LookupFunction {
  return (hostname, options, callback) => {
    resolveEgress(purpose, hostname).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}

const CONNECT_TIMEOUT_MS = 5_000;
const KEEP_ALIVE_MS = 10_000;
/** Connections per origin. */
const POOL: Record<TEgressPurpose, number> = { provider: 64, webhook: 16, oidc: 4 };

// On globalThis: Next.js bundles route handlers separately; one pool per process, not per bundle.
const g = globalThis as unknown as { __capstanEgressAgents?: Map<TEgressPurpose, Agent> };
const agents = (g.__capstanEgressAgents ??= new Map<TEgressPurpose, Agent>());

/** The purpose's keep-alive pool (undici Agent), created on first use; every new connection is guarded. */
export function egressAgent(purpose: TEgressPurpose): Agent {
  let agent = agents.get(purpose);
  if (!agent) {
    const connector = buildConnector({ timeout: CONNECT_TIMEOUT_MS, lookup: guardedLookup(purpose) });
    agent = new Agent({
      connections: POOL[purpose],
      keepAliveTimeout: KEEP_ALIVE_MS,
      connect: (opts, callback) => {
        try {
          checkEgressLiteral(purpose, opts.hostname);
        } catch (err) {
          return callback(err as Error, null);
        }
        connector(opts, callback);
      },
    });
    agents.set(purpose, agent);
  }
  return agent;
}

export type TEgressResponse = Response;

/** undici's fetch through the purpose's agent; a refused connection rejects with EgressBlockedError itself. */
export async function egressFetch(
  purpose: TEgressPurpose,
  url: string | URL,
  init: RequestInit = {},
): Promise<Response> {
  try {
    return await undiciFetch(url, { ...init, dispatcher: egressAgent(purpose) });
  } catch (err) {
    throw egressBlocked(err) ?? err;
  }
}

/**
 * A POST whose answer is only a status (webhook deliveries), through the purpose's agent with undici's `request`:
 * no web streams and no AbortSignal per call, which `fetch` costs (its request and response bodies are web streams,
 * and an `AbortSignal.timeout` builds a DOMException when its timer fires, long after the answer). Redirects are not
 * followed. Past `timeoutMs` (connecting included) it rejects with an Error named TimeoutError; a refused connection
 * with EgressBlockedError. Up to 128 KiB of the answer's body is read and dropped so the connection can be reused.
 */
export async function egressPost(
  purpose: TEgressPurpose,
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<{ status: number }> {
  const limit = deadline(init.timeoutMs);
  try {
    const res = await undiciRequest(url, {
      method: "POST",
      headers: init.headers,
      body: init.body,
      dispatcher: egressAgent(purpose),
      signal: limit.signal,
    });
    await res.body.dump().catch(() => undefined);
    return { status: res.statusCode };
  } catch (err) {
    const blocked = egressBlocked(err);
    if (blocked) throw blocked;
    if (limit.expired())
      throw Object.assign(new Error(`no answer within ${init.timeoutMs} ms`), { name: "TimeoutError" });
    throw err;
  } finally {
    limit.done();
  }
}
