import type { Access, Deployment, Session, Surface } from "@/generated/prisma/client";
import { getDb, preparedQuery } from "@/server/platform/db/client";
import { rowOf } from "@/server/platform/db/rows";
import { AppError, notFound } from "@/server/platform/errors";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";

/**
 * Everything an invocation's admission reads about its session, in ONE
 * statement (issue #34 item 3): the session, the caller's role in its
 * workspace, the access, the surface, the deployment and the release's
 * audience, joined on the keys the rows already name. Read live on every
 * invocation, so a revoked access, a closed session, a removed member or a
 * stopped deployment is seen by the very next invocation on any replica (no
 * cache, no bound to document); the price is one round trip instead of the
 * five the ORM made (session, membership, access, surface + deployment,
 * release). A named prepared statement: planned once per pooled connection.
 */
export type TInvocationContext = {
  session: Session;
  role: TRole;
  access: Access;
  surface: Surface;
  deployment: Deployment;
  /** The audience of the release the deployment serves; null when it serves none. */
  release: { audience: unknown } | null;
};

const CONTEXT_SQL = `
  SELECT to_jsonb(s) AS session, m.role, to_jsonb(a) AS access, to_jsonb(f) AS surface, to_jsonb(d) AS deployment,
         r.audience AS release_audience, d.release_id IS NOT NULL AS has_release
    FROM sessions s
    LEFT JOIN memberships m ON m.workspace_id = s.workspace_id AND m.user_id = $2
    JOIN accesses a ON a.id = s.access_id
    JOIN surfaces f ON f.id = s.surface_id
    JOIN deployments d ON d.id = f.deployment_id
    LEFT JOIN releases r ON r.id = d.release_id
   WHERE s.id = $1`;

type TRow = {
  session: Record<string, unknown>;
  role: string | null;
  access: Record<string, unknown>;
  surface: Record<string, unknown>;
  deployment: Record<string, unknown>;
  release_audience: unknown;
  has_release: boolean;
};

/**
 * The context of an invocation sent by `userId` through session `sessionId`,
 * with the same answers as `sessionFor(caller, ses, { othersNeed: "viewer" })`:
 * 404 when the session does not exist or the caller is not a member of its
 * workspace (it is not theirs to know about).
 */
export async function invocationContext(userId: string, sessionId: string): Promise<TInvocationContext> {
  await getDb();
  // Raw SQL on purpose: the invocation hot path's one read; every join follows a key of the session's own rows.
  const rows = await preparedQuery<TRow>("capstan_invocation_context", CONTEXT_SQL, [sessionId, userId]);
  const row = rows[0];
  if (!row || !row.role) throw notFound(`Session ${sessionId}`);
  const session = rowOf<Session>(row.session);
  // A viewer or above may send through another member's session (recorded, then denied by the permission check).
  if (session.accountId !== userId && !roleAtLeast(row.role as TRole, "viewer")) {
    throw new AppError("forbidden", `Session ${sessionId} belongs to another account`, {
      reason: "not_session_account",
    });
  }
  return {
    session,
    role: row.role as TRole,
    access: rowOf<Access>(row.access),
    surface: rowOf<Surface>(row.surface),
    deployment: rowOf<Deployment>(row.deployment),
    release: row.has_release ? { audience: row.release_audience ?? null } : null,
  };
}
