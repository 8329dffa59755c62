import { z } from "zod";
import { oneTimeSecret } from "@/server/platform/one-time-secret";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { MRES_STATES } from "./managed-resources.states";

/** Spec 4.4 managed resources; fields and rules are ours (docs/decisions.md "Managed resources"). */
export const MRES_KINDS = ["postgres", "object_bucket"] as const;
export type TMresKind = (typeof MRES_KINDS)[number];
export const MRES_ENVIRONMENTS = ["preview", "staging", "production"] as const;
export const MRES_FAILURE_CODES = ["provision_failed", "destroy_failed", "size_limit_exceeded"] as const;

/** An environment variable the app receives; not one Capstan sets itself. */
export const zEnvVar = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "must be 1..64 upper-case letters, digits and underscores, starting with a letter")
  .refine(
    (v) => !["PORT", "PATH", "HOME", "NODE_ENV"].includes(v) && !v.startsWith("CAPSTAN_"),
    "is set by Capstan itself",
  );

const ZAttachFields = {
  /** The product whose deployments receive the resource (same workspace). */
  product_id: zId("prod"),
  /** Only deployments of this environment type receive it; absent = all of the product's environments. */
  environment_type: z.enum(MRES_ENVIRONMENTS).optional(),
  /** The variable the settings arrive in; default DATABASE_URL (postgres) or BUCKET_URL (object_bucket). */
  env_var: zEnvVar.optional(),
};

export const ZManagedResourceRequest = z
  .strictObject({
    kind: z.enum(MRES_KINDS),
    /** 1..63 lower-case letters, digits and hyphens; unique among the workspace's resources that are not deleted. */
    name: z
      .string()
      .regex(
        /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
        "must be 1..63 lower-case letters, digits and hyphens, not starting or ending with a hyphen",
      ),
    /** Attach at once (optional): as POST .../reattach. */
    attach: z.strictObject(ZAttachFields).optional(),
  })
  .meta({ id: "ManagedResourceRequest" });

export const ZManagedResourceAttachRequest = z.strictObject(ZAttachFields).meta({ id: "ManagedResourceAttachRequest" });

const ZAttachment = z.object({
  product_id: zId("prod"),
  environment_type: z.enum(MRES_ENVIRONMENTS).nullable(),
  env_var: z.string(),
  attached_at: z.string(),
});

/** One live login role of the resource (never its password). */
export const ZManagedCredential = z
  .object({
    username: z.string(),
    /** read_write: the primary the app receives (and, during an overlap, the one it replaced); read_only: SELECT only. */
    access: z.enum(["read_write", "read_only"]),
    /** active: current; retiring: replaced by a rotation, accepted until expires_at; revoking: refused, being dropped. */
    status: z.enum(["active", "retiring", "revoking"]),
    created_at: z.string(),
    /** retiring: when it stops being accepted; otherwise null. */
    expires_at: z.string().nullable(),
  })
  .meta({ id: "ManagedResourceCredential" });
export type TManagedCredential = z.infer<typeof ZManagedCredential>;

export const ZManagedResource = z
  .object({
    id: zId("mres"),
    workspace_id: zWorkspaceId,
    name: z.string(),
    kind: z.enum(MRES_KINDS),
    status: z.enum(MRES_STATES),
    /** The product (and environment) whose new deployments receive it; null when detached. */
    attachment: ZAttachment.nullable(),
    /** Active deployments of the attached product (and environment) that received it at deploy time and may use it now. */
    used_by: z.array(
      z.object({ deployment_id: zId("dep"), environment_type: z.enum(MRES_ENVIRONMENTS), env_var: z.string() }),
    ),
    /** Non-secret settings: postgres {database, username, host, port}; object_bucket {namespace}. Null once deleted. */
    connection: z
      .object({
        database: z.string().optional(),
        username: z.string().optional(),
        host: z.string().optional(),
        port: z.number().int().optional(),
        namespace: z.string().optional(),
      })
      .nullable(),
    size_bytes: z.number().int().min(0),
    size_measured_at: z.string().nullable(),
    limits: z.object({ max_size_bytes: z.number().int().min(0) }),
    /** Scheduled destruction: reattach before destroy_after restores the resource. */
    deletion: z.object({ requested_at: z.string(), destroy_after: z.string() }).nullable(),
    failure: z.object({ code: z.enum(MRES_FAILURE_CODES), message: z.string() }).nullable(),
    /** postgres: its live login roles (docs/decisions.md "Credentials: rotation with an overlap, read-only roles"); empty for buckets and once deleted. */
    credentials: z.array(ZManagedCredential),
    /** After an attach, detach or rotation: the running deployments being replaced one at a time so they receive the current settings; null when none. */
    restarts: z
      .object({ reason: z.string(), in_progress: zId("dep").nullable(), queued: z.array(zId("dep")) })
      .nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  })
  .meta({ id: "ManagedResource" });
export type TManagedResource = z.infer<typeof ZManagedResource>;

/** The create response: the only one that carries the secret (shown once, never again). */
export const ZManagedResourceCreated = ZManagedResource.extend({
  /** Present only in this response: postgres {password, url}; null for kinds without a secret. */
  secret: oneTimeSecret(
    z.object({ password: z.string(), url: z.string() }).nullable(),
    "postgres: {password, url}; null for kinds without a secret.",
  ),
}).meta({ id: "ManagedResourceCreated" });
export type TManagedResourceCreated = z.infer<typeof ZManagedResourceCreated>;

export const ZManagedResourceList = zPage(ZManagedResource).meta({ id: "ManagedResources" });
export const ZManagedResourceListQuery = zListQuery.extend({
  product_id: zId("prod").optional(),
  /** Deleted resources are listed only when asked for. */
  include_deleted: z.enum(["true", "false"]).optional(),
});
export const ZMresPath = z.object({ ws: zWorkspaceId, mres: zId("mres") });
export const ZMresDeleteQuery = ZMresPath.extend({
  /** Owner only: destroy at the next worker pass instead of after the grace period. */
  skip_grace_period: z.enum(["true", "false"]).optional(),
});
