import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZResourceName } from "@/server/platform/names";
import { zPage } from "@/server/platform/pagination";
import { CONTRACT_REJECTION_REASONS, SOURCE_REJECTION_CODES } from "./source.types";
import { ZDescriptor } from "./descriptor-detection";

/** Spec 2.2-2.7 wire shapes of products, source freezes, revisions and contracts. */
const zSha256 = z.string().regex(/^[0-9a-f]{64}$/);
export const ZEvidence = z.object({
  uri: z.string().min(1),
  sha256: zSha256,
  size_bytes: z.number().int().min(0).max(9007199254740991),
});

export const ZProductIntakeRequest = z
  .strictObject({
    repo_url: z.string().min(1).max(2048),
    ref: z.string().min(1).max(256),
    auth: z.strictObject({ kind: z.literal("none") }),
    product_type: z.literal("hosted-app").optional(),
    input_type: z.literal("repository").optional(),
    name: ZResourceName.optional().describe(
      "Unique in the workspace, ignoring case (409 name_taken). Default: the repository's name (`shop`), or `shop-2`, `shop-3`... when taken",
    ),
  })
  .meta({ id: "ProductIntakeRequest" });

export const ZSourceFreezeAccepted = z
  .object({
    source_freeze_id: zId("frz"),
    status: z.literal("pending"),
    product_id: zId("prod"),
    links: z.object({ self: z.string() }),
  })
  .meta({ id: "SourceFreezeAccepted" });

export const PRODUCT_STATUSES = ["building", "ready", "live", "failed"] as const;
export type TProductStatus = (typeof PRODUCT_STATUSES)[number];

export const ZProduct = z
  .object({
    id: zId("prod"),
    workspace_id: zWorkspaceId,
    name: z.string().describe("Unique in the workspace, ignoring case"),
    type: z.literal("hosted-app"),
    input_revision_id: zId("rev"),
    repo_url: z.string(),
    ref: z.string(),
    status: z
      .enum(PRODUCT_STATUSES)
      .describe(
        "live: a deployment is active; otherwise from the latest source freeze: building (pending), ready (frozen), failed (rejected or failed)",
      ),
    last_activity_at: z.string().describe("The latest change of the product, its source freezes or its deployments"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Product" });
export type TProduct = z.infer<typeof ZProduct>;
export const ZProductList = zPage(ZProduct).meta({ id: "Products" });

export const ZRefreezeRequest = z.strictObject({ ref: z.string().min(1).max(256) });

const ZProblemLike = z.record(z.string(), z.unknown());
export const ZSourceRejection = z.union([
  z.object({
    code: z.enum(SOURCE_REJECTION_CODES.filter((c) => c !== "credential_in_descriptor") as [string, ...string[]]),
    detail: z.object({ actual: z.number(), limit: z.number() }).optional(),
  }),
  z.object({ code: z.literal("credential_in_descriptor"), detail: z.object({ field: z.string() }).optional() }),
]);

export const ZSourceFreeze = z
  .object({
    id: zId("frz"),
    status: z.enum(["pending", "frozen", "rejected", "failed"]),
    product: z.object({
      id: zId("prod"),
      workspace_id: zWorkspaceId,
      type: z.literal("hosted-app"),
      created_at: z.string(),
    }),
    revision: z.object({
      id: zId("rev"),
      product_id: zId("prod"),
      input_type: z.literal("repository"),
      created_at: z.string(),
    }),
    repo_url: z.string(),
    ref: z.string(),
    commit_sha: z.string().nullable(),
    snapshot: ZEvidence.optional(),
    replayed: z.boolean().optional(),
    rejection: ZSourceRejection.optional(),
    problem: ZProblemLike.optional(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "SourceFreeze" });
export type TSourceFreeze = z.infer<typeof ZSourceFreeze>;

export const ZContractRejected = z.object({
  status: z.literal("rejected"),
  reason: z.enum(CONTRACT_REJECTION_REASONS),
});

export const ZRevision = z
  .object({
    id: zId("rev"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    input_revision_id: zId("rev"),
    product_type: z.literal("hosted-app"),
    descriptor: ZDescriptor.nullable(),
    descriptor_hash: zSha256.nullable(),
    confirmed_by: zId("usr").nullable(),
    descriptor_status: z.enum(["pending", "detected", "confirmed", "unavailable"]),
    findings: z.array(z.object({ kind: z.string(), severity: z.string(), code: z.string(), message: z.string() })),
    commit_sha: z.string().nullable(),
    snapshot: ZEvidence.nullable(),
    source_freeze_id: zId("frz"),
    capability_contract: ZContractRejected.optional(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Revision" });
export type TRevision = z.infer<typeof ZRevision>;
export const ZRevisionList = zPage(ZRevision).meta({ id: "Revisions" });

export const ZCapabilityEntry = z.object({
  id: z.enum(["ai.generate", "storage.object", "data.kv", "email.send"]),
  required: z.boolean(),
  actions: z.array(z.string()).min(1),
  scope: z.record(z.string(), z.unknown()),
  credential_owner: z.enum(["workspace", "platform"]),
  provider: z.object({
    allow: z.array(z.string()),
    fallback: z.enum(["none", "listed"]),
    prefer: z.string().optional(),
  }),
});

export const ZCapabilityContract = z
  .object({
    id: zId("rev"),
    product_id: zId("prod"),
    revision_id: zId("rev"),
    workspace_id: zWorkspaceId,
    capabilities: z.array(ZCapabilityEntry),
    contract_hash: zSha256,
    confirmed_at: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "CapabilityContract" });
export type TCapabilityContract = z.infer<typeof ZCapabilityContract>;

export const ZCapabilityContractResponse = z
  .union([ZCapabilityContract, z.object({ capability_contract: ZContractRejected })])
  .meta({ id: "CapabilityContractResponse" });

export const ZUpload = z
  .object({
    id: zId("upl"),
    workspace_id: zWorkspaceId,
    uri: z.string(),
    sha256: zSha256,
    size_bytes: z.number().int(),
    content_type: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "Upload" });
