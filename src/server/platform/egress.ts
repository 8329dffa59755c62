import dns, { type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch, type RequestInit, type Response } from "undici";
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

const V4_BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4], // 240/4 holds 255.255.255.255
] as const) V4_BLOCKED.addSubnet(net, prefix, "ipv4");

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad becomes two groups). */
function v6Groups(ip: string): number[] {
  const s = ip.toLowerCase().replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) =>
    `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const [head, tail] = s.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return groups.map((x) => parseInt(x, 16));
}

/** Whether `ip` is a globally routable unicast address; anything else (a host name included) is not. */
export function isPublicAddress(ip: string): boolean {
  const addr = ip.replace(/^\[|\]$/g, "").split("%")[0]!;
  const kind = isIP(addr);
  if (kind === 4) return !V4_BLOCKED.check(addr, "ipv4");
  if (kind !== 6) return false;
  const g = v6Groups(addr);
  const embedded = `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) are judged as the v4 address; :: and ::1 land in 0/8.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) return isPublicAddress(embedded);
  // SIIT (::ffff:0:a.b.c.d, ::ffff:0:0/96) and NAT64 (64:ff9b::/96) reach the embedded v4 address.
  if (g.slice(0, 4).every((x) => x === 0) && g[4] === 0xffff && g[5] === 0) return isPublicAddress(embedded);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isPublicAddress(embedded);
  // Local-use NAT64 (64:ff9b:1::/48) translates into whatever network it is deployed in.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return false;
  // 6to4 (2002::/16) carries the v4 address in groups 1-2.
  if (g[0] === 0x2002) return isPublicAddress(`${g[1]! >> 8}.${g[1]! & 255}.${g[2]! >> 8}.${g[2]! & 255}`);
  const g0 = g[0]!;
  const ula = (g0 & 0xfe00) === 0xfc00; // fc00::/7
  const linkOrSiteLocal = (g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0; // fe80::/10, fec0::/10
  const multicast = (g0 & 0xff00) === 0xff00; // ff00::/8
  return !(ula || linkOrSiteLocal || multicast);
}

/**
 * The creation-time check: `localhost`, `*.localhost`, and literal addresses
 * that are not public (bracketed IPv6 and the numeric IPv4 forms URL parsers
 * accept, such as 2130706433 or 0x7f.1, included). A DNS name is not judged
 * here; the connect-time guard judges where it resolves.
 */
export function isPrivateHostLiteral(host: string): boolean {
  let h = host.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
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
  if (!egressAllowsPrivate(purpose) && addresses.some((a) => !isPublicAddress(a.address))) throw new EgressBlockedError(h);
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
const agents = (g.__capstanEgressAgents ??= new Map());

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
export async function egressFetch(purpose: TEgressPurpose, url: string | URL, init: RequestInit = {}): Promise<Response> {
  try {
    return await undiciFetch(url, { ...init, dispatcher: egressAgent(purpose) });
  } catch (err) {
    throw egressBlocked(err) ?? err;
  }
}
