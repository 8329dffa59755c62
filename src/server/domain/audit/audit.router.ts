import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZAuditListQuery,
  ZAuditRecord,
  ZAuditRecordGet,
  ZAuditRecordList,
  ZChainVerification,
  ZCorrelationEvents,
  ZCorrelationGet,
} from "./audit.contract";
import * as svc from "./audit.service";

const tags = ["Audit"];

export const auditRouter = router({
  list: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/audit-records",
        tags,
        summary: "List audit records",
        description:
          "Filters combine with AND; since is inclusive, until exclusive. Records of billing., credential., binding. and " +
          "service_identity. actions are visible to owners and admins only.",
      },
    })
    .input(ZAuditListQuery)
    .output(ZAuditRecordList)
    .query(({ ctx, input }) => svc.listAuditRecords(ctx.workspace.workspaceId, ctx.workspace.role, input)),

  get: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/audit-records/{aud}",
        tags,
        summary: "Get an audit record you may see",
      },
    })
    .input(ZAuditRecordGet)
    .output(ZAuditRecord)
    .query(({ ctx, input }) => svc.getAuditRecord(ctx.workspace.workspaceId, ctx.workspace.role, input.aud)),

  /** Console only (no REST path): recomputes the workspace's hash chain. */
  verify: workspaceProcedure("admin")
    .output(ZChainVerification)
    .query(({ ctx }) => svc.verifyWorkspaceChain(ctx.workspace.workspaceId)),

  correlation: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/correlations/{evt}/events",
        tags,
        summary: "Events caused by one correlation (headers only)",
        description: "Oldest first, without data. An unknown correlation id gives an empty list.",
      },
    })
    .input(ZCorrelationGet)
    .output(ZCorrelationEvents)
    .query(({ ctx, input }) => svc.listCorrelationEvents(ctx.workspace.workspaceId, input.evt)),
});
