import { isIP } from "node:net";
import { isPrivateHostLiteral } from "@/server/platform/egress";
import { env } from "@/server/platform/env";
import type { TFieldError } from "@/server/platform/errors";
import type { TProviderConfig } from "./bindings.contract";

/**
 * Scope matching: a credential scope item covers a binding scope item when
 * they are equal, or when the credential item ends in `*` and the binding
 * item starts with what precedes it (`*` alone covers everything). An empty
 * credential scope covers nothing, so its bindings have an empty scope.
 */
export function scopeCovers(credentialScope: readonly string[], item: string): boolean {
  return credentialScope.some((c) => c === item || (c.endsWith("*") && item.startsWith(c.slice(0, -1))));
}

/** http:// and private or loopback provider hosts are for tests and local development only. */
function providerAllowPrivate(): boolean {
  return env().CAPSTAN_PROVIDER_ALLOW_PRIVATE;
}

const isLoopback = (host: string) =>
  host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1";
const HOSTNAME_RE = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * Where the Bridge will connect with the secret: https to a public host, no
 * userinfo, query or fragment (a secret belongs in the credential, not in a
 * URL). With CAPSTAN_PROVIDER_ALLOW_PRIVATE: private hosts, and http to loopback.
 */
export function checkProviderConfig(config: TProviderConfig | undefined): TFieldError[] {
  const errors: TFieldError[] = [];
  const allowPrivate = providerAllowPrivate();
  for (const key of ["base_url", "endpoint"] as const) {
    const raw = config?.[key];
    if (raw === undefined) continue;
    const path = `/provider_config/${key}`;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      errors.push({ path, message: "must be an absolute URL" });
      continue;
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (url.username || url.password || url.search || url.hash) {
      errors.push({ path, message: "must not carry credentials, a query or a fragment" });
    } else if (url.protocol !== "https:" && !(url.protocol === "http:" && allowPrivate && isLoopback(host))) {
      errors.push({ path, message: "must use https" });
    } else if (isPrivateHostLiteral(host) && !allowPrivate) {
      errors.push({ path, message: "must be a public host" });
    }
  }
  if (config?.host !== undefined) {
    const host = config.host.replace(/^\[|\]$/g, "");
    if (!HOSTNAME_RE.test(host) && !isIP(host))
      errors.push({ path: "/provider_config/host", message: "must be a host name or an IP address" });
    else if (isPrivateHostLiteral(host) && !allowPrivate)
      errors.push({ path: "/provider_config/host", message: "must be a public host" });
  }
  return errors;
}
