import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { zTimestamp } from "@/server/platform/time";

/**
 * Credentials (spec 2.16): provider secrets a workspace (or the platform,
 * `ws_platform`) stores for its provider bindings. The secret is write-only:
 * it is sealed at rest and no response, audit record, event or log line ever
 * carries it.
 */
const zText = z.string().min(1).max(128);

export const ZCredentialRequest = z
  .strictObject({
    secret: z
      .string()
      .min(1)
      .max(16384)
      .describe("The provider secret (API key, password...). Write-only: never returned."),
    provider: zText.describe("Provider name, e.g. openai, anthropic, smtp, s3"),
    capability: zText.describe(
      "The capability this credential serves (ai.generate, storage.object, data.kv, email.send)",
    ),
    actions: z.array(zText).min(1).max(64).describe("Actions the credential may be used for"),
    scope: z
      .array(zText)
      .max(200)
      .describe(
        "Scope strings the credential covers. A binding's scope item must equal one of them, or start with the part before a trailing `*`.",
      ),
    expires_at: zTimestamp.describe("When the credential stops being usable; must be in the future"),
  })
  .meta({ id: "CredentialRequest" });
export type TCredentialRequest = z.infer<typeof ZCredentialRequest>;

export const OWNER_KINDS = ["workspace", "platform"] as const;
export type TOwnerKind = (typeof OWNER_KINDS)[number];

export const ZCredential = z
  .object({
    id: zId("cred"),
    workspace_id: zWorkspaceId,
    owner_kind: z.enum(OWNER_KINDS).describe("`platform` for credentials of ws_platform"),
    provider: z.string(),
    capability: z.string(),
    actions: z.array(z.string()),
    scope: z.array(z.string()),
    expires_at: z.string(),
    created_by: zId("usr"),
    created_at: z.string(),
    updated_at: z.string(),
    revoked_at: z.string().nullable().describe("Set once the credential is revoked (revocation is permanent)"),
  })
  .meta({ id: "Credential" });
export type TCredential = z.infer<typeof ZCredential>;

export const ZCredentialList = zPage(ZCredential).meta({ id: "Credentials" });

export const ZCredentialListQuery = zListQuery.extend({
  owner_kind: z
    .enum(OWNER_KINDS)
    .optional()
    .describe(
      "Omitted: this workspace's own credentials. `platform` from another workspace: the platform credentials it may bind " +
        "(capabilities whose credential owner is the platform, not revoked).",
    ),
});
export type TCredentialListQuery = z.infer<typeof ZCredentialListQuery>;
