import { randomBytes } from "node:crypto";
import { seal } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import type { TManagedResource, TManagedResourceCreated, TMresKind } from "./managed-resources.contract";
import {
  change,
  connectionUrl,
  defaultEnvVar,
  eventData,
  invalid,
  limitsFor,
  lockRow,
  move,
  toResource,
  usesInclude,
  type TMres,
  type TTx,
} from "./managed-resources.model";
import { attachedDeployments, queueRestarts, usingDeployments } from "./credentials-restarts";
import { managedPostgresTarget, managedPostgresUrl } from "./postgres-admin";

/**
 * Managed resources (spec 4.4; docs/decisions.md "Managed resources"): the
 * API's use cases. Provisioning and destruction run in the worker
 * (managed-resources.worker.ts); the app receives a resource at deploy time
 * (delivery.ts). The password is generated here, sealed at once and
 * returned only in the create response.
 */
type TCaller = { userId: string; role: TRole; correlationId: string };
type TAttachInput = { product_id: string; environment_type?: "preview" | "staging" | "production"; env_var?: string };

const planOf = async (tx: TTx | ReturnType<typeof db>, workspaceId: string) =>
  (await tx.plan.findUnique({ where: { workspaceId }, select: { plan: true } }))?.plan ?? "free";

async function render(r: TMres): Promise<TManagedResource> {
  const ws = scopedDb(r.workspaceId);
  const row = await ws.managedResource.findUniqueOrThrow({ where: { id: r.id }, include: usesInclude });
  return toResource(row, await planOf(ws, r.workspaceId));
}

export async function listResources(
  workspaceId: string,
  q: TListQuery & { product_id?: string; include_deleted?: "true" | "false" },
): Promise<TPage<TManagedResource>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).managedResource.findMany({
    ...args,
    include: usesInclude,
    where: {
      ...args.where,
      ...(q.product_id ? { productId: q.product_id } : {}),
      ...(q.include_deleted === "true" ? {} : { status: { not: "deleted" } }),
    },
  });
  const plan = await planOf(scopedDb(workspaceId), workspaceId);
  return toPage(rows, q, (r) => toResource(r, plan));
}

export async function getResource(workspaceId: string, id: string): Promise<TManagedResource> {
  const row = await scopedDb(workspaceId).managedResource.findUnique({ where: { id }, include: usesInclude });
  if (!row) throw notFound(`Managed resource ${id}`);
  return toResource(row, await planOf(scopedDb(workspaceId), workspaceId));
}

/**
 * Checks an attachment: the product must be this workspace's (another
 * workspace's product is answered like a missing one), and the variable
 * must be free on that product and environment.
 */
async function checkAttach(
  tx: TTx,
  workspaceId: string,
  resourceId: string,
  kind: TMresKind,
  input: TAttachInput,
  path: string,
) {
  // tx is the workspace's scoped client: another workspace's product is not found.
  const product = await tx.product.findUnique({ where: { id: input.product_id }, select: { id: true } });
  if (!product)
    throw invalid(`${path}/product_id`, `is not a product of workspace ${workspaceId}`, "product_not_in_workspace");
  const envVar = input.env_var ?? defaultEnvVar(kind);
  const environmentType = input.environment_type ?? null;
  const clash = await tx.managedResource.findFirst({
    where: {
      productId: input.product_id,
      envVar,
      id: { not: resourceId },
      // null means every environment, so it overlaps any other choice.
      ...(environmentType ? { OR: [{ environmentType: null }, { environmentType }] } : {}),
    },
    select: { id: true, name: true },
  });
  if (clash) {
    throw new AppError(
      "conflict",
      `${envVar} of product ${input.product_id} is already given to managed resource ${clash.name} (${clash.id}); choose another env_var or detach it.`,
      {
        reason: "env_var_taken",
        errors: [{ path: `${path}/env_var`, message: "is already taken on this product" }],
      },
    );
  }
  return { productId: input.product_id, environmentType, envVar };
}

export async function createResource(
  caller: TCaller,
  workspaceId: string,
  input: { kind: TMresKind; name: string; attach?: TAttachInput },
): Promise<TManagedResourceCreated> {
  if (input.kind === "postgres" && !managedPostgresUrl()) {
    throw new AppError(
      "validation_failed",
      "Managed PostgreSQL is unavailable: Capstan runs on embedded PGlite, which cannot host a database for an app. Set CAPSTAN_MANAGED_POSTGRES_URL (or DATABASE_URL) to a PostgreSQL server Capstan may create roles and databases on.",
      {
        reason: "managed_postgres_unavailable",
        errors: [{ path: "/kind", message: "postgres is unavailable on this installation" }],
      },
    );
  }
  const id = newId("mres");
  const ident = `mres_${id.slice(5)}`;
  const password = input.kind === "postgres" ? randomBytes(32).toString("base64url") : null;
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    // One writer per workspace: the count and the name check cannot be raced.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"mres:" + workspaceId}, 0))`;
    const plan = await planOf(tx, workspaceId);
    const { count } = limitsFor(plan);
    const held = await tx.managedResource.count({ where: { workspaceId, status: { not: "deleted" } } });
    if (held >= count) {
      throw new AppError(
        "validation_failed",
        `The ${plan} plan allows ${count} managed resources and this workspace has ${held}; delete one or change the plan.`,
        {
          reason: "managed_resource_limit_exceeded",
          extensions: { limit: count, plan },
        },
      );
    }
    if (
      await tx.managedResource.findFirst({
        where: { workspaceId, name: input.name, status: { not: "deleted" } },
        select: { id: true },
      })
    ) {
      throw new AppError("conflict", `A managed resource named ${input.name} already exists in this workspace.`, {
        reason: "name_taken",
        errors: [{ path: "/name", message: "is already taken" }],
      });
    }
    const attach = input.attach ? await checkAttach(tx, workspaceId, id, input.kind, input.attach, "/attach") : null;
    const now = new Date();
    const created = await tx.managedResource.create({
      data: {
        id,
        workspaceId,
        name: input.name,
        kind: input.kind,
        status: "provisioning",
        ...(attach ? { ...attach, attachedAt: now } : {}),
        ...(password ? { dbName: ident, roleName: ident, sealedSecret: seal(JSON.stringify({ password }), id) } : {}),
        createdBy: caller.userId,
        createdAt: now,
        updatedAt: now,
      },
    });
    if (password) {
      // Its first login role, which also owns the database (docs/decisions.md "Credentials: rotation with an overlap, read-only roles").
      await tx.managedResourceCredential.create({
        data: {
          id: newId("mcred"),
          workspaceId,
          resourceId: id,
          kind: "primary",
          roleName: ident,
          status: "active",
          createdBy: caller.userId,
          activatedAt: now,
          createdAt: now,
          updatedAt: now,
        },
      });
    }
    await emitEvent(tx, {
      workspaceId,
      type: "managed_resource.changed",
      correlationId: caller.correlationId,
      subject: id,
      data: eventData(created, null, "create"),
    });
    return created;
  });
  const secret = password && managedPostgresTarget() ? { password, url: connectionUrl(ident, password, ident) } : null;
  return { ...(await render(row)), secret };
}

