import type { ManagedResource, ManagedResourceCredential, Prisma } from "@/generated/prisma/client";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { emitEvent } from "@/server/platform/outbox";
import { iso } from "@/server/platform/time";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import type {
  MRES_ENVIRONMENTS,
  MRES_FAILURE_CODES,
  TManagedCredential,
  TManagedResource,
  TMresKind,
} from "./managed-resources.contract";
import { MRES, type TMresEvent, type TMresState } from "./managed-resources.states";
import { managedPostgresTarget } from "./postgres-admin";

/**
 * The row <-> wire mapping, the plan limits and the one function that moves
 * a resource's status (inside the caller's transaction, with its event).
 */
const GiB = 1024 ** 3;
/** Per plan: resources that are not deleted, and the size each may reach (docs/hosted-apps.md "Managed resources"). */
export const MRES_LIMITS: Record<TPlanName, { count: number; maxSizeBytes: number; connections: number }> = {
  free: { count: 2, maxSizeBytes: 1 * GiB, connections: 5 },
  team: { count: 20, maxSizeBytes: 20 * GiB, connections: 20 },
  enterprise: { count: 200, maxSizeBytes: 200 * GiB, connections: 100 },
};
export const limitsFor = (plan: string) => MRES_LIMITS[plan as TPlanName] ?? MRES_LIMITS.free;
/** The size a resource may reach: the plan's, or less where the operator caps it (CAPSTAN_MRES_MAX_SIZE_BYTES). */
export const maxSizeBytesFor = (plan: string) =>
  Math.min(limitsFor(plan).maxSizeBytes, env().CAPSTAN_MRES_MAX_SIZE_BYTES ?? Infinity);

export type TTx = Prisma.TransactionClient;
/** A row as the client returns it: the sealed secret is omitted unless a query opts in. */
export type TMres = Omit<ManagedResource, "sealedSecret">;
type TEnv = (typeof MRES_ENVIRONMENTS)[number];
export type TRowWithUses = TMres & {
  uses?: Array<{ deploymentId: string; envVar: string; deployment: { environmentType: string; productId: string } }>;
  credentials?: ManagedResourceCredential[];
};

/** The login roles a resource shows: the live ones (a pending one exists only inside a request; revoked and failed ones are history). */
export const LIVE_CREDENTIAL_STATUSES = ["active", "retiring", "revoking"] as const;

export function toCredential(c: ManagedResourceCredential): TManagedCredential {
  return {
    username: c.roleName,
    access: c.kind === "read_only" ? "read_only" : "read_write",
    status: c.status as TManagedCredential["status"],
    created_at: iso(c.activatedAt ?? c.createdAt),
    expires_at: c.status === "retiring" && c.expiresAt ? iso(c.expiresAt) : null,
  };
}

/** Active deployments that received the resource (toResource keeps those of the current attachment). */
export const usesInclude = {
  uses: {
    where: { deployment: { status: "active" } },
    include: { deployment: { select: { environmentType: true, productId: true } } },
    orderBy: { createdAt: "asc" },
  },
  credentials: {
    where: { status: { in: [...LIVE_CREDENTIAL_STATUSES] } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  },
} satisfies Prisma.ManagedResourceInclude;

export const defaultEnvVar = (kind: TMresKind) => (kind === "postgres" ? "DATABASE_URL" : "BUCKET_URL");

export function connectionOf(r: TMres): TManagedResource["connection"] {
  if (r.status === "deleted") return null;
  if (r.kind === "postgres") {
    const t = managedPostgresTarget();
    return {
      database: r.dbName ?? undefined,
      username: r.roleName ?? undefined,
      ...(t ? { host: t.host, port: t.port } : {}),
    };
  }
  return { namespace: r.id };
}

export function toResource(r: TRowWithUses, plan: string): TManagedResource {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    name: r.name,
    kind: r.kind as TMresKind,
    status: r.status as TMresState,
    attachment: r.productId
      ? {
          product_id: r.productId,
          environment_type: (r.environmentType as TEnv | null) ?? null,
          env_var: r.envVar ?? defaultEnvVar(r.kind as TMresKind),
          attached_at: iso(r.attachedAt ?? r.updatedAt),
        }
      : null,
    // Deployments that may still use it: once detached (or moved), running ones are refused new connections.
    used_by: (r.uses ?? [])
      .filter(
        (u) =>
          u.deployment.productId === r.productId &&
          (r.environmentType === null || r.environmentType === u.deployment.environmentType),
      )
      .map((u) => ({
        deployment_id: u.deploymentId,
        environment_type: u.deployment.environmentType as TEnv,
        env_var: u.envVar,
      })),
    connection: connectionOf(r),
    size_bytes: Number(r.sizeBytes),
    size_measured_at: r.sizeMeasuredAt ? iso(r.sizeMeasuredAt) : null,
    limits: { max_size_bytes: maxSizeBytesFor(plan) },
    deletion:
      r.deletionRequestedAt && r.destroyAfter && (r.status === "deletion_scheduled" || r.status === "deleting")
        ? { requested_at: iso(r.deletionRequestedAt), destroy_after: iso(r.destroyAfter) }
        : null,
    failure: r.failureCode
      ? { code: r.failureCode as (typeof MRES_FAILURE_CODES)[number], message: r.failureMessage ?? "" }
      : null,
    restarts: restartsView(r),
    credentials:
      r.status === "deleted"
        ? []
        : (r.credentials ?? [])
            .filter((c) => (LIVE_CREDENTIAL_STATUSES as readonly string[]).includes(c.status))
            .map(toCredential),
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
    deleted_at: r.deletedAt ? iso(r.deletedAt) : null,
  };
}

