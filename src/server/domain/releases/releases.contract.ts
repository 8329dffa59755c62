import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zPage } from "@/server/platform/pagination";
import { zTimestamp } from "@/server/platform/time";
import { ZDeployment } from "@/server/domain/deployments/deployments.contract";
import { EVALUATION_STATES, FIX_STATES, RELEASE_STATES } from "./releases.states";

/** Wire shapes of evaluations, versions, releases (spec 2.8) and fixes. */
export const EVALUATION_CHECKS = ["descriptor", "contract", "deployment", "surface", "smoke", "logs"] as const;
export type TEvaluationCheckName = (typeof EVALUATION_CHECKS)[number];

export const ZEvaluationRequest = z
  .strictObject({
    /** Same revision and key: the existing evaluation is answered. Without a key every request is a new run. */
    request_key: z.string().min(1).max(128).optional(),
  })
  .meta({ id: "EvaluationRequest" });

export const ZEvaluationFinding = z.object({
  id: zId("fnd"),
  check: z.enum(EVALUATION_CHECKS),
  kind: z.string(),
  severity: z.string(),
  code: z.string(),
  message: z.string(),
});
export type TEvaluationFinding = z.infer<typeof ZEvaluationFinding>;

export const ZEvaluationCheck = z.object({
  name: z.enum(EVALUATION_CHECKS),
  status: z.enum(["pending", "passed", "failed", "skipped"]),
  /** Smoke requests: the invocations sent through the session. */
  invocation_ids: z.array(zId("inv")).optional(),
  finished_at: z.string().nullable(),
});
export type TEvaluationCheck = z.infer<typeof ZEvaluationCheck>;

