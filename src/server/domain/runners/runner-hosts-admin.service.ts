import { createHash } from "node:crypto";
import type { RunnerHost } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { signalChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { notFound } from "@/server/platform/errors";
import { PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import type { TRunnerHost } from "./runners.contract";

/**
 * Operators' view of the runner hosts and their cordon (issue #35 item 4).
 * Cordoned: the host keeps running its apps and renewing its lease, but no
 * planned deployment is placed on it (apply.service.ts's claim skips it, and it
 * does not count as a less-loaded host either). Audited on ws_platform.
 * Platform-scoped by design: runner hosts serve every workspace.
 */
type TCaller = { userId: string; correlationId: string };

/** The URL-safe handle of a host name (`hostname:dir` holds `:` and `/`). */
export function hostHandle(name: string): string {
  return "rh_" + createHash("sha256").update(name).digest("hex").slice(0, 20);
}

async function view(h: RunnerHost, load: number): Promise<TRunnerHost> {
  return {
    id: hostHandle(h.id),
    name: h.id,
    endpoint: h.endpoint,
    capacity: h.capacity,
    load,
    state:
      h.state === "lost"
        ? "lost"
        : h.drainedAt
          ? "drained"
          : h.drainingAt
            ? "draining"
            : h.cordonedAt
              ? "cordoned"
              : "live",
    sandbox: h.sandbox,
    last_heartbeat_at: h.lastHeartbeatAt.toISOString(),
    lease_expires_at: h.leaseExpiresAt.toISOString(),
    cordoned_at: h.cordonedAt?.toISOString() ?? null,
    started_at: h.startedAt.toISOString(),
    draining_at: h.drainingAt?.toISOString() ?? null,
    drained_at: h.drainedAt?.toISOString() ?? null,
    drain: h.drainingAt && !h.drainedAt && h.state !== "lost" ? await drainProgress(h.id, h.drainingAt) : null,
  };
}

/** One host as operators see it, by its name. */
export async function hostView(id: string): Promise<TRunnerHost> {
  // platform-scoped: the registry of runner hosts (PLATFORM_GLOBAL).
  const h = await db().runnerHost.findUniqueOrThrow({ where: { id } });
  return view(h, (await loads()).get(id) ?? 0);
}

async function loads(): Promise<Map<string, number>> {
  // platform-scoped: deployments of every workspace count towards their host's load.
  const rows = await db().deployment.groupBy({
    by: ["runnerHost"],
    where: { status: { in: ["applying", "active"] }, runnerHost: { not: null } },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.runnerHost!, r._count._all]));
}

export async function listRunnerHostViews(): Promise<{ items: TRunnerHost[] }> {
  // platform-scoped: the registry of runner hosts (PLATFORM_GLOBAL).
  const [hosts, load] = await Promise.all([db().runnerHost.findMany({ orderBy: { id: "asc" } }), loads()]);
  return { items: await Promise.all(hosts.map((h) => view(h, load.get(h.id) ?? 0))) };
}

export async function byHandle(handle: string): Promise<RunnerHost> {
  // platform-scoped: the registry of runner hosts (PLATFORM_GLOBAL); a handle is a hash, so the few hosts are scanned.
  const hosts = await db().runnerHost.findMany();
  const host = hosts.find((h) => hostHandle(h.id) === handle);
  if (!host) throw notFound(`Runner host ${handle}`);
  return host;
}

/** Cordon (no new placements) or lift it, which also ends a drain; idempotent (a repeat changes and audits nothing). */
export async function setCordon(caller: TCaller, handle: string, cordoned: boolean): Promise<TRunnerHost> {
  const host = await byHandle(handle);
  // platform-scoped: the host row and a ws_platform audit record, in one transaction.
  const updated = await db().$transaction(async (tx) => {
    // platform-scoped: the host row (PLATFORM_GLOBAL); compare-and-set on its cordon.
    const moved = await tx.runnerHost.updateMany({
      where: { id: host.id, cordonedAt: cordoned ? null : { not: null } },
      data: cordoned
        ? { cordonedAt: new Date(), cordonedBy: caller.userId }
        : { cordonedAt: null, cordonedBy: null, drainingAt: null, drainedAt: null, drainedBy: null },
    });
    if (moved.count) {
      await writeAudit(tx, {
        workspaceId: PLATFORM_WORKSPACE_ID,
        actor: { kind: "user", id: caller.userId },
        action: cordoned ? "runner_host.cordoned" : "runner_host.uncordoned",
        target: { kind: "runner_host", id: hostHandle(host.id) },
        correlationId: caller.correlationId,
        details: { name: host.id },
      });
    }
    // platform-scoped: the same host row, re-read.
    return tx.runnerHost.findUniqueOrThrow({ where: { id: host.id } });
  });
  signalChange("runner-host", host.id);
  return view(updated, (await loads()).get(host.id) ?? 0);
}

/** In words, where a drain stands (null when the host is not draining). */
export async function drainProgress(
  hostId: string,
  drainingAt: Date | null,
): Promise<{ remaining: number; message: string } | null> {
  if (!drainingAt) return null;
  // platform-scoped: the host's deployments of every workspace, and their replacements.
  const left = await db().deployment.findMany({
    where: { runnerHost: hostId, status: { in: ["applying", "active"] } },
    orderBy: { createdAt: "asc" },
    select: { id: true },
  });
  if (!left.length) return { remaining: 0, message: "No deployment is left on this host." };
  // platform-scoped: replacements of this host's deployments.
  const reps = await db().deployment.findMany({
    where: { replacesDeploymentId: { in: left.map((d) => d.id) }, createdAt: { gte: drainingAt } },
    orderBy: { createdAt: "desc" },
  });
  const moving = reps.find((r) => r.status === "planned" || r.status === "applying");
  const stuck = left.filter(
    (d) =>
      reps.some((r) => r.replacesDeploymentId === d.id && r.status === "failed") &&
      !(moving?.replacesDeploymentId === d.id),
  );
  const parts = [`${left.length} deployment${left.length === 1 ? "" : "s"} left.`];
  if (moving) {
    const waiting = (moving.findings as Array<{ code?: string; message?: string }>).find(
      (f) => f.code === "no_runner_capacity",
    );
    parts.push(
      `Replacing ${moving.replacesDeploymentId} with ${moving.id} (${moving.status}${waiting ? `: ${waiting.message}` : ""}).`,
    );
  }
  if (stuck.length)
    parts.push(
      `The replacement of ${stuck.map((d) => d.id).join(", ")} failed (see its findings): stop or redeploy ${stuck.length === 1 ? "it" : "them"} to finish the drain.`,
    );
  return { remaining: left.length, message: parts.join(" ") };
}
