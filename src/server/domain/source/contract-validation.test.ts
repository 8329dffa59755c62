import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/server/platform/canonical-json";
import { sha256Hex } from "@/server/platform/crypto";
import { contractHash, isValidAddress, isValidDomain, isWidening, validateContract } from "./contract-validation";
import type { TCapabilityEntry, TContractRejectionReason } from "./source.types";

type TEntry = Record<string, unknown> & { scope: Record<string, unknown>; provider: Record<string, unknown> };
const AI = (): TEntry => ({
  id: "ai.generate",
  required: true,
  actions: ["generate"],
  scope: { models: ["text"], max_tokens_per_call: 1000 },
  credential_owner: "workspace",
  provider: { allow: ["openai", "anthropic"], fallback: "listed", prefer: "openai" },
});
const STORAGE = (): TEntry => ({
  id: "storage.object",
  required: false,
  actions: ["read", "write"],
  scope: { prefix: "/uploads", max_object_bytes: 10_000_000 },
  credential_owner: "workspace",
  provider: { allow: ["s3"], fallback: "none" },
});
const KV = (): TEntry => ({
  id: "data.kv",
  required: true,
  actions: ["get", "set"],
  scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 100 },
  credential_owner: "platform",
  provider: { allow: ["platform"], fallback: "none" },
});
const EMAIL = (): TEntry => ({
  id: "email.send",
  required: false,
  actions: ["send"],
  scope: {
    from_addresses: ["noreply@example.com"],
    recipient_domains: ["example.com"],
    max_recipients: 10,
    max_message_bytes: 100_000,
  },
  credential_owner: "workspace",
  provider: { allow: ["ses"], fallback: "none" },
});
const doc = (...caps: unknown[]) => JSON.stringify({ capabilities: caps });
const ENTRY = { ai: AI, storage: STORAGE, kv: KV, email: EMAIL };

function rejected(text: string | null, reason: TContractRejectionReason, path: string) {
  const r = validateContract(text);
  expect(r).toMatchObject({ ok: false, reason, path });
  if (!r.ok) expect(r.message.length).toBeGreaterThan(0);
  return r;
}
function accepted(text: string | null) {
  const r = validateContract(text);
  if (!r.ok) throw new Error(`expected a valid contract, got ${r.reason} at ${r.path}: ${r.message}`);
  return r;
}

describe("validateContract: accepted contracts", () => {
  it("treats no file as the empty contract", () => {
    const r = accepted(null);
    expect(r.capabilities).toEqual([]);
    expect(r.contractHash).toBe(sha256Hex("[]"));
  });

  it("accepts an empty capabilities array", () => {
    expect(accepted(doc()).contractHash).toBe(sha256Hex("[]"));
  });

  it("accepts all four capabilities, sorts them by id and hashes the canonical JSON", () => {
    const r = accepted(doc(STORAGE(), EMAIL(), KV(), AI()));
    expect(r.capabilities.map((c) => c.id)).toEqual(["ai.generate", "data.kv", "email.send", "storage.object"]);
    expect(r.capabilities[0]).toEqual(AI());
    expect(r.contractHash).toBe(sha256Hex(canonicalJson([AI(), KV(), EMAIL(), STORAGE()])));
    expect(r.contractHash).toMatch(/^[0-9a-f]{64}$/);
    expect(contractHash(r.capabilities)).toBe(r.contractHash);
  });

  it("keeps the hash under key reordering, whitespace and entry order", () => {
    const a = accepted(doc(AI(), STORAGE())).contractHash;
    const reordered = `{
      "capabilities": [
        { "provider": { "fallback": "none", "allow": ["s3"] }, "scope": { "max_object_bytes": 10000000, "prefix": "/uploads" },
          "credential_owner": "workspace", "actions": ["read", "write"], "required": false, "id": "storage.object" },
        {"scope":{"max_tokens_per_call":1000,"models":["text"]},"id":"ai.generate","required":true,"actions":["generate"],
         "credential_owner":"workspace","provider":{"prefer":"openai","fallback":"listed","allow":["openai","anthropic"]}}
      ]
    }\n`;
    expect(accepted(reordered).contractHash).toBe(a);
    expect(accepted(JSON.stringify({ capabilities: [STORAGE(), AI()] }, null, 4)).contractHash).toBe(a);
  });

  it("keeps action order as given (a different order is a different hash)", () => {
    const swapped = { ...STORAGE(), actions: ["write", "read"] };
    expect(accepted(doc(swapped)).capabilities[0]!.actions).toEqual(["write", "read"]);
    expect(accepted(doc(swapped)).contractHash).not.toBe(accepted(doc(STORAGE())).contractHash);
  });

  it("ignores a leading BOM and allows a string $schema member", () => {
    expect(accepted("\uFEFF" + doc(AI())).capabilities).toHaveLength(1);
    expect(accepted(JSON.stringify({ $schema: "https://example.com/s.json", capabilities: [AI()] })).contractHash).toBe(
      accepted(doc(AI())).contractHash,
    );
  });

  it("allows an optional prefer, an empty allow list and duplicates inside scope arrays", () => {
    const ai = AI();
    delete ai.provider.prefer;
    ai.provider.allow = [];
    ai.scope.models = ["text", "embedding", "text"];
    expect(accepted(doc(ai)).capabilities[0]!.provider).toEqual({ allow: [], fallback: "listed" });
  });
});

