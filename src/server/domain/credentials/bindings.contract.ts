import { z } from "zod";
import { zEmailAddress, zRecipientDomain } from "@/server/domain/events/event-schemas";
import { CAPABILITY_RULES, isCapabilityId, type TCapabilityId } from "@/server/domain/source/contract-rules";
import type { TFieldError } from "@/server/platform/errors";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { ZResourceName } from "@/server/platform/names";
import { zListQuery, zPage } from "@/server/platform/pagination";

/**
 * Provider bindings (spec 2.17, partial; the rest is ours, see
 * docs/decisions.md): which credential serves which capability of a
 * workspace, with which actions, scope, budget and capability limits.
 */
const MAX_SAFE = 9007199254740991;
const zText = z.string().min(1).max(128);
const positiveInt = (max = MAX_SAFE) => z.number().int().positive().max(max);
/** Spec 2.7 prefix rule: starts with `/`, contains no `..`. */
const zPrefix = z
  .string()
  .max(1024)
  .regex(/^\/(?:\.?[^.])*\.?$/, "must start with / and contain no ..");
const zModelName = z.string().min(1).max(256);

export const CAPABILITY_IDS = Object.keys(CAPABILITY_RULES) as TCapabilityId[];
export const BINDING_STATUSES = ["requested", "ready", "failed", "revoked", "expired"] as const;
export type TBindingStatus = (typeof BINDING_STATUSES)[number];

/** The workspace's ceiling for the capability, keyed by id (spec 2.17; data.kv and email.send mirror spec 2.7). */
export const ZCapabilityScope = z
  .discriminatedUnion("id", [
    z.strictObject({
      id: z.literal("ai.generate"),
      scope: z.strictObject({
        models: z.array(z.enum(["text", "embedding"])).min(1),
        max_tokens_per_call: positiveInt(),
      }),
      provider_models: z
        .strictObject({ text: zModelName.optional(), embedding: zModelName.optional() })
        .describe("The provider's model name per model kind; each kind listed in scope.models needs one"),
    }),
    z.strictObject({
      id: z.literal("storage.object"),
      scope: z.strictObject({ prefix: zPrefix, max_object_bytes: positiveInt() }),
    }),
    z.strictObject({
      id: z.literal("data.kv"),
      scope: z.strictObject({ prefix: zPrefix, max_value_bytes: positiveInt(65536), max_keys: positiveInt(100000) }),
    }),
    z.strictObject({
      id: z.literal("email.send"),
      scope: z.strictObject({
        from_addresses: z.array(zEmailAddress).min(1).max(32),
        recipient_domains: z.array(zRecipientDomain).min(1).max(32),
        max_recipients: z.number().int().min(1).max(50),
        max_message_bytes: positiveInt(1048576),
      }),
    }),
  ])
  .meta({ id: "CapabilityScope" });
export type TCapabilityScope = z.infer<typeof ZCapabilityScope>;

/**
 * Provider connection settings (no secrets: those live in the credential).
 * Each field belongs to one capability; fields of another capability are 422.
 * URLs must be https to a public host unless CAPSTAN_PROVIDER_ALLOW_PRIVATE=1.
 */
export const ZProviderConfig = z
  .strictObject({
    base_url: z
      .string()
      .min(1)
      .max(2048)
      .optional()
      .describe("ai.generate: API base URL, e.g. https://api.openai.com/v1"),
    api_style: z.enum(["openai", "anthropic"]).optional().describe("ai.generate: wire protocol (default openai)"),
    host: z.string().min(1).max(253).optional().describe("email.send: SMTP host"),
    port: z.number().int().min(1).max(65535).optional().describe("email.send: SMTP port"),
    secure: z.boolean().optional().describe("email.send: implicit TLS (port 465); otherwise STARTTLS is required"),
    endpoint: z.string().min(1).max(2048).optional().describe("storage.object: S3-compatible endpoint URL"),
    bucket: z.string().min(1).max(255).optional().describe("storage.object: bucket name"),
    region: z.string().min(1).max(64).optional().describe("storage.object: region"),
  })
  .meta({ id: "ProviderConfig" });
export type TProviderConfig = z.infer<typeof ZProviderConfig>;

export const PROVIDER_CONFIG_FIELDS: Record<TCapabilityId, readonly (keyof TProviderConfig)[]> = {
  "ai.generate": ["base_url", "api_style"],
  "storage.object": ["endpoint", "bucket", "region"],
  "data.kv": [],
  "email.send": ["host", "port", "secure"],
};