/** The event body of a change: never the secret. */
export function eventData(r: TMres, from: string | null, step: string): Record<string, unknown> {
  return {
    resource_id: r.id,
    kind: r.kind,
    name: r.name,
    step,
    from,
    to: r.status,
    attachment: r.productId
      ? { product_id: r.productId, environment_type: r.environmentType, env_var: r.envVar }
      : null,
    destroy_after: r.destroyAfter && r.status === "deletion_scheduled" ? iso(r.destroyAfter) : null,
    failure: r.failureCode ? { code: r.failureCode, message: r.failureMessage } : null,
  };
}

export async function lockRow(tx: TTx, workspaceId: string | null, id: string): Promise<TMres> {
  await tx.$queryRaw`SELECT "id" FROM "managed_resources" WHERE "id" = ${id} FOR UPDATE`;
  const r = await tx.managedResource.findUnique({ where: { id } });
  if (!r || (workspaceId !== null && r.workspaceId !== workspaceId)) throw notFound(`Managed resource ${id}`);
  return r;
}

/**
 * Writes a status move (and any other columns) and its event. The row must
 * be locked by the caller (lockRow); an edge not in the table is a 409.
 */
export async function move(
  tx: TTx,
  r: TMres,
  event: TMresEvent,
  data: Prisma.ManagedResourceUncheckedUpdateInput,
  correlationId: string,
): Promise<TMres> {
  const to = MRES.next(r.status as TMresState, event);
  const row = await tx.managedResource.update({
    where: { id: r.id },
    data: { ...data, status: to, updatedAt: new Date() },
  });
  await emitEvent(tx, {
    workspaceId: r.workspaceId,
    type: "managed_resource.changed",
    correlationId,
    subject: r.id,
    data: eventData(row, r.status, event),
  });
  return row;
}

/** A change of the attachment only (no status move), with its event. */
export async function change(
  tx: TTx,
  r: TMres,
  step: string,
  data: Prisma.ManagedResourceUncheckedUpdateInput,
  correlationId: string,
): Promise<TMres> {
  const row = await tx.managedResource.update({ where: { id: r.id }, data: { ...data, updatedAt: new Date() } });
  await emitEvent(tx, {
    workspaceId: r.workspaceId,
    type: "managed_resource.changed",
    correlationId,
    subject: r.id,
    data: eventData(row, r.status, step),
  });
  return row;
}

export const invalid = (path: string, message: string, reason?: string) =>
  new AppError("validation_failed", `${path.slice(1).replace(/\//g, ".")} ${message}`, {
    errors: [{ path, message }],
    ...(reason ? { reason } : {}),
  });

/** A connection URL for a login role, naming the managed server as Capstan reaches it (null without one). */
export function connectionUrl(user: string, password: string, database: string): string {
  const target = managedPostgresTarget();
  if (!target) return "";
  const socket = target.host.startsWith("/");
  return `postgresql://${user}:${password}@${socket ? "" : `${target.host}:${target.port}`}/${database}${socket ? `?host=${encodeURIComponent(target.host)}` : ""}`;
}

/** A restart queue as stored (JSON array of deployment ids). */
export const queueOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** The restarts of a resource as the API shows them. */
export function restartsView(r: {
  restartQueue: unknown;
  restartCurrent: string | null;
  restartReason: string | null;
}) {
  const queued = queueOf(r.restartQueue);
  return r.restartCurrent || queued.length
    ? { reason: r.restartReason ?? "credentials_changed", in_progress: r.restartCurrent, queued }
    : null;
}
