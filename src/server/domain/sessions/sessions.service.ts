import type { Session } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import type { TSession } from "./sessions.contract";
import { qualifyAccess, roleIn, toSession, type TCaller } from "./access.service";

/**
 * Sessions (spec 2.13). Opening one qualifies (or reuses) the caller's
 * access to the surface. Sessions live at /v1/sessions/{ses}, outside a
 * workspace path: a caller who is not a member of the session's workspace
 * gets 404 (it is not theirs to know about); a member who is neither the
 * session's account nor an owner/admin gets 403.
 */
export async function openSession(caller: TCaller, surfaceId: string): Promise<TSession> {
  const { access } = await qualifyAccess(caller, surfaceId);
  const sdb = scopedDb(access.workspaceId);
  const srf = await sdb.surface.findUniqueOrThrow({ where: { id: surfaceId } });
  const session = await sdb.$transaction(async (tx) => {
    const s = await tx.session.create({
      data: {
        id: newId("ses"),
        workspaceId: access.workspaceId,
        productId: access.productId,
        surfaceId,
        accountId: caller.userId,
        accessId: access.id,
        environmentId: srf.environmentId,
      },
    });
    await tx.access.update({ where: { id: access.id }, data: { sessionId: s.id, updatedAt: new Date() } });
    await emitEvent(tx, {
      workspaceId: s.workspaceId,
      type: "session.changed",
      correlationId: caller.correlationId,
      subject: s.id,
      data: { session_id: s.id, surface_id: surfaceId, state: "active" },
    });
    return s;
  });
  return toSession(session);
}

/** The session, if the caller may see it: its account, or an owner/admin of its workspace (`minRole` for others). */
export async function sessionFor(
  caller: TCaller,
  sessionId: string,
  opts: { othersNeed?: TRole } = {},
): Promise<{ session: Session; role: TRole }> {
  // platform-scoped: /v1/sessions/{ses} names no workspace; the row names it and membership is checked next.
  const session = await db().session.findUnique({ where: { id: sessionId } });
  if (!session) throw notFound(`Session ${sessionId}`);
  const role = await roleIn(session.workspaceId, caller.userId);
  if (!role) throw notFound(`Session ${sessionId}`);
  if (session.accountId !== caller.userId && !roleAtLeast(role, opts.othersNeed ?? "admin")) {
    throw new AppError("forbidden", `Session ${sessionId} belongs to another account`, {
      reason: "not_session_account",
    });
  }
  return { session, role };
}

export async function getSession(caller: TCaller, sessionId: string): Promise<TSession> {
  return toSession((await sessionFor(caller, sessionId, { othersNeed: "viewer" })).session);
}

export async function closeSession(caller: TCaller, sessionId: string): Promise<TSession> {
  const { session } = await sessionFor(caller, sessionId);
  const now = new Date();
  return scopedDb(session.workspaceId).$transaction(async (tx) => {
    const moved = await tx.session.updateMany({
      where: { id: sessionId, state: "active" },
      data: { state: "closed", closedAt: now, closedReason: "closed", updatedAt: now },
    });
    if (moved.count !== 1)
      throw new AppError("conflict", `Session ${sessionId} is already closed`, { reason: "session_closed" });
    await emitEvent(tx, {
      workspaceId: session.workspaceId,
      type: "session.changed",
      correlationId: caller.correlationId,
      subject: sessionId,
      data: { session_id: sessionId, surface_id: session.surfaceId, state: "closed" },
    });
    return toSession(await tx.session.findUniqueOrThrow({ where: { id: sessionId } }));
  });
}

export async function listSessions(
  workspaceId: string,
  q: TListQuery & { surface_id?: string; state?: "active" | "closed" },
): Promise<TPage<TSession>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).session.findMany({
    ...args,
    where: {
      ...args.where,
      ...(q.surface_id ? { surfaceId: q.surface_id } : {}),
      ...(q.state ? { state: q.state } : {}),
    },
  });
  return toPage(rows, q, toSession);
}
