import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZBackup, ZBackupList, ZBackupListQuery, ZBackupPath, ZRestore, ZRestoreRequest } from "./backups.contract";
import * as backups from "./backups.service";

/** Backups and restores of postgres resources: reads for members, backups and forks for admins, restoring over a resource for owners. */
const tags = ["Managed resources"];
const base = "/v1/workspaces/{ws}/managed-resources/{mres}";
const caller = (ctx: {
  principal: { userId: string };
  workspace: { role: Parameters<typeof backups.requestBackup>[0]["role"] };
  correlationId: string;
}) => ({
  userId: ctx.principal.userId,
  role: ctx.workspace.role,
  correlationId: ctx.correlationId,
});

export const backupsRouter = router({
  create: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/backups`,
        tags,
        summary:
          "Take a backup of a postgres resource now (pg_dump, encrypted with the workspace's key; kept per plan)",
      },
      successStatus: 202,
    })
    .input(ZBackupPath.omit({ bak: true }).strict())
    .output(ZBackup)
    .mutation(({ ctx, input }) => backups.requestBackup(caller(ctx), ctx.workspace.workspaceId, input.mres)),

  list: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/backups`,
        tags,
        summary: "List a resource's backups (scheduled, on demand and before destruction), newest first",
      },
    })
    .input(ZBackupListQuery)
    .output(ZBackupList)
    .query(({ ctx, input }) => backups.listBackups(ctx.workspace.workspaceId, input.mres, input)),

  get: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: `${base}/backups/{bak}`, tags, summary: "Get a backup" } })
    .input(ZBackupPath)
    .output(ZBackup)
    .query(({ ctx, input }) => backups.getBackup(ctx.workspace.workspaceId, input.mres, input.bak)),

  restore: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: `${base}/backups/{bak}/restore`,
        tags,
        summary:
          "Restore a backup into a new resource (fork) or over this one (in_place: owner only, confirm = its name)",
      },
      successStatus: 202,
    })
    .input(ZRestoreRequest.extend({ ws: zWorkspaceId, mres: zId("mres"), bak: zId("bak") }))
    .output(ZRestore)
    .mutation(({ ctx, input }) =>
      backups.requestRestore(caller(ctx), ctx.workspace.workspaceId, input.mres, input.bak, input),
    ),

  getRestore: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: `${base}/restores/{rst}`,
        tags,
        summary: "Get a restore (its status and the resource it fills)",
      },
    })
    .input(ZBackupPath.omit({ bak: true }).extend({ rst: zId("rst") }))
    .output(ZRestore)
    .query(({ ctx, input }) => backups.getRestore(ctx.workspace.workspaceId, input.mres, input.rst)),
});