const bindingRequestShape = {
  credential_id: zId("cred"),
  capability: zText.describe(
    "One of ai.generate, storage.object, data.kv, email.send; must equal the credential's capability",
  ),
  actions: z
    .array(zText)
    .min(1)
    .max(64)
    .describe("Actions of the capability (spec 2.7) that the credential also allows"),
  scope: z
    .array(zText)
    .max(200)
    .default([])
    .describe("Each item must equal an item of the credential's scope, or start with the part before its trailing `*`"),
  budget: z.strictObject({ units: positiveInt(), unit: z.literal("tokens") }),
  capability_scope: ZCapabilityScope,
  provider_config: ZProviderConfig.optional(),
  name: ZResourceName.optional().describe(
    "Unique among the workspace's bindings not revoked, ignoring case (409 name_taken). Default: `<provider> <capability>` (with -2, -3... when taken)",
  ),
};

type TBindingRequestShape = {
  capability: string;
  actions: string[];
  capability_scope: TCapabilityScope;
  provider_config?: TProviderConfig;
};

/**
 * Cross-field rules that need no database (capability id, its actions,
 * capability_scope.id, provider models, provider_config fields). The service
 * runs them first, so they are reported together as one 422. Kept out of the
 * zod schema: a refined object loses `additionalProperties: false` in the
 * generated OpenAPI document.
 */
export function bindingRequestErrors(v: TBindingRequestShape): TFieldError[] {
  if (!isCapabilityId(v.capability))
    return [{ path: "/capability", message: `must be one of ${CAPABILITY_IDS.join(", ")}` }];
  const errors: TFieldError[] = [];
  const rule = CAPABILITY_RULES[v.capability];
  v.actions.forEach((a, i) => {
    if (!rule.actions.includes(a))
      errors.push({
        path: `/actions/${i}`,
        message: `is not an action of ${v.capability} (${rule.actions.join(", ")})`,
      });
  });
  const cs = v.capability_scope;
  if (cs.id !== v.capability) {
    errors.push({ path: "/capability_scope/id", message: `must equal capability (${v.capability})` });
  } else if (cs.id === "ai.generate") {
    for (const kind of new Set(cs.scope.models)) {
      if (!cs.provider_models[kind]) {
        errors.push({
          path: `/capability_scope/provider_models/${kind}`,
          message: `is required because scope.models lists ${kind}`,
        });
      }
    }
    if (v.provider_config?.api_style === "anthropic") {
      cs.scope.models.forEach((kind, i) => {
        if (kind === "embedding") {
          errors.push({
            path: `/capability_scope/scope/models/${i}`,
            message: "the Anthropic Messages API has no embeddings: bind an OpenAI-compatible provider for embedding",
          });
        }
      });
    }
  }
  const allowed = PROVIDER_CONFIG_FIELDS[v.capability];
  for (const key of Object.keys(v.provider_config ?? {}) as (keyof TProviderConfig)[]) {
    if (!allowed.includes(key))
      errors.push({ path: `/provider_config/${key}`, message: `does not apply to ${v.capability}` });
  }
  return errors;
}

export const ZProviderBindingRequest = z.strictObject(bindingRequestShape).meta({ id: "ProviderBindingRequest" });
export type TProviderBindingRequest = z.infer<typeof ZProviderBindingRequest>;

/** The request schema with the path parameter tRPC merges into every input (see trpc/procedures.ts). */
export const ZProviderBindingCreateInput = ZProviderBindingRequest.extend({ ws: zWorkspaceId });

export const ZProviderBinding = z
  .object({
    id: zId("bind"),
    workspace_id: zWorkspaceId,
    name: z.string().describe("Unique among the workspace's bindings not revoked, ignoring case"),
    credential_id: zId("cred"),
    capability: z.enum(CAPABILITY_IDS as [TCapabilityId, ...TCapabilityId[]]),
    provider: z.string().describe("The credential's provider"),
    actions: z.array(z.string()),
    scope: z.array(z.string()),
    budget: z.object({
      units: z.number().int(),
      unit: z.literal("tokens"),
      used_units: z.number().min(0),
      reserved_units: z.number().min(0),
    }),
    capability_scope: ZCapabilityScope,
    provider_config: ZProviderConfig.nullable(),
    status: z.enum(BINDING_STATUSES),
    failure_reason: z
      .string()
      .nullable()
      .describe("Why the binding is failed, revoked or expired (e.g. credential_expired)"),
    created_by: zId("usr"),
    last_activity_at: z.string().nullable().describe("When the Bridge last called through this binding (null: never)"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "ProviderBinding" });
export type TProviderBinding = z.infer<typeof ZProviderBinding>;

export const ZProviderBindingList = zPage(ZProviderBinding).meta({ id: "ProviderBindings" });

export const ZProviderBindingListQuery = zListQuery.extend({
  capability: z.enum(CAPABILITY_IDS as [TCapabilityId, ...TCapabilityId[]]).optional(),
  status: z.enum(BINDING_STATUSES).optional(),
  credential_id: zId("cred").optional(),
});
export type TProviderBindingListQuery = z.infer<typeof ZProviderBindingListQuery>;
