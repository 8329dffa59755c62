import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { oneTimeSecret } from "@/server/platform/one-time-secret";
import { zPage } from "@/server/platform/pagination";

/**
 * Deploy on push (docs/decisions.md "Deploy on push"): a product's repository
 * webhook and what each delivery led to.
 */
export const ZPushHook = z
  .object({
    id: zId("hook"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    url: z
      .string()
      .describe(
        "Where the repository posts its push events: POST, JSON body, signed with the secret (X-Hub-Signature-256, or Capstan-Signature)",
      ),
    tracked_ref: z.string().describe("The product's ref: only pushes to it freeze and deploy"),
    secret_rotated_at: z.string().nullable(),
    created_by: zId("usr"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "PushHook" });
export type TPushHook = z.infer<typeof ZPushHook>;

export const ZPushHookCreated = ZPushHook.extend({
  secret: oneTimeSecret(
    z.string(),
    "The signing secret: the repository signs each delivery with it (HMAC-SHA256 of the raw body).",
  ),
}).meta({ id: "PushHookCreated" });

export const PUSH_DELIVERY_STATES = ["freezing", "deployed", "awaiting_owner", "failed", "rejected"] as const;

export const ZPushDelivery = z
  .object({
    id: zId("hkd"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    delivery_id: z
      .string()
      .describe(
        "The sender's delivery id (X-GitHub-Delivery or X-Capstan-Delivery; else the body's sha256): a replay of it answers this delivery again",
      ),
    ref: z.string().nullable(),
    commit_sha: z.string().nullable(),
    status: z
      .enum(PUSH_DELIVERY_STATES)
      .describe(
        "freezing: the pushed commit is being frozen; deployed: confirmed and a preview deployment requested (deployment_id); awaiting_owner: the descriptor or contract changed, the revision waits on its page; failed: the freeze or the deployment request failed; rejected: the delivery was refused (reason_code)",
      ),
    reason_code: z.string().nullable(),
    message: z.string().nullable(),
    source_freeze_id: zId("frz").nullable(),
    revision_id: zId("rev").nullable(),
    deployment_id: zId("dep").nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "PushDelivery" });
export type TPushDelivery = z.infer<typeof ZPushDelivery>;
export const ZPushDeliveryList = zPage(ZPushDelivery).meta({ id: "PushDeliveries" });
