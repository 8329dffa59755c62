import { z } from "zod";
import { AppError, zodIssuesToErrors, type TFieldError } from "@/server/platform/errors";
import { EVENT_TYPES, eventSchemaUrl, type TEventType } from "@/server/platform/outbox";

/**
 * The DATA payloads of the capability events (spec 6.1-6.3), written once as
 * zod so producers validate with the same source that publishes the JSON
 * Schemas (draft 2020-12) at GET /v1/event-schemas/{type}.
 *
 * Every object is closed (additionalProperties: false): a producer that adds
 * or renames a field fails validation instead of shipping silent drift. Every
 * rule is expressed as a zod check that has a JSON Schema equivalent (regex,
 * bounds, const, enum), never as a refine, so the published schema and the
 * runtime check agree.
 */

const MAX_SAFE = 9007199254740991;
const ID_BODY = "[0-7][0-9a-hjkmnp-tv-z]{25}";

const id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_${ID_BODY}$`), `must be a ${prefix}_ id`);
/** ws_ ids plus the special `ws_platform` (spec 2.1); a regex, so it survives into JSON Schema. */
const workspaceId = z.string().regex(new RegExp(`^ws_(?:platform|${ID_BODY})$`), "must be a ws_ id or ws_platform");

/** Spec 2.1 timestamp: UTC with `Z`, optional fraction, real calendar date (leap days included). */
const timestamp = z.iso.datetime({ message: "must be an ISO 8601 UTC timestamp ending in Z with a valid date" });
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters");
const sizeBytes = z.number().int().min(0).max(MAX_SAFE);
const positiveInt = (max = MAX_SAFE) => z.number().int().positive().max(max);

/**
 * Spec 2.7 prefix rule (scope prefixes, request keys): starts with `/`, no `..`.
 * Written without look-ahead (no two consecutive dots) so every JSON Schema
 * regex dialect reads it the same way.
 */
const PATH_RE = /^\/(?:\.?[^.])*\.?$/;
const pathLike = z.string().regex(PATH_RE, "must start with / and contain no ..");

/** A DNS label of spec 2.7: 1..63 of a-z, 0-9 and -, not starting or ending with -. */
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const DOMAIN = `${LABEL}(?:\\.${LABEL})*`;
/** Dot-atom text without upper-case letters. */
const ATEXT = "[a-z0-9!#$%&'*+/=?^_`{|}~-]";
/** Printable ASCII except `"`, `\` and A-Z; a backslash quotes any printable non-upper-case character. */
const QTEXT = "[\\x20\\x21\\x23-\\x40\\x5b\\x5d-\\x7e]";
const QPAIR = "\\\\[\\x20-\\x40\\x5b-\\x7e]";
const LOCAL = `(?:${ATEXT}+(?:\\.${ATEXT}+)*|"(?:${QTEXT}|${QPAIR})*")`;

/** Spec 2.7 address rule: at most 254 chars, no upper case, dot-atom or quoted local part, domain of labels. */
export const zEmailAddress = z
  .string()
  .max(254)
  .regex(new RegExp(`^${LOCAL}@${DOMAIN}$`), "must be a lower-case email address (spec 2.7 address rule)");

/** Spec 2.7 domain rule: at most 253 chars, `*` or dot-separated lower-case labels. */
export const zRecipientDomain = z
  .string()
  .max(253)
  .regex(new RegExp(`^(?:\\*|${DOMAIN})$`), "must be * or a lower-case domain");

// ---------------------------------------------------------------- 2.7 / 6.1

const zProvider = z.strictObject({
  allow: z.array(z.string()),
  fallback: z.enum(["none", "listed"]),
  prefer: z.string().optional(),
});

/** data.kv is platform-owned: the provider is fixed (spec 2.7). */
const zPlatformProvider = z.strictObject({
  allow: z.array(z.literal("platform")).length(1),
  fallback: z.literal("none"),
  prefer: z.literal("platform").optional(),
});

const entry = <I extends string, A extends z.ZodType, S extends z.ZodType, O extends string, P extends z.ZodType>(
  capId: I,
  actions: A,
  scope: S,
  owner: O,
  provider: P,
) =>
  z.strictObject({
    id: z.literal(capId),
    required: z.boolean(),
    actions: z.array(actions).min(1),
    scope,
    credential_owner: z.literal(owner),
    provider,
  });

