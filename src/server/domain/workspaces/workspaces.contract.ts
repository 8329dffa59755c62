import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { ROLES } from "@/server/domain/identity/workspace-access.service";

/** Wire shapes for workspaces and members (spec 2.1: "Workspace fields not shown"; see docs/decisions.md). */
export const ZRole = z.enum(ROLES);

export const ZWorkspace = z
  .object({
    id: zWorkspaceId,
    name: z.string(),
    plan: z.enum(["free", "team", "enterprise"]),
    role: ZRole.describe("The caller's role in this workspace"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Workspace" });
export type TWorkspace = z.infer<typeof ZWorkspace>;

export const ZWorkspaceCreate = z.strictObject({ name: z.string().trim().min(1).max(100) });
/** PATCH /v1/workspaces/{ws}: a new display name (workspace names need not be unique, docs/decisions.md). */
export const ZWorkspaceRename = z.strictObject({ name: z.string().trim().min(1).max(100) });
export const ZWorkspaceList = zPage(ZWorkspace).meta({ id: "Workspaces" });
export const ZWorkspaceListInput = zListQuery;

export const ZMember = z
  .object({
    id: zId("mem"),
    workspace_id: zWorkspaceId,
    user_id: zId("usr"),
    email: z.string(),
    name: z.string(),
    role: ZRole,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Member" });
export type TMember = z.infer<typeof ZMember>;
export const ZMemberList = zPage(ZMember).meta({ id: "Members" });

export const ZMemberPut = z.strictObject({ role: ZRole });
export const ZMemberAdd = z.strictObject({ email: z.string().trim().toLowerCase().email().max(254), role: ZRole });
