import { z } from "zod";
import { AppError } from "@/server/platform/errors";
import { zWorkspaceId } from "@/server/platform/ids";
import { invalidToken } from "@/server/domain/signing-keys/jwt.service";
import { resolveWorkspaceAccess, type TRole } from "@/server/domain/identity/workspace-access.service";
import { middleware, publicProcedure } from "./init";

export { publicProcedure };

/** Narrows ctx.principal to non-null; a refused or missing credential is a 401 with its challenge. */
export const authedProcedure = publicProcedure.use(
  middleware(({ ctx, next }) => {
    if (!ctx.principal) throw ctx.authError ?? invalidToken("no bearer token was presented");
    return next({ ctx: { ...ctx, principal: ctx.principal } });
  }),
);

export const zWsInput = z.object({ ws: zWorkspaceId });

/**
 * A procedure scoped to the `{ws}` path parameter, requiring at least `role`.
 * Not a member: 403 (audited authz.workspace_mismatch). Member below the role:
 * 403 (audited authz.forbidden). Roles are read live on every call.
 * tRPC hands every input parser the whole input (body + path params), so a
 * strict body schema of such a procedure must `.extend({ ws: zWorkspaceId })`
 * (and any other path params) or it would reject the path params.
 */
export function workspaceProcedure(role: TRole) {
  return authedProcedure.input(zWsInput).use(async ({ ctx, input, next, path }) => {
    const access = await resolveWorkspaceAccess({
      principal: ctx.principal,
      workspaceId: input.ws,
      minRole: role,
      correlationId: ctx.correlationId,
      operation: path,
    });
    return next({ ctx: { ...ctx, workspace: access } });
  });
}

/** The same, for the one spec path that names its parameter `{workspace_id}` (capability-contract). */
export function workspaceIdProcedure(role: TRole) {
  return authedProcedure.input(z.object({ workspace_id: zWorkspaceId })).use(async ({ ctx, input, next, path }) => {
    const access = await resolveWorkspaceAccess({
      principal: ctx.principal,
      workspaceId: input.workspace_id,
      minRole: role,
      correlationId: ctx.correlationId,
      operation: path,
    });
    return next({ ctx: { ...ctx, workspace: access } });
  });
}

/** Owner or admin of ws_platform. */
export const platformAdminProcedure = authedProcedure.use(async ({ ctx, next, path }) => {
  const access = await resolveWorkspaceAccess({
    principal: ctx.principal,
    workspaceId: "ws_platform",
    minRole: "admin",
    correlationId: ctx.correlationId,
    operation: path,
  });
  return next({ ctx: { ...ctx, platform: access } });
});

export { AppError };