describe("validateContract: contract_too_large", () => {
  it("accepts exactly 64 KiB of UTF-8 and rejects one byte more", () => {
    const base = doc(AI());
    const exact = base + " ".repeat(65536 - Buffer.byteLength(base));
    expect(Buffer.byteLength(exact)).toBe(65536);
    accepted(exact);
    rejected(exact + " ", "contract_too_large", "/");
  });

  it("counts UTF-8 bytes, not characters", () => {
    const text = JSON.stringify({ $schema: "é".repeat(33_000), capabilities: [] });
    expect(text.length).toBeLessThan(65536);
    rejected(text, "contract_too_large", "/");
  });

  it("rejects more than 32 entries before looking at them", () => {
    rejected(doc(...Array.from({ length: 33 }, () => ({ id: "nope" }))), "contract_too_large", "/capabilities");
    // 32 is within the limit: these fail on the duplicate id instead.
    rejected(
      doc(...Array.from({ length: 32 }, (_, i) => [AI, STORAGE, KV, EMAIL][i % 4]!())),
      "scope_invalid",
      "/capabilities/4/id",
    );
  });
});

describe("validateContract: unknown_capability, unknown_action, owner_not_supported", () => {
  it.each([["ai.chat"], [42], [null]])("rejects id %j", (id) => {
    rejected(doc(AI(), { ...STORAGE(), id }), "unknown_capability", "/capabilities/1/id");
  });

  it("rejects a missing id", () => {
    const { id: _id, ...rest } = AI();
    rejected(doc(rest), "unknown_capability", "/capabilities/0/id");
  });

  it.each([
    ["ai", ["generate", "embed"], 1],
    ["storage", ["read", "get"], 1],
    ["kv", ["increment", "write"], 1],
    ["email", [7], 0],
  ] as const)("rejects an action not allowed for %s", (which, actions, bad) => {
    rejected(doc({ ...ENTRY[which](), actions }), "unknown_action", `/capabilities/0/actions/${bad}`);
  });

  it("accepts every allowed action", () => {
    accepted(
      doc(
        { ...STORAGE(), actions: ["read", "write", "delete", "list"] },
        { ...KV(), actions: ["get", "set", "delete", "list", "increment"] },
      ),
    );
  });

  it.each([
    ["ai", "platform"],
    ["storage", "platform"],
    ["email", "platform"],
    ["kv", "workspace"],
    ["ai", "user"],
    ["kv", undefined],
  ] as const)("rejects %s with credential_owner %s", (which, owner) => {
    rejected(
      doc({ ...ENTRY[which](), credential_owner: owner }),
      "owner_not_supported",
      "/capabilities/0/credential_owner",
    );
  });
});

