import { z } from "zod";
import { oneTimeSecret } from "@/server/platform/one-time-secret";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZManagedCredential, ZManagedResource } from "./managed-resources.contract";

/**
 * Credentials of a postgres resource (issue #33 item 5; docs/decisions.md
 * "Credentials: rotation with an overlap, read-only roles"): rotation with an overlap, and one optional
 * read-only credential. Each shows its password once.
 */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;

export const ZRotateCredentialsRequest = z
  .strictObject({
    previous_secret_expires_in: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_SECONDS)
      .optional()
      .describe(
        "Seconds the previous login role keeps working (0..604800, default 86400). Until then the database accepts both the old and the new role; then the old role's sessions are ended and it is dropped. 0 ends it at the next worker pass (a leaked password).",
      ),
  })
  .meta({ id: "ManagedResourceRotateCredentialsRequest" });

export const ZCredentialPath = z.strictObject({ ws: zWorkspaceId, mres: zId("mres") });

const ZSecret = oneTimeSecret(
  z.object({ password: z.string(), url: z.string() }),
  "The new credential's password and connection URL (with the username in it), shown in this response only.",
);

/** What happens to the deployments that run with the old settings. */
export const ZRunningDeployments = z
  .object({
    /** restarting: each is replaced, one at a time, by a new deployment of its revision that receives the new settings (the new one active before the old one stops); none: no deployment was running with the old ones. */
    action: z.enum(["restarting", "none"]),
    deployment_ids: z.array(zId("dep")),
  })
  .meta({ id: "ManagedResourceRunningDeployments" });
export type TRunningDeployments = z.infer<typeof ZRunningDeployments>;

export const ZCredentialsRotated = ZManagedResource.extend({
  /** The new primary login role. */
  login_role: ZManagedCredential,
  secret: ZSecret,
  /** The app's running deployments received the old role; see action. */
  running_deployments: ZRunningDeployments,
}).meta({ id: "ManagedResourceCredentialsRotated" });
export type TCredentialsRotated = z.infer<typeof ZCredentialsRotated>;

export const ZReadOnlyCredentialCreated = ZManagedResource.extend({
  /** The read-only login role. */
  login_role: ZManagedCredential,
  secret: ZSecret,
}).meta({ id: "ManagedResourceReadOnlyCredentialCreated" });
export type TReadOnlyCredentialCreated = z.infer<typeof ZReadOnlyCredentialCreated>;
