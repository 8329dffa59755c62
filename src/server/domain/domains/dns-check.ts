import { isIP } from "node:net";
import { Resolver } from "node:dns/promises";
import { env } from "@/server/platform/env";
import type { DOMAIN_FAILURE_CODES } from "./domains.contract";

/**
 * Ownership and routing checks of a custom domain over real DNS (node:dns
 * against CAPSTAN_DNS_SERVERS, or the system's resolvers when unset).
 *
 *   1. TXT `_capstan-challenge.<hostname>` must include `capstan-verify=<token>`;
 *   2. the hostname must route to Capstan: a CNAME to the target, or A/AAAA
 *      records that are all Capstan's (the configured apex addresses, or the
 *      addresses of the CNAME target: a flattened CNAME / ALIAS).
 *
 * A definitive answer (no such record, a different record) fails the check;
 * a resolver that times out or fails is `transient` (a verified domain keeps
 * its status through a DNS outage; see verification.service.ts).
 */

export const CHALLENGE_LABEL = "_capstan-challenge";
type TFailureCode = (typeof DOMAIN_FAILURE_CODES)[number];
export type TCheck = { ok: true } | { ok: false; code: TFailureCode; message: string; transient: boolean };
export type TDnsRecord = { type: "TXT" | "CNAME" | "A" | "AAAA" | "ALIAS"; name: string; value: string };

export function cnameTarget(): string {
  const e = env();
  return (e.CAPSTAN_DOMAIN_CNAME_TARGET ?? `domains.${e.CAPSTAN_SURFACE_DOMAIN}`).toLowerCase();
}

function apexAddresses(): string[] {
  return env()
    .CAPSTAN_DOMAIN_APEX_ADDRESSES.split(",")
    .map((a) => a.trim())
    .filter((a) => isIP(a) !== 0);
}

export function verificationRecord(hostname: string, token: string): TDnsRecord {
  return { type: "TXT", name: `${CHALLENGE_LABEL}.${hostname}`, value: `capstan-verify=${token}` };
}

/** What the owner creates at their DNS provider to route the hostname. */
export function routingRecords(hostname: string, apex: boolean): TDnsRecord[] {
  if (!apex) return [{ type: "CNAME", name: hostname, value: cnameTarget() }];
  const addresses = apexAddresses();
  if (!addresses.length) return [{ type: "ALIAS", name: hostname, value: cnameTarget() }];
  return addresses.map((a) => ({ type: isIP(a) === 6 ? "AAAA" : "A", name: hostname, value: a }));
}

export function makeResolver(): Resolver {
  const e = env();
  const r = new Resolver({ timeout: e.CAPSTAN_DNS_TIMEOUT_MS, tries: 2 });
  const servers = e.CAPSTAN_DNS_SERVERS.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length) r.setServers(servers);
  return r;
}

const ABSENT = new Set(["ENOTFOUND", "ENODATA", "NOTFOUND", "NODATA"]);
const bare = (name: string) => name.toLowerCase().replace(/\.$/, "");

/** Records of one type, [] when the name has none, or the resolver's failure. */
async function lookup<T>(fn: () => Promise<T[]>): Promise<{ records: T[] } | { error: string }> {
  try {
    return { records: await fn() };
  } catch (err) {
    const code = (err as { code?: string }).code ?? "";
    if (ABSENT.has(code)) return { records: [] };
    return { error: code || String(err) };
  }
}

const unavailable = (what: string, error: string): TCheck => ({
  ok: false,
  code: "dns_unavailable",
  transient: true,
  message: `DNS did not answer the lookup of ${what} (${error}); Capstan will try again.`,
});

export async function checkDomain(
  resolver: Resolver,
  d: { hostname: string; apex: boolean; token: string },
): Promise<TCheck> {
  const txt = verificationRecord(d.hostname, d.token);
  const found = await lookup(() => resolver.resolveTxt(txt.name));
  if ("error" in found) return unavailable(txt.name, found.error);
  const values = found.records.map((chunks) => chunks.join(""));
  if (!values.includes(txt.value)) {
    return values.length
      ? {
          ok: false,
          code: "verification_record_mismatch",
          transient: false,
          message: `The TXT record at ${txt.name} is ${values.map((v) => `"${v.slice(0, 80)}"`).join(", ")}, not "${txt.value}".`,
        }
      : {
          ok: false,
          code: "verification_record_missing",
          transient: false,
          message: `No TXT record was found at ${txt.name}; create it with the value "${txt.value}".`,
        };
  }
  return checkRouting(resolver, d.hostname, d.apex);
}

async function checkRouting(resolver: Resolver, hostname: string, apex: boolean): Promise<TCheck> {
  const target = cnameTarget();
  const cname = await lookup(() => resolver.resolveCname(hostname));
  if ("error" in cname) return unavailable(hostname, cname.error);
  if (cname.records.length) {
    if (cname.records.some((c) => bare(c) === target)) return { ok: true };
    return {
      ok: false,
      code: "routing_record_mismatch",
      transient: false,
      message: `${hostname} is a CNAME for ${bare(cname.records[0]!)}, not ${target}.`,
    };
  }
  const [v4, v6] = await Promise.all([
    lookup(() => resolver.resolve4(hostname)),
    lookup(() => resolver.resolve6(hostname)),
  ]);
  if ("error" in v4) return unavailable(hostname, v4.error);
  if ("error" in v6) return unavailable(hostname, v6.error);
  const addresses = [...v4.records, ...v6.records];
  const how = apex
    ? apexAddresses().length
      ? `A/AAAA records ${apexAddresses().join(", ")}`
      : `an ALIAS (flattened CNAME) record to ${target}`
    : `a CNAME record to ${target}`;
  if (!addresses.length) {
    return {
      ok: false,
      code: "routing_record_missing",
      transient: false,
      message: `${hostname} has no CNAME, A or AAAA record; create ${how}.`,
    };
  }
  const ours = new Set(apexAddresses());
  const [t4, t6] = await Promise.all([
    lookup(() => resolver.resolve4(target)),
    lookup(() => resolver.resolve6(target)),
  ]);
  for (const t of [t4, t6]) if ("records" in t) for (const a of t.records) ours.add(a);
  const foreign = addresses.filter((a) => !ours.has(a));
  if (!foreign.length) return { ok: true };
  return {
    ok: false,
    code: "routing_record_mismatch",
    transient: false,
    message: `${hostname} resolves to ${foreign.slice(0, 4).join(", ")}, which is not Capstan; create ${how} instead.`,
  };
}