describe("validateContract: scope_invalid (structure)", () => {
  it.each([
    ["not JSON", "{capabilities: []}", "/"],
    ["empty text", "", "/"],
    ["a top-level array", "[]", "/"],
    ["a top-level null", "null", "/"],
    ["an extra top-level member", JSON.stringify({ capabilities: [], extra: 1 }), "/extra"],
    ["a non-string $schema", JSON.stringify({ capabilities: [], $schema: 1 }), "/$schema"],
    ["an escaped member name", JSON.stringify({ capabilities: [], "a/b~": 1 }), "/a~1b~0"],
    ["no capabilities", "{}", "/capabilities"],
    ["capabilities not an array", JSON.stringify({ capabilities: {} }), "/capabilities"],
    ["an entry that is not an object", doc(AI(), "storage.object"), "/capabilities/1"],
    ["a duplicate id", doc(AI(), STORAGE(), AI()), "/capabilities/2/id"],
    ["an extra entry field", doc({ ...AI(), note: "x" }), "/capabilities/0/note"],
    ["required missing", doc({ ...AI(), required: undefined }), "/capabilities/0/required"],
    ["required not boolean", doc({ ...AI(), required: "yes" }), "/capabilities/0/required"],
    ["actions empty", doc({ ...AI(), actions: [] }), "/capabilities/0/actions"],
    ["actions not an array", doc({ ...AI(), actions: "generate" }), "/capabilities/0/actions"],
    ["actions missing", doc({ ...AI(), actions: undefined }), "/capabilities/0/actions"],
    ["a duplicate action", doc({ ...STORAGE(), actions: ["read", "write", "read"] }), "/capabilities/0/actions/2"],
    ["scope missing", doc({ ...AI(), scope: undefined }), "/capabilities/0/scope"],
    ["scope not an object", doc({ ...AI(), scope: [] }), "/capabilities/0/scope"],
    [
      "an extra scope field",
      doc({ ...AI(), scope: { ...AI().scope, temperature: 1 } }),
      "/capabilities/0/scope/temperature",
    ],
    [
      "a missing scope field",
      doc({ ...AI(), scope: { models: ["text"] } }),
      "/capabilities/0/scope/max_tokens_per_call",
    ],
    ["provider missing", doc({ ...AI(), provider: undefined }), "/capabilities/0/provider"],
    [
      "provider.allow not an array",
      doc({ ...AI(), provider: { allow: "openai", fallback: "none" } }),
      "/capabilities/0/provider/allow",
    ],
    [
      "provider.allow with a non-string",
      doc({ ...AI(), provider: { allow: ["openai", 1], fallback: "none" } }),
      "/capabilities/0/provider/allow/1",
    ],
    ["provider.fallback missing", doc({ ...AI(), provider: { allow: [] } }), "/capabilities/0/provider/fallback"],
    [
      "provider.fallback unknown",
      doc({ ...AI(), provider: { allow: [], fallback: "any" } }),
      "/capabilities/0/provider/fallback",
    ],
    [
      "provider.prefer not a string",
      doc({ ...AI(), provider: { allow: [], fallback: "none", prefer: 1 } }),
      "/capabilities/0/provider/prefer",
    ],
    [
      "an extra provider field",
      doc({ ...AI(), provider: { allow: [], fallback: "none", deny: [] } }),
      "/capabilities/0/provider/deny",
    ],
  ])("rejects %s", (_what, text, path) => {
    rejected(text, "scope_invalid", path);
  });

  it("reports the first failing entry in file order, checks in entry order", () => {
    // Entry 0 has a bad scope, entry 1 an unknown id: entry 0 wins.
    rejected(doc({ ...AI(), scope: {} }, { id: "x" }), "scope_invalid", "/capabilities/0/scope/models");
    // Within an entry, the action is checked before the owner and the scope.
    rejected(
      doc({ ...AI(), actions: ["x"], credential_owner: "platform", scope: {} }),
      "unknown_action",
      "/capabilities/0/actions/0",
    );
    rejected(
      doc({ ...AI(), credential_owner: "platform", scope: {} }),
      "owner_not_supported",
      "/capabilities/0/credential_owner",
    );
  });
});

