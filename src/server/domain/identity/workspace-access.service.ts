import { writeAuditStandalone } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import type { TPrincipal } from "@/server/trpc/context";

export const ROLES = ["owner", "admin", "developer", "viewer"] as const;
export type TRole = (typeof ROLES)[number];
const RANK: Record<TRole, number> = { owner: 4, admin: 3, developer: 2, viewer: 1 };

export function roleAtLeast(role: TRole, min: TRole): boolean {
  return RANK[role] >= RANK[min];
}

export type TWorkspaceAccess = { workspaceId: string; role: TRole; userId: string };

/** Checks membership and role; audits and throws 403 when it fails. */
export async function resolveWorkspaceAccess(opts: {
  principal: TPrincipal;
  workspaceId: string;
  minRole: TRole;
  correlationId: string;
  operation: string;
}): Promise<TWorkspaceAccess> {
  const membership = await scopedDb(opts.workspaceId).membership.findUnique({
    where: { workspaceId_userId: { workspaceId: opts.workspaceId, userId: opts.principal.userId } },
    select: { role: true },
  });
  const actor = { kind: "user" as const, id: opts.principal.userId };
  if (!membership) {
    // Only audit on a workspace that exists; unknown ids get the same 403 so ids cannot be probed.
    const exists = await scopedDb(opts.workspaceId).workspace.findUnique({
      where: { id: opts.workspaceId },
      select: { id: true },
    });
    if (exists) {
      await writeAuditStandalone({
        workspaceId: opts.workspaceId,
        actor,
        action: "authz.workspace_mismatch",
        correlationId: opts.correlationId,
        details: { operation: opts.operation },
      });
    }
    throw new AppError("forbidden", `You are not a member of workspace ${opts.workspaceId}`, {
      reason: "workspace_mismatch",
    });
  }
  const role = membership.role as TRole;
  if (!roleAtLeast(role, opts.minRole)) {
    await writeAuditStandalone({
      workspaceId: opts.workspaceId,
      actor,
      action: "authz.forbidden",
      correlationId: opts.correlationId,
      details: { operation: opts.operation, role, required_role: opts.minRole },
    });
    throw new AppError("forbidden", `This operation requires the ${opts.minRole} role or higher; you are ${role}`, {
      reason: "role_required",
    });
  }
  return { workspaceId: opts.workspaceId, role, userId: opts.principal.userId };
}