export const ZEvaluation = z
  .object({
    id: zId("qual"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    revision_id: zId("rev"),
    request_key: z.string(),
    status: z.enum(EVALUATION_STATES),
    verdict: z.enum(["pass", "fail"]).nullable(),
    checks: z.array(ZEvaluationCheck),
    findings: z.array(ZEvaluationFinding),
    deployment_id: zId("dep").nullable(),
    session_id: zId("ses").nullable(),
    /** The version this evaluation cut or confirmed (passed only). */
    version_id: zId("ver").nullable(),
    created_by: zId("usr"),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Evaluation" });
export type TEvaluation = z.infer<typeof ZEvaluation>;
export const ZEvaluationList = zPage(ZEvaluation).meta({ id: "Evaluations" });

export const ZVersion = z
  .object({
    id: zId("ver"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    revision_id: zId("rev"),
    number: z.number().int().min(1),
    label: z.string(),
    contract_hash: z.string(),
    descriptor_hash: z.string(),
    qualification_id: zId("qual"),
    /** False once a later evaluation of the revision failed. */
    qualified: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: "Version" });
export type TVersion = z.infer<typeof ZVersion>;
export const ZVersionList = zPage(ZVersion).meta({ id: "Versions" });

export const AUDIENCE_KINDS = ["internal", "workspace", "custom"] as const;
export const CHANNELS = ["preview_internal", "staged", "production"] as const;

export const ZReleaseCreateRequest = z
  .strictObject({
    product_id: zId("prod"),
    version_id: zId("ver"),
    channel: z.literal("staged"),
    audience: z.strictObject({ kind: z.enum(AUDIENCE_KINDS) }),
    window: z
      .strictObject({ starts_at: zTimestamp, ends_at: zTimestamp.nullable() })
      .refine(
        (w) =>
          w.ends_at === null || !isFinite(Date.parse(w.starts_at)) || Date.parse(w.ends_at) > Date.parse(w.starts_at),
        {
          message: "ends_at must be after starts_at",
          path: ["ends_at"],
        },
      ),
  })
  .meta({ id: "ReleaseCreateRequest" });
export type TReleaseCreateRequest = z.infer<typeof ZReleaseCreateRequest>;

export const ZAdjudication = z.object({
  id: zId("adj"),
  decision: z.enum(["approve", "reject"]),
  note: z.string().nullable(),
  decided_by: zId("usr"),
  decided_at: z.string(),
});

export const ZRelease = z
  .object({
    id: zId("rel"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    version_id: zId("ver"),
    channel: z.enum(CHANNELS),
    audience: z.object({ kind: z.enum(AUDIENCE_KINDS) }),
    window: z.object({ starts_at: z.string(), ends_at: z.string().nullable() }),
    status: z.enum(RELEASE_STATES),
    frozen_at: z.string().nullable(),
    reason_code: z.string().nullable(),
    revision_id: zId("rev"),
    deployment_id: zId("dep").nullable(),
    /** Why the version's contract needs approval (it asks for more than the live release's). */
    widening: z.object({ why: z.string(), baseline_release_id: zId("rel") }).nullable(),
    adjudication: ZAdjudication.nullable(),
    /** The status timeline, oldest first. */
    history: z.array(z.object({ status: z.enum(RELEASE_STATES), at: z.string(), reason_code: z.string().nullable() })),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Release" });
export type TRelease = z.infer<typeof ZRelease>;
export const ZReleaseList = zPage(ZRelease).meta({ id: "Releases" });

export const ZAdjudicationRequest = z
  .strictObject({ note: z.string().min(1).max(1000).optional() })
  .meta({ id: "AdjudicationRequest" });

export const ZReleaseDeploymentRequest = z
  .strictObject({ environment_type: z.literal("staging").optional() })
  .meta({ id: "ReleaseDeploymentRequest" });

/** :promote (owner/admin): a contract wider than production's live release needs `approve_widening: true` (recorded as an adjudication). */
export const ZPromoteRequest = z
  .strictObject({ approve_widening: z.boolean().optional(), note: z.string().min(1).max(1000).optional() })
  .meta({ id: "PromoteRequest" });

export const ZReleaseDeployment = z
  .object({ release: ZRelease, deployment: ZDeployment })
  .meta({ id: "ReleaseDeployment" });

export const ZFixRequest = z
  .strictObject({
    /** A finding of an evaluation of this revision. */
    finding_id: zId("fnd").optional(),
    /** A detection finding code of the revision, or `contract_rejected`. */
    finding_code: z.string().min(1).max(64).optional(),
    /**
     * `rules` (default): the deterministic rules. `ai`: ask the workspace's model (its ai.generate binding, through
     * the Bridge, charged like any call) for a unified diff; needs `finding_id` of a failed evaluation. The answer
     * is a `proposed` fix only if it is a diff that applies to the frozen source, else a `failed` fix with a finding.
     */
    generator: z.enum(["rules", "ai"]).optional(),
  })
  .meta({ id: "FixRequest" });

export const ZFixDecisionRequest = z
  .strictObject({ note: z.string().min(1).max(1000).optional() })
  .meta({ id: "FixDecisionRequest" });
export const ZFixRejectRequest = z.strictObject({ note: z.string().min(1).max(1000) }).meta({ id: "FixRejectRequest" });

export const ZFix = z
  .object({
    id: zId("fix"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    revision_id: zId("rev"),
    finding: z.object({
      id: zId("fnd").nullable(),
      check: z.string().nullable(),
      code: z.string(),
      message: z.string(),
    }),
    /** The deterministic rule, or `ai_generated` (a model's diff: review it). */
    rule: z.enum([
      "missing_start_script",
      "wrong_port",
      "health_path_not_found",
      "capabilities_schema",
      "ai_generated",
    ]),
    kind: z.enum(["source_patch", "descriptor_edit"]),
    status: z.enum(FIX_STATES),
    summary: z.string(),
    /** Unified diff against the frozen source (source patches). */
    diff: z.string().nullable(),
    descriptor_edits: z.record(z.string(), z.unknown()).nullable(),
    new_revision_id: zId("rev").nullable(),
    decision: z
      .object({
        decision: z.enum(["approve", "reject"]),
        note: z.string().nullable(),
        decided_by: zId("usr"),
        decided_at: z.string(),
      })
      .nullable(),
    /** Why no proposal came of it (a `failed` AI fix: the model's answer was no diff, did not apply, or the call was refused). */
    findings: z.array(z.object({ kind: z.string(), severity: z.string(), code: z.string(), message: z.string() })),
    /** The Bridge call that generated it (AI fixes; charged to the workspace), else null. */
    capability_invocation_id: zId("cap").nullable(),
    created_by: zId("usr"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Fix" });
export type TFix = z.infer<typeof ZFix>;
export const ZFixList = zPage(ZFix).meta({ id: "Fixes" });
