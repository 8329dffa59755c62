import { isIP } from "node:net";
import { z } from "zod";
import { oneTimeSecret } from "@/server/platform/one-time-secret";
import { egressAllowsPrivate, isPrivateHostLiteral } from "@/server/platform/egress";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZResourceName } from "@/server/platform/names";
import { zPage } from "@/server/platform/pagination";

/**
 * Service identities (spec 2.1, 4.2, 5; field shapes "not shown", decided
 * here and in docs/decisions.md). A service identity is a non-human caller of
 * the Bridge: a client id (`svc_...`, also the id) and a one-time secret for
 * OAuth client_credentials, and optionally an OIDC federation (issuer +
 * subject + audience) so a CI job or cloud workload can swap its own OIDC
 * token for a Bridge token without any stored secret (RFC 8693).
 *
 * Workspace identities are bound to one product of their workspace (the
 * Bridge checks the contract of that product's active revision) and
 * optionally to one environment type. Platform identities live in
 * `ws_platform`; their product is optional.
 */
export const SERVICE_IDENTITY_ENVIRONMENTS = ["preview", "staging", "production"] as const;
export const SERVICE_IDENTITY_KINDS = ["workspace", "platform"] as const;
export const SERVICE_IDENTITY_STATUSES = ["active", "revoked"] as const;
export type TServiceIdentityKind = (typeof SERVICE_IDENTITY_KINDS)[number];

/** Prefix of client secrets, so secret scanners and people recognise them. */
export const CLIENT_SECRET_PREFIX = "cssec_";

/**
 * Whether an OIDC issuer may be plain http on a loopback address (tests and
 * local development only). Read from `OIDC_ALLOW_INSECURE_ISSUER=1` at call
 * time, by the egress guard (which also lets discovery reach private
 * addresses then); nothing else reads that variable.
 */
export function allowInsecureIssuer(): boolean {
  return egressAllowsPrivate("oidc");
}

function isLoopbackHost(host: string): boolean {
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    (isIP(host) === 4 && host.startsWith("127.")) ||
    host === "::1"
  );
}

/**
 * Why `raw` is not an acceptable OIDC issuer, or null when it is. An issuer is
 * an absolute https URL without credentials, query or fragment (OIDC Discovery
 * 3). Literal private or loopback addresses are refused, because the token
 * endpoint fetches the issuer's discovery document and keys from the server;
 * with OIDC_ALLOW_INSECURE_ISSUER=1 they are allowed, and http is allowed for
 * loopback hosts only.
 */
export function issuerProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute https URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  if (url.search || url.hash || raw.includes("?") || raw.includes("#")) return "must not have a query or fragment";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const insecure = allowInsecureIssuer();
  if (url.protocol === "http:") {
    if (!insecure || !isLoopbackHost(host)) return "must use https";
  } else if (url.protocol !== "https:") {
    return "must use https";
  }
  if (!insecure && isPrivateHostLiteral(host)) return "must be a public host";
  return null;
}

