import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { parse } from "tldts";

/**
 * Hostname rules of custom domains (docs/decisions.md "Custom domains").
 * Pure: `normalizeHostname` either returns the canonical form (lower case,
 * IDNA punycode, no trailing dot) with whether it is an apex (a registrable
 * domain itself, e.g. example.co.uk), or the reason in words it is refused.
 */

export const MAX_HOSTNAME_LENGTH = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type THostname =
  { ok: true; hostname: string; apex: boolean; registrable: string } | { ok: false; message: string };

export type THostnameRules = {
  /** Capstan's own surface domain: nothing at or under it can be claimed. */
  surfaceDomain: string;
  /** Hosts Capstan itself answers on (the console and API host). */
  reservedHosts: string[];
};

const refuse = (message: string): THostname => ({ ok: false, message });

export function normalizeHostname(raw: string, rules: THostnameRules): THostname {
  if (raw.length === 0) return refuse("hostname is empty");
  if (raw.length > MAX_HOSTNAME_LENGTH + 1) return refuse(`hostname is longer than ${MAX_HOSTNAME_LENGTH} characters`);
  if (raw.startsWith("[") || isIP(raw.replace(/\.$/, "")) !== 0)
    return refuse("hostname must be a name, not an IP address");
  if (/[/:@?#\\]/.test(raw))
    return refuse("hostname must be a bare host name such as app.example.com, not a URL, path or host:port");
  if (/\s/.test(raw) || [...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return refuse("hostname must not contain spaces or control characters");
  if (raw.includes("*")) return refuse("wildcard hostnames are not supported: add each hostname on its own");
  let host = raw.toLowerCase();
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host.endsWith(".")) return refuse("hostname must not end in more than one dot");
  // WHATWG URL parsing treats a numeric last label as IPv4 (1.2.3.999 is an invalid address, not a name).
  if (/(^|\.)(0x[0-9a-f]*|[0-9]+)$/.test(host)) return refuse("hostname must be a name, not an IP address");
  const ascii = domainToASCII(host);
  if (!ascii) return refuse("hostname is not a valid (internationalised) domain name");
  if (ascii.length > MAX_HOSTNAME_LENGTH) return refuse(`hostname is longer than ${MAX_HOSTNAME_LENGTH} characters`);
  const labels = ascii.split(".");
  if (labels.length < 2) return refuse("hostname must have at least two labels, e.g. app.example.com");
  for (const label of labels) {
    if (!LABEL.test(label)) {
      return refuse(
        `label "${label.slice(0, 63)}" must be 1..63 letters, digits and hyphens, not starting or ending with a hyphen`,
      );
    }
    if (label.slice(2, 4) === "--" && !label.startsWith("xn--"))
      return refuse(
        `label "${label}" has hyphens in the third and fourth positions, which only punycode (xn--) labels may`,
      );
  }
  const parsed = parse(ascii, { allowPrivateDomains: true });
  if (parsed.isIp) return refuse("hostname must be a name, not an IP address");
  if (!parsed.domain) {
    return refuse(
      `${ascii} is a public suffix (like com, co.uk or github.io) that nobody can own: add a name under it`,
    );
  }
  const surface = rules.surfaceDomain.toLowerCase();
  if (ascii === surface || ascii.endsWith(`.${surface}`))
    return refuse(`hostnames at or under ${surface} belong to Capstan's surfaces`);
  for (const reserved of rules.reservedHosts) {
    const r = reserved.toLowerCase();
    if (ascii === r || ascii.endsWith(`.${r}`)) return refuse(`${ascii} is where Capstan itself is served`);
  }
  return { ok: true, hostname: ascii, apex: parsed.domain === ascii, registrable: parsed.domain };
}