describe("validateContract: scope bounds (spec 2.7 and 8)", () => {
  const MAX = 9007199254740991;
  const addresses = (n: number) => Array.from({ length: n }, (_, i) => `a${i}@example.com`);
  const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.example.com`);
  it.each([
    ["ai", "models", ["text", "embedding"], true],
    ["ai", "models", [], false],
    ["ai", "models", ["image"], false],
    ["ai", "models", "text", false],
    ["ai", "max_tokens_per_call", 1, true],
    ["ai", "max_tokens_per_call", MAX, true],
    ["ai", "max_tokens_per_call", 0, false],
    ["ai", "max_tokens_per_call", MAX + 1, false],
    ["ai", "max_tokens_per_call", 1.5, false],
    ["ai", "max_tokens_per_call", "10", false],
    ["storage", "prefix", "/", true],
    ["storage", "prefix", "/a/b/", true],
    ["storage", "prefix", "uploads", false],
    ["storage", "prefix", "", false],
    ["storage", "prefix", "/a/../b", false],
    ["storage", "prefix", "/a..b", false],
    ["storage", "prefix", 1, false],
    ["storage", "max_object_bytes", MAX, true],
    ["storage", "max_object_bytes", MAX + 1, false],
    ["storage", "max_object_bytes", -1, false],
    ["kv", "prefix", "/kv", true],
    ["kv", "prefix", "kv", false],
    ["kv", "max_value_bytes", 65536, true],
    ["kv", "max_value_bytes", 65537, false],
    ["kv", "max_value_bytes", 0, false],
    ["kv", "max_keys", 100000, true],
    ["kv", "max_keys", 100001, false],
    ["kv", "max_keys", 0, false],
    ["email", "max_recipients", 1, true],
    ["email", "max_recipients", 50, true],
    ["email", "max_recipients", 51, false],
    ["email", "max_recipients", 0, false],
    ["email", "max_message_bytes", 1048576, true],
    ["email", "max_message_bytes", 1048577, false],
    ["email", "max_message_bytes", 0, false],
    ["email", "from_addresses", addresses(32), true],
    ["email", "from_addresses", addresses(33), false],
    ["email", "from_addresses", [], false],
    ["email", "recipient_domains", domains(32), true],
    ["email", "recipient_domains", domains(33), false],
    ["email", "recipient_domains", [], false],
    ["email", "recipient_domains", ["*"], true],
  ] as const)("%s scope.%s = %j valid: %s", (which, field, value, ok) => {
    const e = ENTRY[which]();
    e.scope[field] = value;
    if (ok) accepted(doc(e));
    else {
      const r = validateContract(doc(e));
      expect(r).toMatchObject({ ok: false, reason: "scope_invalid" });
      // The field itself, or its offending item (e.g. scope/models/0).
      expect(!r.ok && r.path).toMatch(new RegExp(`^/capabilities/0/scope/${field}(/\\d+)?$`));
    }
  });

  it("points at the offending address or domain", () => {
    rejected(
      doc({ ...EMAIL(), scope: { ...EMAIL().scope, from_addresses: ["a@example.com", "Bob@example.com"] } }),
      "scope_invalid",
      "/capabilities/0/scope/from_addresses/1",
    );
    rejected(
      doc({ ...EMAIL(), scope: { ...EMAIL().scope, recipient_domains: ["example.com", "*.example.com"] } }),
      "scope_invalid",
      "/capabilities/0/scope/recipient_domains/1",
    );
  });
});

describe("validateContract: the fixed data.kv provider", () => {
  it.each([
    [{ allow: ["platform"], fallback: "none" }, null],
    [{ allow: ["platform"], fallback: "none", prefer: "platform" }, null],
    [{ allow: ["platform"], fallback: "none", prefer: "redis" }, "/capabilities/0/provider/prefer"],
    [{ allow: [], fallback: "none" }, "/capabilities/0/provider/allow"],
    [{ allow: ["redis"], fallback: "none" }, "/capabilities/0/provider/allow"],
    [{ allow: ["platform", "redis"], fallback: "none" }, "/capabilities/0/provider/allow"],
    [{ allow: ["platform", "platform"], fallback: "none" }, "/capabilities/0/provider/allow"],
    [{ allow: ["platform"], fallback: "listed" }, "/capabilities/0/provider/fallback"],
  ])("provider %j -> %s", (provider, path) => {
    if (path === null) expect(accepted(doc({ ...KV(), provider })).capabilities[0]!.provider).toEqual(provider);
    else rejected(doc({ ...KV(), provider }), "scope_invalid", path);
  });
});

describe("Address rule", () => {
  const label = (n: number, c = "b") => c.repeat(n);
  it.each([
    "app@example.com",
    "a.b+tag@mail.example.co",
    "x!#$%&'*+/=?^_`{|}~-@example.com",
    "a@localhost",
    "a@ex-ample.com",
    "a@a--b.com",
    "1@2.3",
    '"john doe"@example.com',
    '"a\\"b"@example.com',
    '"a@b"@example.com',
    '""@example.com',
  ])("accepts %s", (a) => expect(isValidAddress(a)).toBe(true));

  it.each([
    "App@example.com",
    "app@Example.com",
    '"John"@example.com',
    "a..b@example.com",
    ".a@example.com",
    "a.@example.com",
    "a@-example.com",
    "a@example-.com",
    "a@exa_mple.com",
    "a@example..com",
    "a@example.com.",
    "a@",
    "@example.com",
    "a b@example.com",
    '"a"b"@example.com',
    '"é"@example.com',
    "é@example.com",
    "a@b@example.com",
    "example.com",
    "",
  ])("rejects %s", (a) => expect(isValidAddress(a)).toBe(false));

  it("allows at most 254 characters", () => {
    const domain = [label(63), label(63), label(63)].join(".");
    const ok = `${"a".repeat(62)}@${domain}`;
    expect(ok).toHaveLength(254);
    expect(isValidAddress(ok)).toBe(true);
    expect(isValidAddress(`a${ok}`)).toBe(false);
  });

  it("allows labels of 1..63 characters", () => {
    expect(isValidAddress(`a@${label(63)}.com`)).toBe(true);
    expect(isValidAddress(`a@${label(64)}.com`)).toBe(false);
    expect(isValidAddress("a@b.c")).toBe(true);
  });

  it("rejects non-strings", () => {
    expect(isValidAddress(42)).toBe(false);
    expect(isValidAddress(null)).toBe(false);
  });
});

