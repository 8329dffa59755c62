import type { Membership, User, Workspace } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { emitEvent } from "@/server/platform/outbox";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import type { TMember, TWorkspace } from "./workspaces.contract";

type TCaller = { userId: string; correlationId: string };

function toWorkspace(w: Workspace & { plan: { plan: string } | null }, role: string): TWorkspace {
  return {
    id: w.id,
    name: w.name,
    plan: (w.plan?.plan ?? "free") as TWorkspace["plan"],
    role: role as TRole,
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  };
}

function toMember(m: Membership & { user: Pick<User, "email" | "name"> }): TMember {
  return {
    id: m.id,
    workspace_id: m.workspaceId,
    user_id: m.userId,
    email: m.user.email,
    name: m.user.name,
    role: m.role as TRole,
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
  };
}

/** The caller's workspaces, newest first by default (spec 4.2 GET /v1/workspaces). */
export async function listWorkspaces(userId: string, q: TListQuery): Promise<TPage<TWorkspace>> {
  const args = keysetArgs(q);
  // Platform-scoped by design: the caller's workspaces, across workspaces (membership is the filter).
  const rows = await db().workspace.findMany({
    ...args,
    where: { ...args.where, memberships: { some: { userId } } },
    include: { plan: true, memberships: { where: { userId }, select: { role: true } } },
  });
  return toPage(rows, q, (w) => toWorkspace(w, w.memberships[0]!.role));
}

export async function getWorkspace(workspaceId: string, role: TRole): Promise<TWorkspace> {
  const w = await scopedDb(workspaceId).workspace.findFirst({ include: { plan: true } });
  if (!w) throw notFound(`Workspace ${workspaceId}`);
  return toWorkspace(w, role);
}

/**
 * Renames a workspace (owner or admin). Workspace names are display names,
 * not unique (docs/decisions.md); the same name is a no-op without audit.
 */
export async function renameWorkspace(
  caller: TCaller & { role: TRole },
  workspaceId: string,
  rawName: string,
): Promise<TWorkspace> {
  const name = rawName.trim();
  await scopedDb(workspaceId).$transaction(async (tx) => {
    const w = await tx.workspace.findFirst();
    if (!w) throw notFound(`Workspace ${workspaceId}`);
    if (w.name === name) return;
    await tx.workspace.update({ where: { id: workspaceId }, data: { name, updatedAt: new Date() } });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "workspace.renamed",
      target: { kind: "workspace", id: workspaceId },
      correlationId: caller.correlationId,
      details: { from: w.name, to: name },
    });
  });
  return getWorkspace(workspaceId, caller.role);
}

/** Creates a workspace on the free plan; the creator becomes its owner. */
export async function createWorkspace(caller: TCaller, name: string): Promise<TWorkspace> {
  const id = newId("ws");
  // Platform-scoped by design: a new workspace is created by the platform (the scoped client refuses it).
  return db().$transaction(async (tx) => {
    const w = await tx.workspace.create({
      data: {
        id,
        name,
        createdById: caller.userId,
        plan: { create: { plan: "free" } },
        memberships: { create: { id: newId("mem"), userId: caller.userId, role: "owner" } },
      },
      include: { plan: true },
    });
    await writeAudit(tx, {
      workspaceId: id,
      actor: { kind: "user", id: caller.userId },
      action: "member.upserted",
      target: { kind: "user", id: caller.userId },
      correlationId: caller.correlationId,
      details: { role: "owner", reason: "workspace_created", name },
    });
    await emitEvent(tx, {
      workspaceId: id,
      type: "workspace.created",
      correlationId: caller.correlationId,
      subject: id,
      data: { workspace_id: id, name, owner_id: caller.userId },
    });
    return toWorkspace(w, "owner");
  });
}

export async function listMembers(workspaceId: string, q: TListQuery): Promise<TPage<TMember>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).membership.findMany({ ...args, include: { user: true } });
  return toPage(rows, q, toMember);
}

/**
 * Adds or changes a member. Only owners may grant or remove the owner role;
 * the last owner cannot be demoted (409). Audits member.upserted for a new
 * member and member.role_changed for a change. The caller's role is read
 * under the workspace's member lock, not taken from the authorization.
 */
export async function upsertMember(
  caller: TCaller,
  workspaceId: string,
  target: { userId?: string; email?: string },
  role: TRole,
): Promise<{ member: TMember; created: boolean }> {
  // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL).
  const user = target.userId
    ? await db().user.findUnique({ where: { id: target.userId } })
    : await db().user.findUnique({ where: { email: target.email! } });
  if (!user) throw notFound(target.userId ? `User ${target.userId}` : `A user with email ${target.email}`);

  return scopedDb(workspaceId).$transaction(async (tx) => {
    // Serialise role changes per workspace so two demotions cannot both pass the last-owner check.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"members:" + workspaceId}, 0))`;
    const existing = await tx.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId: user.id } },
    });
    // The caller's role as of now, under the lock: the authorization read may be older than a change that committed
    // while this request waited (two owners demoting each other: the second to get the lock is no longer an owner).
    const current = await tx.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId: caller.userId } },
      select: { role: true },
    });
    if (!current || !roleAtLeast(current.role as TRole, "admin")) {
      throw new AppError("forbidden", "Your role in this workspace changed while the request waited", {
        reason: "role_required",
      });
    }
    const touchesOwner = role === "owner" || existing?.role === "owner";
    if (touchesOwner && current.role !== "owner") {
      throw new AppError("forbidden", "Only an owner can grant or remove the owner role", { reason: "role_required" });
    }
    if (existing?.role === "owner" && role !== "owner") {
      const owners = await tx.membership.count({ where: { role: "owner" } });
      if (owners <= 1) {
        throw new AppError(
          "conflict",
          "The last owner of a workspace cannot be demoted; make someone else owner first",
          {
            reason: "last_owner",
          },
        );
      }
    }
    const actor = { kind: "user" as const, id: caller.userId };
    if (existing) {
      const m = await tx.membership.update({
        where: { id: existing.id },
        data: { role, updatedAt: new Date() },
        include: { user: true },
      });
      if (existing.role !== role) {
        await writeAudit(tx, {
          workspaceId,
          actor,
          action: "member.role_changed",
          target: { kind: "user", id: user.id },
          correlationId: caller.correlationId,
          details: { from: existing.role, to: role },
        });
        await emitEvent(tx, {
          workspaceId,
          type: "member.role_changed",
          correlationId: caller.correlationId,
          subject: user.id,
          data: { workspace_id: workspaceId, user_id: user.id, from: existing.role, to: role },
        });
      }
      return { member: toMember(m), created: false };
    }
    const m = await tx.membership.create({
      data: { id: newId("mem"), workspaceId, userId: user.id, role },
      include: { user: true },
    });
    await writeAudit(tx, {
      workspaceId,
      actor,
      action: "member.upserted",
      target: { kind: "user", id: user.id },
      correlationId: caller.correlationId,
      details: { role },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "member.upserted",
      correlationId: caller.correlationId,
      subject: user.id,
      data: { workspace_id: workspaceId, user_id: user.id, role },
    });
    return { member: toMember(m), created: true };
  });
}
