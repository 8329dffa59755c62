import { onChange, signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";

/**
 * Which surface a custom hostname serves: the newest active surface of the
 * domain's product in the domain's environment, for a verified domain only
 * (a claimed but unverified one is `unverified`, an unknown one null).
 * Cached per process for HOST_CACHE_TTL_MS, positive and negative alike (a
 * request must not cost a database round trip, and unknown Host headers must
 * not cost one each either); a change forgets its hostname at once here and
 * in every other process through a change signal (the TTL bounds it while a
 * listener reconnects).
 */
export const HOST_CACHE_TTL_MS = 2_000;
const MAX_ENTRIES = 10_000;

export type THostRoute =
  | { kind: "surface"; surfaceId: string; domainId: string }
  | { kind: "no_surface"; domainId: string; productId: string; environmentType: string }
  /** Claimed by a workspace but not verified (pending or failed): it routes nowhere yet. */
  | { kind: "unverified"; status: string }
  | null;

const g = globalThis as unknown as { __capstanDomainHosts?: Map<string, { at: number; value: THostRoute }> };
const cache = (g.__capstanDomainHosts ??= new Map<string, { at: number; value: THostRoute }>());

/** Lower case, without a port or a trailing dot; null when it cannot be a custom hostname. */
export function hostOf(hostHeader: string | null | undefined): string | null {
  if (!hostHeader) return null;
  const h = hostHeader
    .trim()
    .toLowerCase()
    .replace(/:\d{1,5}$/, "")
    .replace(/\.$/, "");
  if (h.length > 253 || !/^[a-z0-9.-]+\.[a-z0-9-]+$/.test(h) || /^[0-9.]+$/.test(h)) return null;
  return h;
}

export function cachedHostRoute(host: string): THostRoute | undefined {
  const hit = cache.get(host);
  if (!hit || Date.now() - hit.at > HOST_CACHE_TTL_MS) return undefined;
  return hit.value;
}

export async function resolveHostRoute(host: string): Promise<THostRoute> {
  const hit = cachedHostRoute(host);
  if (hit !== undefined) return hit;
  let value: THostRoute = null;
  // platform-scoped: a hostname names no workspace before it is found; at most one claim of it is verified (unique index).
  const claims = await db().domain.findMany({
    where: { hostname: host, status: { not: "released" } },
    select: { id: true, status: true, productId: true, environmentType: true },
  });
  const d = claims.find((c) => c.status === "verified");
  if (!d && claims.length)
    value = {
      kind: "unverified",
      status: claims.some((c) => c.status === "failed") ? "failed" : "pending_verification",
    };
  if (d) {
    // platform-scoped: the verified domain's product decides the surface (its row names the workspace).
    const s = await db().surface.findFirst({
      where: { productId: d.productId, environmentType: d.environmentType, status: "active" },
      orderBy: [{ activatedAt: "desc" }, { id: "desc" }],
      select: { id: true },
    });
    value = s
      ? { kind: "surface", surfaceId: s.id, domainId: d.id }
      : { kind: "no_surface", domainId: d.id, productId: d.productId, environmentType: d.environmentType };
  }
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(host, { at: Date.now(), value });
  return value;
}

/** Forgets a hostname's route here at once and in every other process within the NOTIFY delay. */
export function forgetHost(host: string): void {
  signalChange("domain-host", host);
}
onChange("domain-host", (host) => (host === null ? cache.clear() : cache.delete(host)));

/**
 * For a TLS terminator's on-demand certificates (Caddy `on_demand_tls ask`):
 * true only for a verified custom domain. Surface hosts are covered by a
 * wildcard certificate for the surface domain, not issued on demand.
 */
export async function isVerifiedHostname(host: string): Promise<boolean> {
  // platform-scoped: the TLS terminator asks by hostname (at most one verified claim).
  return (await db().domain.count({ where: { hostname: host, status: "verified" } })) > 0;
}