/** One capability entry of a contract, keyed by `id` (spec 2.7 table). */
export const ZCapabilityEntry = z.discriminatedUnion("id", [
  entry(
    "ai.generate",
    z.literal("generate"),
    z.strictObject({
      models: z.array(z.enum(["text", "embedding"])).min(1),
      max_tokens_per_call: positiveInt(),
    }),
    "workspace",
    zProvider,
  ),
  entry(
    "storage.object",
    z.enum(["read", "write", "delete", "list"]),
    z.strictObject({ prefix: pathLike, max_object_bytes: positiveInt() }),
    "workspace",
    zProvider,
  ),
  entry(
    "data.kv",
    z.enum(["get", "set", "delete", "list", "increment"]),
    z.strictObject({ prefix: pathLike, max_value_bytes: positiveInt(65536), max_keys: positiveInt(100000) }),
    "platform",
    zPlatformProvider,
  ),
  entry(
    "email.send",
    z.literal("send"),
    z.strictObject({
      from_addresses: z.array(zEmailAddress).min(1).max(32),
      recipient_domains: z.array(zRecipientDomain).min(1).max(32),
      max_recipients: z.number().int().min(1).max(50),
      max_message_bytes: positiveInt(1048576),
    }),
    "workspace",
    zProvider,
  ),
]);
export type TCapabilityEntry = z.infer<typeof ZCapabilityEntry>;

/** capability.contract_ready 1.2.0 (spec 6.1): the contract of 2.7 without its API-only fields (id, created_at, updated_at). */
export const ZContractReadyData = z.strictObject({
  product_id: id("prod"),
  revision_id: id("rev"),
  workspace_id: workspaceId,
  capabilities: z.array(ZCapabilityEntry),
  contract_hash: sha256,
  confirmed_at: timestamp,
});
export type TContractReadyData = z.infer<typeof ZContractReadyData>;

// ---------------------------------------------------------------- 6.2

/** Inline JSON or an evidence reference (spec 6.2 input, 6.3 output). */
export const ZEventPayloadRef = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("inline"), json: z.unknown().describe("any JSON value") }),
  z.strictObject({ kind: z.literal("evidence"), uri: z.string().min(1), sha256, size_bytes: sizeBytes }),
]);

/** The request of an invocation, keyed by capability `id` (spec 6.2). */
export const ZCapabilityRequest = z.discriminatedUnion("id", [
  z.strictObject({
    id: z.literal("ai.generate"),
    action: z.literal("generate"),
    model_kind: z.enum(["text", "embedding"]),
    max_tokens: positiveInt(),
  }),
  z.strictObject({
    id: z.literal("storage.object"),
    action: z.enum(["read", "write", "delete", "list"]),
    key: pathLike,
    bytes: sizeBytes.optional(),
  }),
  z.strictObject({
    id: z.literal("data.kv"),
    action: z.enum(["get", "set", "delete", "list", "increment"]),
    key: pathLike,
    bytes: sizeBytes.optional(),
  }),
  z.strictObject({
    id: z.literal("email.send"),
    action: z.literal("send"),
    from: zEmailAddress,
    recipients: z.array(zEmailAddress).min(1).max(50),
    bytes: sizeBytes,
  }),
]);
export type TCapabilityRequest = z.infer<typeof ZCapabilityRequest>;

/** capability.invocation_requested 1.4.0 (spec 6.2). */
export const ZCapabilityCallRequestedData = z.strictObject({
  capability_invocation_id: id("cap"),
  execution_id: id("exe").nullable(),
  bridge_invocation_id: id("inv").nullable(),
  product_id: id("prod"),
  revision_id: id("rev"),
  workspace_id: workspaceId,
  request: ZCapabilityRequest,
  input: ZEventPayloadRef,
  requested_at: timestamp,
  adjudication_run_id: id("adj").nullable().optional(),
  fix_run_id: id("fix").nullable().optional(),
  environment_type: z.enum(["preview", "staging", "production"]).optional(),
});
export type TCapabilityCallRequestedData = z.infer<typeof ZCapabilityCallRequestedData>;

// ---------------------------------------------------------------- 6.3

export const CAPABILITY_RESULT_REASONS = [
  "outside_contract",
  "permission_denied",
  "policy_blocked",
  "binding_missing",
  "binding_revoked",
  "usage_denied",
  "provider_unavailable",
  "provider_rejected",
  "output_blocked",
] as const;

