import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import {
  EVENT_DATA_SCHEMAS,
  eventDataJsonSchema,
  getPublishedEventSchema,
  validateEventData,
} from "@/server/domain/events/event-schemas";
import { EVENT_TYPES, eventSchemaUrl } from "@/server/platform/outbox";

/**
 * The published event data schemas (spec 6.1-6.3). Each sample is checked
 * twice: by validateEventData (zod, what producers use) and by an independent
 * JSON Schema 2020-12 validator on the published document (what consumers
 * use). Both must agree.
 *
 * ajv is not a direct dependency: it is in node_modules through
 * @seriousme/openapi-schema-validator (a dev dependency).
 */

const CAP_TYPES = [
  "capability.contract_ready",
  "capability.invocation_requested",
  "capability.invocation_resulted",
] as const;
type TCapType = (typeof CAP_TYPES)[number];

const B = "01j9zq3v7k5m2n8p4r6s0t1w2x"; // a valid 26-char id body
const sha = "a".repeat(64);

// Every keyword a draft 2020-12 schema (core, applicator, validation, meta-data, format, unevaluated) may use.
const KEYWORDS_2020_12 = new Set([
  "$schema",
  "$id",
  "$ref",
  "$defs",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$comment",
  "$vocabulary",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "prefixItems",
  "items",
  "contains",
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "type",
  "const",
  "enum",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "format",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
]);
// Keywords whose value is a map of name -> schema (their keys are property names, not keywords).
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_VALUES = new Set([
  "not",
  "if",
  "then",
  "else",
  "items",
  "contains",
  "additionalProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
]);

function unknownKeywords(schema: unknown, at = "#"): string[] {
  if (typeof schema === "boolean") return [];
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return [`${at}: not a schema`];
  const out: string[] = [];
  for (const [k, v] of Object.entries(schema)) {
    if (!KEYWORDS_2020_12.has(k)) out.push(`${at}/${k}`);
    else if (SCHEMA_MAPS.has(k))
      for (const [n, s] of Object.entries(v as object)) out.push(...unknownKeywords(s, `${at}/${k}/${n}`));
    else if (SCHEMA_LISTS.has(k))
      (v as unknown[]).forEach((s, i) => out.push(...unknownKeywords(s, `${at}/${k}/${i}`)));
    else if (SCHEMA_VALUES.has(k)) out.push(...unknownKeywords(v, `${at}/${k}`));
  }
  return out;
}

