import os from "node:os";
import { db } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { onChange, signalChange } from "@/server/platform/change-signals";
import { logger } from "@/server/platform/logger";
import { runner } from "@/server/runtime";
import { DEFAULT_PLAN_LIMITS } from "@/server/runtime/limits";
import { gatewayKey, startGateway } from "@/server/runtime/runner-gateway";
import { GONE_RUNNER, RemoteRunnerOps, type TRunnerOps } from "@/server/runtime/remote-runner";
import type { TUpstream } from "@/server/runtime/surface-proxy";
import type { TRuntimeState } from "@/server/runtime";

/**
 * Runner hosts (docs/decisions.md "Roles and runner hosts"): each process with
 * the runner role registers its host in `runner_hosts` (id = the local
 * runner's host id, the endpoint of its gateway, its capacity) and renews a
 * lease every CAPSTAN_RUNNER_HEARTBEAT_MS. Deployments record the host they
 * were placed on (`deployments.runner_host`); any replica reaches them through
 * that host's endpoint, and a host whose lease lapses is lost: its
 * deployments fail with reason_code `runner_host_lost` (deployments/host-lapse.service.ts).
 */
type THostView = { endpoint: string; state: string } | null;
const ENDPOINT_TTL_MS = 5_000;

type TState = {
  endpoint: string;
  sandbox?: string | null;
  lastBeat: number;
  timer?: NodeJS.Timeout;
  started?: Promise<void>;
  hosts: Map<string, { at: number; value: THostView }>;
};
const g = globalThis as unknown as { __capstanRunnerHost?: TState };
const state: TState = (g.__capstanRunnerHost ??= { endpoint: "", lastBeat: 0, hosts: new Map() });
onChange("runner-host", (id) => (id === null ? state.hosts.clear() : state.hosts.delete(id)));

/** This process's runner host id. */
export function localHostId(): string {
  return runner().hostId;
}

/**
 * Registers (or renews) this host: live again, lease extended. A host that
 * had been declared lost comes back with nothing: its deployments failed
 * meanwhile and its reconciler removes their processes.
 */
export async function heartbeat(): Promise<void> {
  const e = env();
  const id = localHostId();
  const leaseSecs = e.CAPSTAN_RUNNER_LEASE_MS / 1000;
  state.sandbox ??= await runner()
    .isolation(DEFAULT_PLAN_LIMITS.free)
    .then(
      (i) => i.sandbox ?? "none",
      () => null,
    );
  const rows = await db().$queryRaw<{ was: string | null }[]>`
    WITH prev AS (SELECT state FROM runner_hosts WHERE id = ${id})
    INSERT INTO runner_hosts (id, endpoint, capacity, state, pid, last_heartbeat_at, lease_expires_at, sandbox)
    VALUES (${id}, ${state.endpoint}, ${e.CAPSTAN_RUNNER_CAPACITY}, 'live', ${process.pid}, now(), now() + make_interval(secs => ${leaseSecs}), ${state.sandbox})
    ON CONFLICT (id) DO UPDATE SET endpoint = EXCLUDED.endpoint, capacity = EXCLUDED.capacity, state = 'live', lost_at = NULL, pid = EXCLUDED.pid,
      last_heartbeat_at = now(), lease_expires_at = EXCLUDED.lease_expires_at, updated_at = now(), sandbox = EXCLUDED.sandbox
    RETURNING (SELECT state FROM prev) AS was`;
  const was = rows[0]?.was ?? null;
  if (was !== "live") {
    if (was === "lost") logger.warn("runner.host_regained", { runner_host: id });
    else logger.info("runner.host_registered", { runner_host: id, endpoint: state.endpoint });
    signalChange("runner-host", id);
  }
  state.lastBeat = Date.now();
}

/** Placement needs a live registration: a process that places without the runner role registers lazily (tests, tools). */
export async function ensureRegistered(): Promise<void> {
  if (Date.now() - state.lastBeat < env().CAPSTAN_RUNNER_HEARTBEAT_MS) return;
  await heartbeat();
}