/** capability.invocation_resulted 1.1.0 (spec 6.3); also the shape of RunnerCapabilityResult. */
export const ZCapabilityCallResultedData = z.strictObject({
  capability_invocation_id: id("cap"),
  workspace_id: workspaceId,
  product_id: id("prod"),
  outcome: z.enum(["completed", "denied", "failed"]),
  reason: z.enum(CAPABILITY_RESULT_REASONS).nullable(),
  output: ZEventPayloadRef.nullable(),
  provider: z.string().nullable(),
  fallback_used: z.boolean(),
  usage: z.strictObject({ units: z.number().min(0), unit: z.enum(["tokens", "ms", "calls", "bytes"]) }),
  finished_at: timestamp,
  binding_id: id("bind").nullable().optional(),
});
export type TCapabilityCallResultedData = z.infer<typeof ZCapabilityCallResultedData>;

// ---------------------------------------------------------------- registry

/**
 * Event types whose data has a published schema. Other event types (our own
 * resource events) may add theirs here; until then they have no schema.
 */
export const EVENT_DATA_SCHEMAS: Partial<Record<TEventType, { zod: z.ZodType; title: string }>> = {
  "capability.contract_ready": { zod: ZContractReadyData, title: "Capability contract ready (data)" },
  "capability.invocation_requested": {
    zod: ZCapabilityCallRequestedData,
    title: "Capability invocation requested (data)",
  },
  "capability.invocation_resulted": {
    zod: ZCapabilityCallResultedData,
    title: "Capability invocation resulted (data)",
  },
};

export function hasEventSchema(type: string): type is TEventType {
  return Object.hasOwn(EVENT_DATA_SCHEMAS, type);
}

export type TJsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema";
  $id: string;
  [k: string]: unknown;
};

const cache = new Map<string, TJsonSchema>();

/**
 * The draft 2020-12 JSON Schema of an event type's data at its current
 * version, or null when the type has no published schema.
 */
export function eventDataJsonSchema(type: string): TJsonSchema | null {
  if (!hasEventSchema(type)) return null;
  const version = EVENT_TYPES[type];
  const $id = eventSchemaUrl(type, version);
  const hit = cache.get($id);
  if (hit) return hit;
  const def = EVENT_DATA_SCHEMAS[type]!;
  const generated = z.toJSONSchema(def.zod, {
    target: "draft-2020-12",
    io: "output",
    unrepresentable: "throw",
  }) as Record<string, unknown>;
  delete generated.$schema;
  const schema: TJsonSchema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id,
    title: def.title,
    description: `Data of the CloudEvent type ${type}, version ${version}.`,
    ...generated,
  };
  cache.set($id, schema);
  return schema;
}

/**
 * GET /v1/event-schemas/{type}: the published schema of a type, optionally
 * pinned to a version. Only the current version of each type is served; an
 * unknown type or any other version is a 404.
 */
export function getPublishedEventSchema(type: string, version?: string): TJsonSchema {
  const schema = eventDataJsonSchema(type);
  if (!schema) {
    throw new AppError("not_found", `No schema is published for event type ${type}`, {
      reason: "event_schema_not_found",
    });
  }
  const current = EVENT_TYPES[type as TEventType];
  if (version !== undefined && version !== current) {
    throw new AppError("not_found", `Event type ${type} is published at version ${current}, not ${version}`, {
      reason: "event_schema_version_not_found",
    });
  }
  return schema;
}

/**
 * Validates an event's data against its type's schema. Returns the list of
 * errors (empty when valid). Types of EVENT_TYPES without a published schema
 * validate as [] (nothing to check); a type outside EVENT_TYPES, or a version
 * other than the type's current one, is an error.
 */
export function validateEventData(type: string, data: unknown, version?: string): TFieldError[] {
  if (!Object.hasOwn(EVENT_TYPES, type)) return [{ path: "/", message: `unknown event type ${type}` }];
  const current = EVENT_TYPES[type as TEventType];
  if (version !== undefined && version !== current) {
    return [{ path: "/", message: `${type} is at version ${current}, not ${version}` }];
  }
  if (!hasEventSchema(type)) return [];
  const parsed = EVENT_DATA_SCHEMAS[type]!.zod.safeParse(data);
  return parsed.success ? [] : zodIssuesToErrors(parsed.error.issues);
}