const zIssuer = z
  .string()
  .min(1)
  .max(512)
  .superRefine((v, ctx) => {
    const problem = issuerProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe("OIDC issuer URL; must equal the `iss` claim of the external tokens exactly");

/** The external OIDC token that may be exchanged for a Bridge token: its `iss`, `sub` and an `aud` it must contain. */
export const ZFederation = z
  .strictObject({
    issuer: zIssuer,
    subject: z
      .string()
      .min(1)
      .max(255)
      .describe("Exact `sub` claim of the external token (e.g. repo:acme/shop:ref:refs/heads/main)"),
    audience: z.string().min(1).max(255).describe("A value the external token's `aud` claim must contain"),
  })
  .meta({ id: "ServiceIdentityFederation" });
export type TFederation = z.infer<typeof ZFederation>;

/** The actions of each capability (spec 2.7), for permission strings. */
const CAPABILITY_ACTIONS: Record<string, readonly string[]> = {
  "ai.generate": ["generate"],
  "storage.object": ["read", "write", "delete", "list"],
  "data.kv": ["get", "set", "delete", "list", "increment"],
  "email.send": ["send"],
};

/**
 * A Bridge permission: `<capability>:<action>` or `<capability>:*`. An identity
 * with permissions may call only those actions (permission_denied otherwise),
 * on top of its product's contract; without them it may call whatever the
 * contract allows. Fixed at creation (audited with service_identity.created).
 */
export const zPermissions = z
  .array(
    z
      .string()
      .max(64)
      .superRefine((v, ctx) => {
        const [capability, action, ...rest] = v.split(":");
        const actions = CAPABILITY_ACTIONS[capability ?? ""];
        if (!actions || rest.length || action === undefined) {
          ctx.addIssue({
            code: "custom",
            message: "must be <capability>:<action> or <capability>:*, e.g. data.kv:get",
          });
        } else if (action !== "*" && !actions.includes(action)) {
          ctx.addIssue({ code: "custom", message: `${capability} has no action ${action} (${actions.join(", ")})` });
        }
      }),
  )
  .min(1)
  .max(32)
  .superRefine((v, ctx) => {
    const seen = new Set<string>();
    v.forEach((p, i) => {
      if (seen.has(p)) ctx.addIssue({ code: "custom", path: [i], message: "duplicate permission" });
      seen.add(p);
    });
  })
  .describe(
    "Bridge permissions (`<capability>:<action>` or `<capability>:*`); omit to allow every action of the contract",
  );

/** Whether `permissions` (null = unrestricted) allow this capability action. */
export function permits(permissions: readonly string[] | null, capability: string, action: string): boolean {
  return !permissions || permissions.includes(`${capability}:${action}`) || permissions.includes(`${capability}:*`);
}

/** Unique among the workspace's identities not revoked, ignoring case (409 name_taken). */
const zName = ZResourceName;

/** Body of POST /v1/workspaces/{ws}/service-identities. Unknown fields are refused (422). */
export const ZWorkspaceServiceIdentityRequest = z
  .strictObject({
    name: zName,
    product_id: zId("prod").describe(
      "A product of this workspace; the Bridge checks the contract of its active revision",
    ),
    environment_type: z
      .enum(SERVICE_IDENTITY_ENVIRONMENTS)
      .optional()
      .describe("Limit the identity to one environment type"),
    federation: ZFederation.optional(),
    permissions: zPermissions.optional(),
  })
  .meta({ id: "WorkspaceServiceIdentityRequest" });
export type TWorkspaceServiceIdentityRequest = z.infer<typeof ZWorkspaceServiceIdentityRequest>;

/** Body of POST /v1/platform/service-identities: the same, with the product optional (a product of ws_platform). */
export const ZPlatformServiceIdentityRequest = z
  .strictObject({
    name: zName,
    product_id: zId("prod").optional().describe("Optional: a product of ws_platform"),
    environment_type: z.enum(SERVICE_IDENTITY_ENVIRONMENTS).optional(),
    federation: ZFederation.optional(),
    permissions: zPermissions.optional(),
  })
  .meta({ id: "PlatformServiceIdentityRequest" });
export type TServiceIdentityRequest = z.infer<typeof ZPlatformServiceIdentityRequest>;

/** A service identity's metadata. The secret is never part of it (only its sha256 is stored). */
export const ZServiceIdentity = z
  .object({
    id: zId("svc"),
    workspace_id: zWorkspaceId,
    kind: z.enum(SERVICE_IDENTITY_KINDS),
    name: z.string(),
    product_id: zId("prod").nullable(),
    environment_type: z.enum(SERVICE_IDENTITY_ENVIRONMENTS).nullable(),
    federation: z
      .object({ issuer: z.string(), subject: z.string(), audience: z.string() })
      .nullable()
      .describe("OIDC federation for RFC 8693 token exchange, or null"),
    permissions: z
      .array(z.string())
      .nullable()
      .describe("Bridge permissions, or null: every action of the product's contract"),
    client_id: zId("svc").describe("The OAuth client_id: equal to id"),
    status: z.enum(SERVICE_IDENTITY_STATUSES),
    secret_rotated_at: z.string().nullable(),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .describe(
        "While the secret before the last rotation still works at the token endpoint: when it stops (see previous_secret_expires_in of :rotate-secret). Null when only the current secret works.",
      ),
    revoked_at: z.string().nullable(),
    last_token_at: z.string().nullable().describe("When a token was last issued to this identity"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "ServiceIdentity" });
export type TServiceIdentity = z.infer<typeof ZServiceIdentity>;

/** Create and rotate-secret responses: the metadata plus the secret, shown once (omitted from idempotent replays). */
export const ZServiceIdentityCreated = ZServiceIdentity.extend({
  client_secret: oneTimeSecret(
    z.string(),
    "cssec_ + 32 random bytes (base64url); use it with client_id at POST /v1/oauth/token.",
  ),
}).meta({ id: "ServiceIdentityCreated" });
export type TServiceIdentityCreated = z.infer<typeof ZServiceIdentityCreated>;

export const ZServiceIdentityList = zPage(ZServiceIdentity).meta({ id: "ServiceIdentities" });

/** Path-only inputs of the POST actions (`:revoke`, `:rotate-secret`): strict, so a stray body field is a 422. */
export const ZSvcPath = z.strictObject({ svc: zId("svc") });

/** Body of `:rotate-secret` (optional). */
export const ZRotateSecretRequest = z
  .strictObject({
    previous_secret_expires_in: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .optional()
      .describe(
        "Seconds the previous client secret keeps working at the token endpoint (0..604800, default 0: it stops at once, and so do bridge tokens obtained with it). Until then both secrets get tokens; tokens obtained with the previous secret live until their own exp unless it is revoked early with :revoke-previous-secret.",
      ),
  })
  .meta({ id: "ServiceIdentityRotateSecretRequest" });
