import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zPage } from "@/server/platform/pagination";
import { ZEvidence } from "@/server/domain/source/source.contract";

/** Spec 2.12-2.14 wire shapes: access, sessions, invocations; and pending operations. */
const zAccount = zId("usr").nullable();

export const ZAccessRequest = z.strictObject({}).meta({ id: "AccessRequest" });

export const ZAccess = z
  .object({
    id: zId("acc"),
    workspace_id: zWorkspaceId,
    account_id: zAccount,
    product_id: zId("prod"),
    surface_id: zId("srf"),
    deployment_id: zId("dep"),
    access_entry: z.literal("direct_surface"),
    entitlement_source: z.literal("direct"),
    expires_at: z.string(),
    reused_existing_access: z.boolean(),
    session_id: zId("ses").optional(),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Access" });
export type TAccess = z.infer<typeof ZAccess>;
export const ZAccessList = zPage(ZAccess).meta({ id: "Accesses" });

export const ZSessionCreateRequest = z.strictObject({ surface_id: zId("srf") }).meta({ id: "SessionCreateRequest" });

export const ZSession = z
  .object({
    id: zId("ses"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    surface_id: zId("srf"),
    account_id: zAccount,
    access_id: zId("acc"),
    environment_id: zId("env"),
    state: z.enum(["active", "closed"]),
    closed_at: z.string().nullable(),
    closed_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Session" });
export type TSession = z.infer<typeof ZSession>;
export const ZSessionList = zPage(ZSession).meta({ id: "Sessions" });

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

export const ZInvocationCreateRequest = z
  .strictObject({
    kind: z.literal("http_request"),
    method: z.enum(HTTP_METHODS),
    path: z
      .string()
      .min(1)
      .max(2048)
      .regex(/^\//, "must start with /")
      .refine((p) => !p.includes("?") && !p.includes("#"), "must not contain ? or #"),
    query_evidence: ZEvidence.optional(),
    body_evidence: ZEvidence.nullable(),
  })
  .meta({ id: "InvocationCreateRequest" });
export type TInvocationInput = z.infer<typeof ZInvocationCreateRequest>;

export const CHECK_NAMES = ["permission", "policy", "binding", "verification", "usage"] as const;
export const ADMISSION_REASONS = [
  "admitted",
  "permission_denied",
  "policy_blocked",
  "binding_unavailable",
  "verification_blocked",
  "usage_denied",
  "rate_limited",
  "pending_consent",
] as const;
export type TAdmissionReason = (typeof ADMISSION_REASONS)[number];

export const ZAdmission = z.object({
  invocation_id: zId("inv"),
  session_id: zId("ses"),
  workspace_id: zWorkspaceId,
  product_id: zId("prod"),
  surface_id: zId("srf"),
  account_id: zAccount,
  outcome: z.enum(["admitted", "denied", "pending"]),
  reason: z.enum(ADMISSION_REASONS),
  execution_id: zId("exe").nullable(),
  pending_operation_id: zId("pend").nullable(),
  checks: z
    .array(z.object({ name: z.enum(CHECK_NAMES), status: z.enum(["passed", "failed", "skipped"]) }))
    .min(1)
    .max(5),
  message: z.string().max(512),
  decided_at: z.string(),
});
export type TAdmission = z.infer<typeof ZAdmission>;

export const ZExecution = z.object({
  execution_id: zId("exe"),
  invocation_id: zId("inv"),
  session_id: zId("ses"),
  workspace_id: zWorkspaceId,
  product_id: zId("prod"),
  deployment_id: zId("dep").nullable(),
  execution_mode: z.enum(["managed", "remote", "bridge"]),
  status: z.enum(["completed", "failed", "cancelled", "timed_out"]),
  failure: z
    .object({
      code: z.enum(["product_error", "runtime_error", "timeout", "cancelled", "isolation_violation"]),
      message: z.string().max(2048),
    })
    .nullable(),
  result: z.object({ http_status: z.number().int().min(100).max(599).nullable(), body_evidence: ZEvidence.nullable() }),
  log_evidence: ZEvidence.nullable(),
  usage: z.object({
    duration_ms: z.number().int().min(0),
    cpu_ms: z.number().int().min(0).nullable(),
    memory_peak_bytes: z.number().int().min(0).nullable(),
  }),
  started_at: z.string(),
  finished_at: z.string(),
});
export type TExecution = z.infer<typeof ZExecution>;

export const ZInvocation = z
  .object({
    id: zId("inv"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    session_id: zId("ses"),
    surface_id: zId("srf"),
    account_id: zAccount,
    access_id: zId("acc"),
    sequence: z.number().int().min(0).max(9007199254740991),
    input: ZInvocationCreateRequest,
    admission: ZAdmission.nullable(),
    execution: ZExecution.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Invocation" });
export type TInvocation = z.infer<typeof ZInvocation>;
export const ZInvocationList = zPage(ZInvocation).meta({ id: "Invocations" });

export const ZPendingOperation = z
  .object({
    id: zId("pend"),
    workspace_id: zWorkspaceId,
    kind: z.literal("invocation_consent"),
    subject_id: z.string(),
    status: z.enum(["pending", "approved", "denied"]),
    reason: z.string(),
    requested_by: z.string().nullable(),
    resolved_by: z.string().nullable(),
    resolved_at: z.string().nullable(),
    note: z.string().nullable(),
    /** The waiting invocation (its session, method, path and current admission). */
    invocation: ZInvocation.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "PendingOperation" });
export type TPendingOperation = z.infer<typeof ZPendingOperation>;
export const ZPendingOperationList = zPage(ZPendingOperation).meta({ id: "PendingOperations" });

export const ZPendingResolution = z
  .strictObject({
    decision: z.enum(["approve", "deny"]),
    note: z.string().max(500).optional(),
  })
  .meta({ id: "PendingResolution" });