describe("Domain rule", () => {
  it.each(["*", "example.com", "localhost", "a-b.example.com", "xn--bcher-kva.example", "1.2.3"])("accepts %s", (d) =>
    expect(isValidDomain(d)).toBe(true),
  );

  it.each([
    "*.example.com",
    "**",
    "Example.com",
    "",
    "ex_ample.com",
    "-a.com",
    "a-.com",
    "a.com.",
    ".a.com",
    "a..com",
    "a b.com",
  ])("rejects %s", (d) => expect(isValidDomain(d)).toBe(false));

  it("allows at most 253 characters and labels of at most 63", () => {
    const l63 = "c".repeat(63);
    const ok = [l63, l63, l63, "d".repeat(61)].join(".");
    expect(ok).toHaveLength(253);
    expect(isValidDomain(ok)).toBe(true);
    expect(isValidDomain(`${ok}d`)).toBe(false);
    expect(isValidDomain(`${"e".repeat(64)}.com`)).toBe(false);
  });
});

describe("isWidening", () => {
  const ai = () => AI() as unknown as TCapabilityEntry;
  const storage = () => STORAGE() as unknown as TCapabilityEntry;
  const kv = () => KV() as unknown as TCapabilityEntry;
  const email = () => EMAIL() as unknown as TCapabilityEntry;
  const withScope = (e: TCapabilityEntry, scope: Record<string, unknown>) => ({
    ...e,
    scope: { ...e.scope, ...scope },
  });

  it("is not widening for the same contract, in any order", () => {
    expect(isWidening([ai(), storage()], [storage(), ai()])).toEqual({ widened: false });
    expect(isWidening([], [])).toEqual({ widened: false });
  });

  it("is not widening to drop or narrow", () => {
    expect(isWidening([ai(), storage()], [ai()]).widened).toBe(false);
    expect(isWidening([storage()], [{ ...storage(), actions: ["read"] }]).widened).toBe(false);
    expect(isWidening([ai()], [withScope(ai(), { max_tokens_per_call: 10 })]).widened).toBe(false);
    expect(isWidening([ai()], [{ ...ai(), provider: { allow: ["openai"], fallback: "none" } }]).widened).toBe(false);
    expect(isWidening([ai()], [{ ...ai(), required: false }]).widened).toBe(false);
  });

  it("is widening to add a capability", () => {
    expect(isWidening([ai()], [ai(), kv()])).toEqual({ widened: true, why: "adds capability data.kv" });
    expect(isWidening([], [ai()]).widened).toBe(true);
  });

  it("is widening to add an action", () => {
    expect(isWidening([storage()], [{ ...storage(), actions: ["read", "write", "delete"] }])).toEqual({
      widened: true,
      why: "storage.object: adds action delete",
    });
  });

  it.each([
    [ai, "max_tokens_per_call"],
    [storage, "max_object_bytes"],
    [kv, "max_value_bytes"],
    [kv, "max_keys"],
    [email, "max_recipients"],
    [email, "max_message_bytes"],
  ] as const)("is widening to raise %#: %s", (make, key) => {
    const prev = make();
    const raised = withScope(prev, { [key]: (prev.scope[key] as number) + 1 });
    const r = isWidening([prev], [raised]);
    expect(r.widened).toBe(true);
    expect(r.why).toContain(key);
  });

  it("is widening to add a model or a from address", () => {
    expect(isWidening([ai()], [withScope(ai(), { models: ["text", "embedding"] })]).why).toBe(
      "ai.generate: adds models item embedding",
    );
    expect(
      isWidening([email()], [withScope(email(), { from_addresses: ["noreply@example.com", "ceo@example.com"] })])
        .widened,
    ).toBe(true);
  });

  it("is widening to add a recipient domain or *, unless * was already allowed", () => {
    expect(
      isWidening([email()], [withScope(email(), { recipient_domains: ["example.com", "other.com"] })]).widened,
    ).toBe(true);
    expect(isWidening([email()], [withScope(email(), { recipient_domains: ["*"] })]).why).toBe(
      "email.send: adds recipient domain *",
    );
    const star = withScope(email(), { recipient_domains: ["*"] });
    expect(isWidening([star], [withScope(email(), { recipient_domains: ["any.example"] })]).widened).toBe(false);
  });

  it.each([
    ["/uploads", "/uploads", false],
    ["/uploads", "/uploads/img", false],
    ["/uploads/", "/uploads/img", false],
    ["/", "/anything", false],
    ["/uploads", "/", true],
    ["/uploads", "/uploads2", true],
    ["/uploads/", "/uploads", true],
    ["/a/b", "/a", true],
  ])("prefix %s -> %s widens: %s", (prev, next, widened) => {
    expect(isWidening([withScope(storage(), { prefix: prev })], [withScope(storage(), { prefix: next })]).widened).toBe(
      widened,
    );
    expect(isWidening([withScope(kv(), { prefix: prev })], [withScope(kv(), { prefix: next })]).widened).toBe(widened);
  });

  it("is widening to allow another provider or to switch fallback none -> listed", () => {
    expect(isWidening([storage()], [{ ...storage(), provider: { allow: ["s3", "r2"], fallback: "none" } }]).why).toBe(
      "storage.object: allows provider r2",
    );
    expect(isWidening([storage()], [{ ...storage(), provider: { allow: ["s3"], fallback: "listed" } }]).why).toBe(
      "storage.object: switches provider fallback from none to listed",
    );
    expect(isWidening([ai()], [{ ...ai(), provider: { ...ai().provider, fallback: "none" } }]).widened).toBe(false);
    expect(isWidening([ai()], [{ ...ai(), provider: { ...ai().provider, prefer: "anthropic" } }]).widened).toBe(false);
  });
});
