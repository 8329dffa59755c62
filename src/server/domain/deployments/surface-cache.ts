import { onChange, signalChange } from "@/server/platform/change-signals";
import type { TUpstream } from "@/server/runtime/surface-proxy";

/**
 * The surface proxy's view of a surface, cached per process for at most
 * TTL_MS (a request to a surface must not cost a database round trip).
 * Retiring a deployment forgets its surface at once in this process and,
 * through a change signal (LISTEN/NOTIFY), in every other within
 * milliseconds; TTL_MS bounds it while a process's listener is reconnecting
 * (a request that reaches a stopped app in that window gets a 502 from its
 * closed socket).
 */
export const SURFACE_CACHE_TTL_MS = 1_000;

export type TSurfaceRoute = {
  id: string;
  status: string;
  reasonCode: string | null;
  expiresAt: Date;
  /** The app's ingress socket on this host, or its runner host's gateway; null: no process (or its host is lost). */
  upstream: TUpstream | null;
  /** The process state was recorded (a null upstream then means the runner host is unreachable). */
  started: boolean;
  /** Its deployment was lost with its host and a replacement is on its way (replace.service.ts). */
  replacing?: boolean;
  workspaceId: string;
  /** The audience of the release the deployment serves; null when it is no release's. */
  audience: "internal" | "workspace" | "custom" | null;
};

// On globalThis: a stop handled by the API's bundle must reach the surface route's cache at once.
const g = globalThis as unknown as { __capstanSurfaceCache?: Map<string, { at: number; value: TSurfaceRoute | null }> };
const cache = (g.__capstanSurfaceCache ??= new Map<string, { at: number; value: TSurfaceRoute | null }>());

export function cachedSurface(id: string): TSurfaceRoute | null | undefined {
  const hit = cache.get(id);
  if (!hit || Date.now() - hit.at > SURFACE_CACHE_TTL_MS) return undefined;
  return hit.value;
}

export function rememberSurface(id: string, value: TSurfaceRoute | null): void {
  if (cache.size > 10_000) cache.clear();
  cache.set(id, { at: Date.now(), value });
}

/** Forgets a surface here at once and in every other process within the NOTIFY delay. */
export function forgetSurface(id: string): void {
  signalChange("surface", id);
}
onChange("surface", (id) => (id === null ? cache.clear() : cache.delete(id)));
