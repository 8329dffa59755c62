import { env } from "./env";

/**
 * The roles of this process (docs/decisions.md "Roles and runner hosts"):
 *  - `web`: console, /v1, the Bridge, surfaces (needs an HTTP server: `npm start`);
 *  - `worker`: the background loops that any process may run (claims decide who works);
 *  - `runner`: starts hosted apps on this host, registers it in `runner_hosts` with a
 *    heartbeat lease and serves its apps to other replicas through the runner gateway.
 * `CAPSTAN_ROLES` wins; unset, `npm start` is everything on one machine (or `web` with
 * CAPSTAN_WORKERS=0) and `npm run worker` is `worker,runner`.
 */
export type TRole = "web" | "worker" | "runner";

export function roles(entry: "server" | "worker" = "server"): Set<TRole> {
  const e = env();
  if (e.CAPSTAN_ROLES) return new Set(e.CAPSTAN_ROLES.split(",").map((r) => r.trim() as TRole));
  if (entry === "worker") return new Set(["worker", "runner"]);
  return new Set(e.CAPSTAN_WORKERS ? ["web", "worker", "runner"] : ["web"]);
}

// The entry point of this process (`node dist/worker.mjs` sets "worker" before opening the database).
const entry: { value: "server" | "worker" } = { value: "server" };

export function setEntryPoint(value: "server" | "worker"): void {
  entry.value = value;
}

/** The roles of this process, from its entry point and CAPSTAN_ROLES. */
export function processRoles(): Set<TRole> {
  return roles(entry.value);
}