/** Detach: data kept, future deployments no longer receive it, open connections finish, new ones are refused. */
export async function detachResource(caller: TCaller, workspaceId: string, id: string): Promise<TManagedResource> {
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const r = await lockRow(tx, workspaceId, id);
    if (!r.productId)
      throw new AppError("conflict", `Managed resource ${r.name} is not attached.`, { reason: "not_attached" });
    // The running deployments that received it are restarted without it, one at a time.
    await queueRestarts(tx, id, await usingDeployments(tx, id, r.productId), "managed_resource_detached");
    return change(
      tx,
      r,
      "detach",
      { productId: null, environmentType: null, envVar: null, attachedAt: null, detachedAt: new Date() },
      caller.correlationId,
    );
  });
  return render(row);
}

/**
 * Reattach: to the same or another product of the workspace. On a resource
 * scheduled for deletion it is the restore: the deletion is cancelled.
 */
export async function reattachResource(
  caller: TCaller,
  workspaceId: string,
  id: string,
  input: TAttachInput,
): Promise<TManagedResource> {
  await scopedDb(workspaceId).$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"mres:" + workspaceId}, 0))`;
    let r = await lockRow(tx, workspaceId, id);
    if (r.status === "deleted" || r.status === "deleting") {
      throw new AppError(
        "conflict",
        `Managed resource ${r.name} is ${r.status === "deleted" ? "deleted" : "being destroyed"}; it cannot be attached.`,
        {
          reason: "illegal_transition",
          extensions: { from: r.status, event: "reattach" },
        },
      );
    }
    if (r.productId)
      throw new AppError(
        "conflict",
        `Managed resource ${r.name} is already attached to product ${r.productId}; detach it first.`,
        { reason: "already_attached", extensions: { products: [r.productId] } },
      );
    const attach = await checkAttach(tx, workspaceId, id, r.kind as TMresKind, input, "");
    if (r.status === "deletion_scheduled") {
      r = await move(tx, r, "restore", { deletionRequestedAt: null, destroyAfter: null }, caller.correlationId);
    }
    await change(tx, r, "reattach", { ...attach, attachedAt: new Date(), detachedAt: null }, caller.correlationId);
    // An available database reaches the product's running deployments by restarting them; one being provisioned, once provisioned.
    if (r.status === "available")
      await queueRestarts(
        tx,
        id,
        await attachedDeployments(tx, attach.productId, attach.environmentType),
        "managed_resource_attached",
      );
  });
  return getResource(workspaceId, id);
}

/**
 * DELETE: refused while attached (409 naming the product); otherwise the
 * destruction is scheduled after the grace period (owner may skip it).
 */
export async function deleteResource(
  caller: TCaller,
  workspaceId: string,
  id: string,
  opts: { skipGrace: boolean },
): Promise<TManagedResource> {
  if (opts.skipGrace && !roleAtLeast(caller.role, "owner")) {
    throw new AppError("forbidden", "skip_grace_period requires the owner role", { reason: "role_required" });
  }
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const r = await lockRow(tx, workspaceId, id);
    if (r.productId) {
      throw new AppError(
        "conflict",
        `Managed resource ${r.name} is attached to product ${r.productId}; detach it before deleting it (nothing was changed).`,
        {
          reason: "resource_attached",
          extensions: { products: [r.productId] },
        },
      );
    }
    const now = new Date();
    const destroyAfter = new Date(
      now.getTime() + (opts.skipGrace ? 0 : env().CAPSTAN_MRES_DELETE_GRACE_SECONDS * 1000),
    );
    if (r.status === "deletion_scheduled") {
      if (!opts.skipGrace)
        throw new AppError("conflict", `Managed resource ${r.name} is already scheduled for deletion.`, {
          reason: "deletion_scheduled",
        });
      return change(tx, r, "skip_grace", { destroyAfter: now }, caller.correlationId);
    }
    return move(tx, r, "schedule_delete", { deletionRequestedAt: now, destroyAfter }, caller.correlationId);
  });
  return render(row);
}
