import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery } from "@/server/platform/pagination";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import {
  ZAdjudicationRequest,
  ZEvaluation,
  ZEvaluationList,
  ZEvaluationRequest,
  ZFix,
  ZFixDecisionRequest,
  ZFixList,
  ZFixRejectRequest,
  ZFixRequest,
  ZPromoteRequest,
  ZRelease,
  ZReleaseCreateRequest,
  ZReleaseDeployment,
  ZReleaseDeploymentRequest,
  ZReleaseList,
  ZVersion,
  ZVersionList,
} from "./releases.contract";
import { RELEASE_STATES } from "./releases.states";
import * as evaluations from "./evaluations.service";
import * as fixes from "./fixes.service";
import * as promotion from "./promotion.service";
import * as releases from "./releases.service";
import * as versions from "./versions.service";

const tags = ["Evaluations, versions, releases and fixes"];
const caller = (ctx: { principal: { userId: string }; correlationId: string }) => ({
  userId: ctx.principal.userId,
  correlationId: ctx.correlationId,
});
const fixPath = "/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/fixes";
const zFixParams = { ws: zWorkspaceId, prod: zId("prod"), rev: zId("rev") };

export const releasesRouter = router({
  evaluate: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/revisions/{rev}/evaluations",
        tags,
        summary: "Evaluate a revision (runs in the worker; idempotent per request_key)",
      },
      successStatus: 202,
    })
    .input(ZEvaluationRequest.extend({ ws: zWorkspaceId, rev: zId("rev") }))
    .output(ZEvaluation)
    .mutation(({ ctx, input }) =>
      evaluations.requestEvaluation(caller(ctx), ctx.workspace.workspaceId, input.rev, input),
    ),

  evaluations: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/revisions/{rev}/evaluations",
        tags,
        summary: "List a revision's evaluations",
      },
    })
    .input(zListQuery.extend({ rev: zId("rev") }))
    .output(ZEvaluationList)
    .query(({ ctx, input }) => evaluations.listEvaluations(ctx.workspace.workspaceId, input.rev, input)),

  evaluation: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/evaluations/{qual}",
        tags,
        summary: "Get an evaluation: checks, findings, verdict",
      },
    })
    .input(z.object({ qual: zId("qual") }))
    .output(ZEvaluation)
    .query(({ ctx, input }) => evaluations.getEvaluation(ctx.workspace.workspaceId, input.qual)),

  revisionVersions: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/revisions/{rev}/versions",
        tags,
        summary: "The version a revision's passing evaluation cut (at most one)",
      },
    })
    .input(zListQuery.extend({ rev: zId("rev") }))
    .output(ZVersionList)
    .query(({ ctx, input }) => versions.listRevisionVersions(ctx.workspace.workspaceId, input.rev, input)),

  versions: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/versions", tags, summary: "List versions" } })
    .input(zListQuery.extend({ product_id: zId("prod").optional() }))
    .output(ZVersionList)
    .query(({ ctx, input }) => versions.listVersions(ctx.workspace.workspaceId, input)),

  version: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/versions/{ver}", tags, summary: "Get a version" } })
    .input(z.object({ ver: zId("ver") }))
    .output(ZVersion)
    .query(({ ctx, input }) => versions.getVersion(ctx.workspace.workspaceId, input.ver)),

  createRelease: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/releases",
        tags,
        summary: "Create a release of a qualified version (channel staged)",
      },
      successStatus: 201,
    })
    .input(ZReleaseCreateRequest.extend({ ws: zWorkspaceId }))
    .output(ZRelease)
    .mutation(({ ctx, input }) => {
      const { ws: _ws, ...body } = input;
      return releases.createRelease(caller(ctx), ctx.workspace.workspaceId, body);
    }),

  releases: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: "/v1/workspaces/{ws}/releases", tags, summary: "List releases" } })
    .input(
      zListQuery.extend({
        product_id: zId("prod").optional(),
        version_id: zId("ver").optional(),
        status: z.enum(RELEASE_STATES).optional(),
      }),
    )
    .output(ZReleaseList)
    .query(({ ctx, input }) => releases.listReleases(ctx.workspace.workspaceId, input)),

  release: workspaceProcedure("viewer")
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/workspaces/{ws}/releases/{rel}",
        tags,
        summary: "Get a release with its status timeline",
      },
    })
    .input(z.object({ rel: zId("rel") }))
    .output(ZRelease)
    .query(({ ctx, input }) => releases.getRelease(ctx.workspace.workspaceId, input.rel)),

  approveRelease: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/releases/{rel}:approve",
        tags,
        summary: "Approve a release whose version widens the live contract (owner or admin)",
      },
    })
    .input(ZAdjudicationRequest.extend({ ws: zWorkspaceId, rel: zId("rel") }))
    .output(ZRelease)
    .mutation(({ ctx, input }) =>
      releases.adjudicateRelease(caller(ctx), ctx.workspace.workspaceId, input.rel, "approve", input.note ?? null),
    ),

  rejectRelease: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/releases/{rel}:reject",
        tags,
        summary: "Reject a release pending approval (owner or admin)",
      },
    })
    .input(ZAdjudicationRequest.extend({ ws: zWorkspaceId, rel: zId("rel") }))
    .output(ZRelease)
    .mutation(({ ctx, input }) =>
      releases.adjudicateRelease(caller(ctx), ctx.workspace.workspaceId, input.rel, "reject", input.note ?? null),
    ),

  deployRelease: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/releases/{rel}/deployments",
        tags,
        summary: "Deploy a draft release to staging (freezes it)",
      },
      successStatus: 202,
    })
    .input(ZReleaseDeploymentRequest.extend({ ws: zWorkspaceId, rel: zId("rel") }))
    .output(ZReleaseDeployment)
    .mutation(({ ctx, input }) => releases.deployRelease(caller(ctx), ctx.workspace.workspaceId, input.rel)),

  promoteRelease: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/releases/{rel}:promote",
        tags,
        summary: "Promote a release live on staging to production (owner or admin)",
      },
      successStatus: 202,
    })
    .input(ZPromoteRequest.extend({ ws: zWorkspaceId, rel: zId("rel") }))
    .output(ZReleaseDeployment)
    .mutation(({ ctx, input }) => promotion.promoteRelease(caller(ctx), ctx.workspace.workspaceId, input.rel, input)),

  rollbackProduction: workspaceProcedure("admin")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/products/{prod}/releases:rollback",
        tags,
        summary: "Make the previous production release live again (owner or admin)",
      },
      successStatus: 202,
    })
    .input(z.object({ ws: zWorkspaceId, prod: zId("prod") }))
    .output(ZReleaseDeployment)
    .mutation(({ ctx, input }) => promotion.rollbackProduct(caller(ctx), ctx.workspace.workspaceId, input.prod)),

  requestFix: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: fixPath,
        tags,
        summary: "Propose a fix for a finding of the revision (deterministic rules, or the workspace's model)",
      },
      successStatus: 201,
    })
    .input(ZFixRequest.extend(zFixParams))
    .output(ZFix)
    .mutation(({ ctx, input }) =>
      fixes.requestFix(caller(ctx), ctx.workspace.workspaceId, input.prod, input.rev, input),
    ),

  fixes: workspaceProcedure("viewer")
    .meta({ openapi: { method: "GET", path: fixPath, tags, summary: "List a revision's fixes" } })
    .input(zListQuery.extend({ prod: zId("prod"), rev: zId("rev") }))
    .output(ZFixList)
    .query(({ ctx, input }) => fixes.listFixes(ctx.workspace.workspaceId, input.prod, input.rev, input)),

  fix: workspaceProcedure("viewer")
    .meta({
      openapi: { method: "GET", path: `${fixPath}/{fix}`, tags, summary: "Get a fix with its diff or descriptor edit" },
    })
    .input(z.object({ prod: zId("prod"), rev: zId("rev"), fix: zId("fix") }))
    .output(ZFix)
    .query(({ ctx, input }) => fixes.getFix(ctx.workspace.workspaceId, input.prod, input.rev, input.fix)),

  approveFix: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: `${fixPath}/{fix}:approve`,
        tags,
        summary: "Approve a fix: applies it to a new revision",
      },
    })
    .input(ZFixDecisionRequest.extend({ ...zFixParams, fix: zId("fix") }))
    .output(ZFix)
    .mutation(({ ctx, input }) =>
      fixes.approveFix(caller(ctx), ctx.workspace.workspaceId, input.prod, input.rev, input.fix, input.note ?? null),
    ),

  rejectFix: workspaceProcedure("developer")
    .meta({ openapi: { method: "POST", path: `${fixPath}/{fix}:reject`, tags, summary: "Reject a fix, saying why" } })
    .input(ZFixRejectRequest.extend({ ...zFixParams, fix: zId("fix") }))
    .output(ZFix)
    .mutation(({ ctx, input }) =>
      fixes.rejectFix(caller(ctx), ctx.workspace.workspaceId, input.prod, input.rev, input.fix, input.note),
    ),
});