function newAjv() {
  const ajv = new Ajv2020({ strict: true, strictRequired: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const ajv = newAjv();
const validators = Object.fromEntries(CAP_TYPES.map((t) => [t, ajv.compile(eventDataJsonSchema(t)!)])) as Record<
  TCapType,
  ReturnType<typeof ajv.compile>
>;

/** Runs both validators; returns [zod ok, json schema ok]. */
function check(type: TCapType, data: unknown): [boolean, boolean] {
  const viaZod = validateEventData(type, data).length === 0;
  const viaSchema = validators[type](JSON.parse(JSON.stringify(data))) === true;
  return [viaZod, viaSchema];
}

// ------------------------------------------------------------------ samples

const provider = { allow: ["openai", "anthropic"], fallback: "listed", prefer: "openai" } as const;

function contractReady() {
  return {
    product_id: `prod_${B}`,
    revision_id: `rev_${B}`,
    workspace_id: `ws_${B}`,
    contract_hash: sha,
    confirmed_at: "2024-02-29T12:00:00.123Z",
    capabilities: [
      {
        id: "ai.generate",
        required: true,
        actions: ["generate"],
        credential_owner: "workspace",
        provider,
        scope: { models: ["text", "embedding"], max_tokens_per_call: 4096 },
      },
      {
        id: "storage.object",
        required: false,
        actions: ["read", "write", "delete", "list"],
        credential_owner: "workspace",
        provider: { allow: ["s3"], fallback: "none" },
        scope: { prefix: "/uploads/", max_object_bytes: 9007199254740991 },
      },
      {
        id: "data.kv",
        required: true,
        actions: ["get", "set", "delete", "list", "increment"],
        credential_owner: "platform",
        provider: { allow: ["platform"], fallback: "none", prefer: "platform" },
        scope: { prefix: "/", max_value_bytes: 65536, max_keys: 100000 },
      },
      {
        id: "email.send",
        required: false,
        actions: ["send"],
        credential_owner: "workspace",
        provider: { allow: ["smtp"], fallback: "none" },
        scope: {
          from_addresses: ["noreply@mail.example.com", "first.last+tag@example-1.io", '"odd local"@example.com'],
          recipient_domains: ["*", "example.com", "a-b.example.org"],
          max_recipients: 50,
          max_message_bytes: 1048576,
        },
      },
    ],
  };
}

const requests = {
  "ai.generate": { id: "ai.generate", action: "generate", model_kind: "text", max_tokens: 256 },
  "storage.object": { id: "storage.object", action: "write", key: "/uploads/a.txt", bytes: 12 },
  "storage.object (no bytes)": { id: "storage.object", action: "list", key: "/uploads/" },
  "data.kv": { id: "data.kv", action: "increment", key: "/counters/visits" },
  "email.send": {
    id: "email.send",
    action: "send",
    from: "noreply@example.com",
    recipients: ["a@example.com"],
    bytes: 1200,
  },
};

function invocationRequested(request: unknown = requests["ai.generate"]) {
  return {
    capability_invocation_id: `cap_${B}`,
    execution_id: `exe_${B}`,
    bridge_invocation_id: null,
    product_id: `prod_${B}`,
    revision_id: `rev_${B}`,
    workspace_id: `ws_${B}`,
    request,
    input: { kind: "inline", json: { prompt: "hello" } },
    requested_at: "2024-01-01T00:00:00Z",
  };
}

function invocationResulted() {
  return {
    capability_invocation_id: `cap_${B}`,
    workspace_id: `ws_${B}`,
    product_id: `prod_${B}`,
    outcome: "completed",
    reason: null,
    output: { kind: "evidence", uri: "blob://sha256/abc", sha256: sha, size_bytes: 0 },
    provider: "openai",
    fallback_used: false,
    usage: { units: 12.5, unit: "tokens" },
    finished_at: "2024-01-01T00:00:01.5Z",
  };
}

/** A deep copy with one change applied. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function mutate<T>(base: T, change: (d: any) => void): T {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}

// ------------------------------------------------------------------ tests

describe("published event data schemas", () => {
  it.each(CAP_TYPES)("%s is a valid draft 2020-12 schema with its $id", (type) => {
    const schema = eventDataJsonSchema(type)!;
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toBe(eventSchemaUrl(type, EVENT_TYPES[type]));
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(unknownKeywords(schema)).toEqual([]);
    // Compiles in a fresh strict validator too (no unknown keywords, formats or regex dialect issues).
    expect(() => newAjv().compile(schema)).not.toThrow();
  });

  it("publishes exactly the three capability events at their spec versions", () => {
    expect(Object.keys(EVENT_DATA_SCHEMAS).sort()).toEqual([...CAP_TYPES].sort());
    expect([
      EVENT_TYPES["capability.contract_ready"],
      EVENT_TYPES["capability.invocation_requested"],
      EVENT_TYPES["capability.invocation_resulted"],
    ]).toEqual(["1.2.0", "1.4.0", "1.1.0"]);
  });

  it("lists the required fields of the spec", () => {
    expect(eventDataJsonSchema("capability.contract_ready")!.required).toEqual([
      "product_id",
      "revision_id",
      "workspace_id",
      "capabilities",
      "contract_hash",
      "confirmed_at",
    ]);
    expect([...(eventDataJsonSchema("capability.invocation_requested")!.required as string[])].sort()).toEqual(
      [
        "bridge_invocation_id",
        "capability_invocation_id",
        "execution_id",
        "input",
        "product_id",
        "request",
        "requested_at",
        "revision_id",
        "workspace_id",
      ].sort(),
    );
    expect([...(eventDataJsonSchema("capability.invocation_resulted")!.required as string[])].sort()).toEqual(
      [
        "capability_invocation_id",
        "fallback_used",
        "finished_at",
        "outcome",
        "output",
        "product_id",
        "provider",
        "reason",
        "usage",
        "workspace_id",
      ].sort(),
    );
  });

  it("serves the current version and 404s others and unknown types", () => {
    expect(getPublishedEventSchema("capability.contract_ready").$id).toContain("version=1.2.0");
    expect(getPublishedEventSchema("capability.contract_ready", "1.2.0").$id).toContain("version=1.2.0");
    expect(() => getPublishedEventSchema("capability.contract_ready", "1.1.0")).toThrow(/version 1.2.0/);
    expect(() => getPublishedEventSchema("capability.nope")).toThrow(/No schema/);
    expect(() => getPublishedEventSchema("workspace.created")).toThrow(/No schema/);
  });
});

describe("valid payloads pass both validators", () => {
  const valid: Array<[string, TCapType, unknown]> = [
    ["contract ready, all four capabilities", "capability.contract_ready", contractReady()],
    [
      "contract ready, no capabilities, ws_platform",
      "capability.contract_ready",
      { ...contractReady(), capabilities: [], workspace_id: "ws_platform" },
    ],
    ...Object.entries(requests).map(([name, r]): [string, TCapType, unknown] => [
      `requested ${name}`,
      "capability.invocation_requested",
      invocationRequested(r),
    ]),
    [
      "requested with evidence input and optional ids",
      "capability.invocation_requested",
      {
        ...invocationRequested(),
        input: { kind: "evidence", uri: "s3://b/k", sha256: sha, size_bytes: 9007199254740991 },
        adjudication_run_id: `adj_${B}`,
        fix_run_id: null,
        environment_type: "production",
        execution_id: null,
        bridge_invocation_id: `inv_${B}`,
      },
    ],
    [
      "requested with inline null json",
      "capability.invocation_requested",
      { ...invocationRequested(), input: { kind: "inline", json: null } },
    ],
    ["resulted completed", "capability.invocation_resulted", invocationResulted()],
    [
      "resulted denied",
      "capability.invocation_resulted",
      {
        ...invocationResulted(),
        outcome: "denied",
        reason: "usage_denied",
        output: null,
        provider: null,
        binding_id: `bind_${B}`,
        usage: { units: 0, unit: "calls" },
      },
    ],
    [
      "resulted with inline output",
      "capability.invocation_resulted",
      { ...invocationResulted(), output: { kind: "inline", json: [1, "a"] } },
    ],
  ];
  it.each(valid)("%s", (_name, type, data) => {
    expect(validateEventData(type, data)).toEqual([]);
    expect(check(type, data)).toEqual([true, true]);
  });
});

describe("invalid payloads fail both validators", () => {
  const cr = contractReady();
  const rq = invocationRequested();
  const rs = invocationResulted();
  const kv = 2; // index of data.kv in contractReady().capabilities
  const email = 3;
  const invalid: Array<[string, TCapType, unknown]> = [
    // Wrong version fields: API-only contract fields, fields of other shapes, missing required ones.
    [
      "contract with API-only id/created_at/updated_at",
      "capability.contract_ready",
      { ...cr, id: `rev_${B}`, created_at: "2024-01-01T00:00:00Z", updated_at: "2024-01-01T00:00:00Z" },
    ],
    ["contract without contract_hash", "capability.contract_ready", mutate(cr, (d) => delete d.contract_hash)],
    ["requested without input (an older shape)", "capability.invocation_requested", mutate(rq, (d) => delete d.input)],
    ["requested with a field of no version", "capability.invocation_requested", { ...rq, capability: "ai.generate" }],
    ["resulted without fallback_used", "capability.invocation_resulted", mutate(rs, (d) => delete d.fallback_used)],
    ["resulted with a requested-only field", "capability.invocation_resulted", { ...rs, revision_id: `rev_${B}` }],
    // Id prefixes.
    [
      "capability_invocation_id with inv_",
      "capability.invocation_requested",
      { ...rq, capability_invocation_id: `inv_${B}` },
    ],
    ["execution_id with exec_", "capability.invocation_requested", { ...rq, execution_id: `exec_${B}` }],
    ["bridge_invocation_id with ses_", "capability.invocation_requested", { ...rq, bridge_invocation_id: `ses_${B}` }],
    ["product_id with upper case", "capability.contract_ready", { ...cr, product_id: `prod_${B.toUpperCase()}` }],
    [
      "revision_id with excluded letter u",
      "capability.contract_ready",
      { ...cr, revision_id: `rev_${B.slice(0, 25)}u` },
    ],
    [
      "workspace_id ws_ with a first char of 8",
      "capability.invocation_resulted",
      { ...rs, workspace_id: `ws_8${B.slice(1)}` },
    ],
    ["binding_id with cred_", "capability.invocation_resulted", { ...rs, binding_id: `cred_${B}` }],
    ["adjudication_run_id with fix_", "capability.invocation_requested", { ...rq, adjudication_run_id: `fix_${B}` }],
    // email.send.
    [
      "51 recipients",
      "capability.invocation_requested",
      invocationRequested({
        ...requests["email.send"],
        recipients: Array.from({ length: 51 }, (_, i) => `r${i}@example.com`),
      }),
    ],
    [
      "no recipients",
      "capability.invocation_requested",
      invocationRequested({ ...requests["email.send"], recipients: [] }),
    ],
    [
      "email request without bytes",
      "capability.invocation_requested",
      invocationRequested({ id: "email.send", action: "send", from: "a@example.com", recipients: ["b@example.com"] }),
    ],
    [
      "max_recipients 0",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[email].scope.max_recipients = 0;
      }),
    ],
    [
      "max_recipients 51",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[email].scope.max_recipients = 51;
      }),
    ],
    [
      "33 from_addresses",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[email].scope.from_addresses = Array.from({ length: 33 }, (_, i) => `f${i}@example.com`);
      }),
    ],
    [
      "max_message_bytes over 1 MiB",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[email].scope.max_message_bytes = 1048577;
      }),
    ],
    [
      "upper-case from address",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[email].scope.from_addresses = ["Alice@example.com"];
      }),
    ],
    [
      "upper-case address domain",
      "capability.invocation_requested",
      invocationRequested({ ...requests["email.send"], from: "alice@Example.com" }),
    ],
    [
      "upper-case recipient",
      "capability.invocation_requested",
      invocationRequested({ ...requests["email.send"], recipients: ["BOB@example.com"] }),
    ],
    [
      "address label starting with a hyphen",
      "capability.invocation_requested",
      invocationRequested({ ...requests["email.send"], from: "a@-x.example.com" }),
    ],
    [
      "address label of 64 chars",
      "capability.invocation_requested",
      invocationRequested({ ...requests["email.send"], from: `a@${"x".repeat(64)}.com` }),
    ],
    [
      "address with two dots in the local part",
      "capability.invocation_requested",
      invocationRequested({ ...requests["email.send"], from: "a..b@example.com" }),
    ],
    [
      "address without @",
      "capability.invocation_requested",
      invocationRequested({ ...requests["email.send"], from: "example.com" }),
    ],
    [
      "address of 255 chars",
      "capability.invocation_requested",
      invocationRequested({
        ...requests["email.send"],
        from: `${"a".repeat(64)}@${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.com`.padEnd(255, "e"),
      }),
    ],
    [
      "upper-case recipient domain",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[email].scope.recipient_domains = ["Example.com"];
      }),
    ],
    [
      "wildcard subdomain recipient domain",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[email].scope.recipient_domains = ["*.example.com"];
      }),
    ],
    [
      "recipient domain ending with a hyphen",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[email].scope.recipient_domains = ["example-.com"];
      }),
    ],
    // data.kv provider is fixed.
    [
      "kv provider allow redis",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].provider.allow = ["redis"];
      }),
    ],
    [
      "kv provider allow platform twice",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].provider.allow = ["platform", "platform"];
      }),
    ],
    [
      "kv provider allow empty",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].provider.allow = [];
      }),
    ],
    [
      "kv provider fallback listed",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].provider.fallback = "listed";
      }),
    ],
    [
      "kv provider prefer redis",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].provider.prefer = "redis";
      }),
    ],
    [
      "kv credential_owner workspace",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].credential_owner = "workspace";
      }),
    ],
    [
      "kv max_value_bytes 65537",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].scope.max_value_bytes = 65537;
      }),
    ],
    [
      "kv max_keys 0",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].scope.max_keys = 0;
      }),
    ],
    [
      "kv prefix with ..",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[kv].scope.prefix = "/a/../b";
      }),
    ],
    // Other capability entry rules.
    [
      "ai.generate with action read",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[0].actions = ["read"];
      }),
    ],
    [
      "ai.generate with no actions",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[0].actions = [];
      }),
    ],
    [
      "ai.generate owned by the platform",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[0].credential_owner = "platform";
      }),
    ],
    [
      "ai.generate model image",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[0].scope.models = ["image"];
      }),
    ],
    [
      "ai.generate max_tokens_per_call 0",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[0].scope.max_tokens_per_call = 0;
      }),
    ],
    [
      "ai.generate fractional max_tokens_per_call",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[0].scope.max_tokens_per_call = 1.5;
      }),
    ],
    [
      "storage prefix not starting with /",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[1].scope.prefix = "uploads/";
      }),
    ],
    [
      "storage max_object_bytes over 2^53-1",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[1].scope.max_object_bytes = 9007199254740992;
      }),
    ],
    [
      "provider fallback sometimes",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[0].provider.fallback = "sometimes";
      }),
    ],
    [
      "provider without allow",
      "capability.contract_ready",
      mutate(cr, (d) => {
        delete d.capabilities[0].provider.allow;
      }),
    ],
    [
      "capability id unknown",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[0].id = "ai.imagine";
      }),
    ],
    [
      "entry without required",
      "capability.contract_ready",
      mutate(cr, (d) => {
        delete d.capabilities[0].required;
      }),
    ],
    [
      "scope with an extra field",
      "capability.contract_ready",
      mutate(cr, (d) => {
        d.capabilities[1].scope.extra = 1;
      }),
    ],
    ["contract_hash upper case", "capability.contract_ready", { ...cr, contract_hash: "A".repeat(64) }],
    // Requests.
    [
      "request id/shape mismatch",
      "capability.invocation_requested",
      invocationRequested({ id: "ai.generate", action: "get", key: "/k" }),
    ],
    [
      "request max_tokens 0",
      "capability.invocation_requested",
      invocationRequested({ ...requests["ai.generate"], max_tokens: 0 }),
    ],
    [
      "storage key with ..",
      "capability.invocation_requested",
      invocationRequested({ ...requests["storage.object"], key: "/a/..", bytes: 1 }),
    ],
    [
      "kv key relative",
      "capability.invocation_requested",
      invocationRequested({ ...requests["data.kv"], key: "counters" }),
    ],
    [
      "kv bytes negative",
      "capability.invocation_requested",
      invocationRequested({ ...requests["data.kv"], bytes: -1 }),
    ],
    ["input inline without json", "capability.invocation_requested", { ...rq, input: { kind: "inline" } }],
    [
      "input evidence without size_bytes",
      "capability.invocation_requested",
      { ...rq, input: { kind: "evidence", uri: "s3://b/k", sha256: sha } },
    ],
    [
      "input evidence with empty uri",
      "capability.invocation_requested",
      { ...rq, input: { kind: "evidence", uri: "", sha256: sha, size_bytes: 1 } },
    ],
    ["environment_type dev", "capability.invocation_requested", { ...rq, environment_type: "dev" }],
    // Timestamps.
    ["timestamp without Z", "capability.invocation_requested", { ...rq, requested_at: "2024-01-01T00:00:00" }],
    ["timestamp with an offset", "capability.invocation_resulted", { ...rs, finished_at: "2024-01-01T00:00:00+00:00" }],
    ["timestamp on 2023-02-29", "capability.contract_ready", { ...cr, confirmed_at: "2023-02-29T00:00:00Z" }],
    ["timestamp without seconds", "capability.contract_ready", { ...cr, confirmed_at: "2024-01-01T00:00Z" }],
    ["timestamp lower-case z", "capability.contract_ready", { ...cr, confirmed_at: "2024-01-01T00:00:00z" }],
    // Results.
    ["outcome pending", "capability.invocation_resulted", { ...rs, outcome: "pending" }],
    ["reason admitted", "capability.invocation_resulted", { ...rs, reason: "admitted" }],
    ["reason missing", "capability.invocation_resulted", mutate(rs, (d) => delete d.reason)],
    ["usage units negative", "capability.invocation_resulted", { ...rs, usage: { units: -1, unit: "tokens" } }],
    ["usage unit seconds", "capability.invocation_resulted", { ...rs, usage: { units: 1, unit: "seconds" } }],
    [
      "output evidence sha256 upper case",
      "capability.invocation_resulted",
      { ...rs, output: { ...rs.output, sha256: "A".repeat(64) } },
    ],
  ];

  it.each(invalid)("%s", (_name, type, data) => {
    expect(validateEventData(type, data).length).toBeGreaterThan(0);
    expect(check(type, data)).toEqual([false, false]);
  });
});

describe("validateEventData", () => {
  it("returns errors with JSON-pointer-ish paths", () => {
    const errors = validateEventData("capability.invocation_requested", {
      ...invocationRequested(),
      capability_invocation_id: "x",
    });
    expect(errors).toEqual([expect.objectContaining({ path: "/capability_invocation_id" })]);
  });

  it("refuses an unknown type and a version other than the current", () => {
    expect(validateEventData("capability.nope", {})).toHaveLength(1);
    expect(validateEventData("capability.contract_ready", contractReady(), "1.1.0")).toHaveLength(1);
    expect(validateEventData("capability.contract_ready", contractReady(), "1.2.0")).toEqual([]);
  });

  it("has nothing to check for event types without a published schema", () => {
    expect(validateEventData("workspace.created", { anything: true })).toEqual([]);
  });
});