/**
 * The runner role: the gateway listens, the host registers and its lease is
 * renewed every CAPSTAN_RUNNER_HEARTBEAT_MS (a failed renewal is logged and
 * retried next beat; the lease outlasts several).
 */
export function startRunnerRole(): Promise<void> {
  return (state.started ??= (async () => {
    const e = env();
    const gw = await startGateway(e.CAPSTAN_RUNNER_LISTEN);
    const host = gw.host === "0.0.0.0" || gw.host === "::" ? os.hostname() : gw.host;
    state.endpoint = e.CAPSTAN_RUNNER_ENDPOINT ?? `http://${host.includes(":") ? `[${host}]` : host}:${gw.port}`;
    gw.server.unref();
    await heartbeat();
    state.timer = setInterval(() => {
      heartbeat().catch((err: unknown) =>
        logger.error("runner.heartbeat_failed", { runner_host: localHostId(), error: String(err) }),
      );
    }, e.CAPSTAN_RUNNER_HEARTBEAT_MS);
    state.timer.unref();
    logger.info("runner.role_started", { runner_host: localHostId(), endpoint: state.endpoint });
  })());
}

async function hostView(id: string): Promise<THostView> {
  const hit = state.hosts.get(id);
  if (hit && Date.now() - hit.at < ENDPOINT_TTL_MS) return hit.value;
  const row = await db().runnerHost.findUnique({ where: { id }, select: { endpoint: true, state: true } });
  const value = row ? { endpoint: row.endpoint, state: row.state } : null;
  if (state.hosts.size > 1_000) state.hosts.clear();
  state.hosts.set(id, { at: Date.now(), value });
  return value;
}

/** The runner operations for a deployment's host: this process's runner, the host's gateway, or nothing (lost, unknown). */
export async function runnerFor(runnerHost: string | null): Promise<TRunnerOps> {
  if (!runnerHost || runnerHost === localHostId()) return runner();
  const view = await hostView(runnerHost);
  if (!view || view.state !== "live" || !view.endpoint) return GONE_RUNNER;
  return new RemoteRunnerOps(view.endpoint, gatewayKey());
}

/**
 * How this replica reaches a deployment's app: its ingress socket when this
 * process's runner started it, else the gateway of the host recorded on the
 * deployment. Null when that host is lost or has no gateway.
 */
export async function upstreamFor(dep: {
  id: string;
  runnerHost: string | null;
  runtime: unknown;
}): Promise<TUpstream | null> {
  const rt = dep.runtime as TRuntimeState | null;
  if (!rt) return null;
  if (!dep.runnerHost || dep.runnerHost === localHostId()) return { socketPath: rt.ingress_socket };
  const view = await hostView(dep.runnerHost);
  if (!view || view.state !== "live" || !view.endpoint) return null;
  return { origin: view.endpoint, deploymentId: dep.id, key: gatewayKey() };
}

export type TRunnerHostView = {
  id: string;
  endpoint: string;
  capacity: number;
  state: string;
  load: number;
  lease_expires_at: string;
  last_heartbeat_at: string;
};

/** Every registered host with its load (applying and active deployments), for operators and tests. */
export async function listRunnerHosts(): Promise<TRunnerHostView[]> {
  const rows = await db().$queryRaw<
    Array<{
      id: string;
      endpoint: string;
      capacity: number;
      state: string;
      load: number;
      lease_expires_at: Date;
      last_heartbeat_at: Date;
    }>
  >`
    SELECT h.id, h.endpoint, h.capacity, h.state, h.lease_expires_at, h.last_heartbeat_at,
      (SELECT count(*) FROM deployments d WHERE d.runner_host = h.id AND d.status IN ('applying', 'active'))::int AS load
      FROM runner_hosts h ORDER BY h.id`;
  return rows.map((r) => ({
    ...r,
    lease_expires_at: r.lease_expires_at.toISOString(),
    last_heartbeat_at: r.last_heartbeat_at.toISOString(),
  }));
}
