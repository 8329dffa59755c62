import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { validateEventData } from "@/server/domain/events/event-schemas";
import { db } from "@/server/platform/db/client";
import { api, type TTestUser } from "./support/api";
import {
  bootBridgeApp,
  bridge,
  makeCredential,
  setupBridge,
  type TBridgeResult,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { startS3Server, type TS3Server } from "./support/s3-server";

/**
 * storage.object through an S3-compatible provider: a real SigV4-verifying
 * S3 server on loopback (test/support/s3-server.ts), credentials and
 * bindings through the REST API, calls through handleBridge.
 */
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

const storageCapability = (
  provider: { allow: string[]; prefer?: string; fallback?: "none" | "listed" } = { allow: ["s3"] },
  maxObjectBytes = 1000,
) => ({
  id: "storage.object" as const,
  required: true,
  actions: ["read", "write", "delete", "list"],
  scope: { prefix: "/files", max_object_bytes: maxObjectBytes },
  credential_owner: "workspace" as const,
  provider: { fallback: "none" as const, ...provider },
});

type TS3Binding = { credentialId: string; bindingId: string; accessKeyId: string; secret: string };

/** A fresh access key on the server, a credential `ACCESS_KEY_ID:SECRET_ACCESS_KEY` and a ready storage.object binding. */
async function addS3Binding(
  owner: TTestUser,
  ws: string,
  server: TS3Server,
  opts: {
    bucket: string;
    provider?: string;
    prefix?: string;
    maxObjectBytes?: number;
    actions?: string[];
    wrongSecret?: boolean;
    secret?: string;
  },
): Promise<TS3Binding> {
  const accessKeyId = `AKIA${randomBytes(8).toString("hex").toUpperCase()}`;
  const secretAccessKey = `${randomBytes(15).toString("base64")}/+x`;
  server.addKey(accessKeyId, secretAccessKey);
  const secret = opts.secret ?? `${accessKeyId}:${opts.wrongSecret ? "not-the-secret" : secretAccessKey}`;
  const actions = opts.actions ?? ["read", "write", "delete", "list"];
  const credentialId = await makeCredential(owner, ws, secret, {
    provider: opts.provider ?? "s3",
    capability: "storage.object",
    actions,
  });
  const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings`, {
    token: owner.token,
    body: {
      credential_id: credentialId,
      capability: "storage.object",
      actions,
      scope: [],
      budget: { units: 1000, unit: "tokens" },
      capability_scope: {
        id: "storage.object",
        scope: { prefix: opts.prefix ?? "/", max_object_bytes: opts.maxObjectBytes ?? 1_000_000 },
      },
      provider_config: { endpoint: server.endpoint, bucket: opts.bucket, region: server.region },
    },
  });
  expect(r.status, r.text).toBe(201);
  expect(r.json.status).toBe("ready");
  return { credentialId, bindingId: r.json.id, accessKeyId, secret };
}

function expectDenied(r: TBridgeResult, status: number, reason: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json.reason).toBe(reason);
  expect(r.json.capability_invocation_id).toMatch(/^cap_/);
}

async function storageBudget(s: TBridgeSetup) {
  // reserved_units includes an idle budget lease's unused part until it goes back (LEASE_IDLE_MS): settle it first.
  await returnLeases();
  const r = await api("GET", `/v1/workspaces/${s.ws}/budgets`, { token: s.owner.token });
  return r.json.items.find((b: { usage_category: string }) => b.usage_category === "storage") as {
    used_units: number;
    reserved_units: number;
  };
}

let s3: TS3Server;
let bucketCount = 0;
function newBucket(): string {
  const name = `bucket-${++bucketCount}`;
  s3.addBucket(name);
  return name;
}

beforeAll(async () => {
  await bootBridgeApp();
  s3 = await startS3Server();
});

afterAll(async () => {
  await s3?.close();
});

describe("storage.object on an S3-compatible provider", () => {
  let s: TBridgeSetup;
  let b: TS3Binding;
  let bucket: string;

  beforeAll(async () => {
    s = await setupBridge({ capabilities: [storageCapability()] });
    bucket = newBucket();
    b = await addS3Binding(s.owner, s.ws, s3, { bucket });
  });

  it("writes, reads, lists (paged) and deletes objects in the bucket under product-prefixed keys, charging writes to the storage budget", async () => {
    const content = Buffer.from("hello, s3\n");
    const w = await bridge(s.token, "storage.object", "write", {
      key: "/files/a.txt",
      content_base64: b64(content),
      content_type: "text/plain",
    });
    expect(w.status, w.text).toBe(200);
    expect(w.json).toMatchObject({
      outcome: "completed",
      provider: "s3",
      fallback_used: false,
      usage: { units: content.length, unit: "bytes" },
    });
    expect(w.json.output).toEqual({ key: "/files/a.txt", size_bytes: content.length, sha256: sha256(content) });

    // Really in the bucket, under <product id>/<key without its leading slash>, signed with the binding's key.
    const stored = s3.buckets.get(bucket)!.get(`${s.productId}/files/a.txt`)!;
    expect(Buffer.compare(stored.body, content)).toBe(0);
    expect(stored.contentType).toBe("text/plain");
    expect(stored.metadata.sha256).toBe(sha256(content));
    const puts = s3.requests.filter((r) => r.method === "PUT" && r.bucket === bucket);
    expect(puts.at(-1)).toMatchObject({ key: `${s.productId}/files/a.txt`, accessKeyId: b.accessKeyId, status: 200 });

    const odd = "/files/dir with space/ü+&?.txt";
    const w2 = await bridge(s.token, "storage.object", "write", { key: odd, content_base64: b64("b") });
    expect(w2.status, w2.text).toBe(200);
    expect(s3.buckets.get(bucket)!.has(`${s.productId}${odd}`)).toBe(true);
    await bridge(s.token, "storage.object", "write", { key: "/files/c", content_base64: b64("cc") });

    const r = await bridge(s.token, "storage.object", "read", { key: "/files/a.txt" });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ provider: "s3", usage: { units: content.length, unit: "bytes" } });
    expect(r.json.output).toEqual({
      key: "/files/a.txt",
      found: true,
      content_base64: b64(content),
      size_bytes: content.length,
      sha256: sha256(content),
      content_type: "text/plain",
    });
    const missing = await bridge(s.token, "storage.object", "read", { key: "/files/none" });
    expect(missing.status, missing.text).toBe(200);
    expect(missing.json.output).toEqual({
      key: "/files/none",
      found: false,
      content_base64: null,
      size_bytes: 0,
      sha256: null,
      content_type: null,
    });

    // Pages of 2 through S3's continuation tokens; keys come back as Bridge keys.
    const listed: Array<{ key: string; size_bytes: number; sha256: string }> = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await bridge(s.token, "storage.object", "list", {
        prefix: "/files/",
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status, page.text).toBe(200);
      expect(page.json.output.objects.length).toBeLessThanOrEqual(2);
      listed.push(...page.json.output.objects);
      cursor = page.json.output.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 5);
    expect(pages).toBe(2);
    expect(listed).toEqual([
      { key: "/files/a.txt", size_bytes: content.length, sha256: sha256(content) },
      { key: "/files/c", size_bytes: 2, sha256: sha256(Buffer.from("cc")) },
      { key: odd, size_bytes: 1, sha256: sha256(Buffer.from("b")) },
    ]);
    const lists = s3.requests.filter((q) => q.bucket === bucket && q.query["list-type"] === "2");
    expect(lists.at(-1)!.query).toMatchObject({
      prefix: `${s.productId}/files/`,
      "max-keys": "2",
      "continuation-token": expect.any(String),
    });

    const d = await bridge(s.token, "storage.object", "delete", { key: "/files/a.txt" });
    expect(d.json.output).toEqual({ key: "/files/a.txt", deleted: true });
    expect(s3.buckets.get(bucket)!.has(`${s.productId}/files/a.txt`)).toBe(false);
    expect((await bridge(s.token, "storage.object", "delete", { key: "/files/a.txt" })).json.output).toEqual({
      key: "/files/a.txt",
      deleted: false,
    });
    expect((await bridge(s.token, "storage.object", "read", { key: "/files/a.txt" })).json.output.found).toBe(false);

    // Writes spend their bytes (10 + 1 + 2); reads, lists and deletes spend nothing; the binding's token budget is untouched.
    const budget = await storageBudget(s);
    expect(budget.used_units).toBe(content.length + 1 + 2);
    expect(budget.reserved_units).toBe(0);
    const binding = await api("GET", `/v1/workspaces/${s.ws}/provider-bindings/${b.bindingId}`, {
      token: s.owner.token,
    });
    expect(binding.json.budget).toMatchObject({ used_units: 0, reserved_units: 0 });

    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: w.json.capability_invocation_id } });
    expect(row).toMatchObject({ provider: "s3", bindingId: b.bindingId, outcome: "completed" });
    const events = await db().outboxEvent.findMany({ where: { subject: w.json.capability_invocation_id } });
    expect(events.map((e) => e.type).sort()).toEqual([
      "capability.invocation_requested",
      "capability.invocation_resulted",
    ]);
    for (const e of events) expect(validateEventData(e.type, e.data, e.version), JSON.stringify(e.data)).toEqual([]);
    expect(events.find((e) => e.type === "capability.invocation_resulted")!.data).toMatchObject({
      provider: "s3",
      binding_id: b.bindingId,
      fallback_used: false,
    });
  });

  it("keeps products sharing a bucket apart", async () => {
    const other = await setupBridge({ capabilities: [storageCapability()], owner: s.owner, ws: s.ws });
    expect(
      (await bridge(s.token, "storage.object", "write", { key: "/files/mine", content_base64: b64("mine") })).status,
    ).toBe(200);
    expect(
      (await bridge(other.token, "storage.object", "write", { key: "/files/theirs", content_base64: b64("theirs") }))
        .status,
    ).toBe(200);
    expect(s3.buckets.get(bucket)!.has(`${other.productId}/files/theirs`)).toBe(true);

    expect((await bridge(other.token, "storage.object", "read", { key: "/files/mine" })).json.output.found).toBe(false);
    const theirList = await bridge(other.token, "storage.object", "list", { prefix: "/files/" });
    expect(theirList.json.output.objects.map((o: { key: string }) => o.key)).toEqual(["/files/theirs"]);
    expect((await bridge(other.token, "storage.object", "delete", { key: "/files/mine" })).json.output.deleted).toBe(
      false,
    );
    expect((await bridge(s.token, "storage.object", "read", { key: "/files/mine" })).json.output).toMatchObject({
      found: true,
      content_base64: b64("mine"),
    });
  });

  it("never records the credential secret (invocation rows, audit, outbox)", async () => {
    const secretPart = b.secret.slice(b.secret.indexOf(":") + 1);
    const rows = await db().capabilityInvocation.findMany({ where: { workspaceId: s.ws } });
    expect(rows.length).toBeGreaterThan(5);
    const audits = await db().auditRecord.findMany({ where: { workspaceId: s.ws } });
    const events = await db().outboxEvent.findMany({ where: { workspaceId: s.ws } });
    const text = JSON.stringify({ rows, audits, events }, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    expect(text).not.toContain(secretPart);
    expect(text).not.toContain(b.secret);
  });
});

describe("S3 errors", () => {
  it("provider_rejected (422) for a wrong secret, an unknown key, a missing bucket, AccessDenied and a malformed secret; nothing is charged", async () => {
    const s = await setupBridge({ capabilities: [storageCapability()] });
    const bucket = newBucket();
    const bad = await addS3Binding(s.owner, s.ws, s3, { bucket, wrongSecret: true });
    const before = s3.requests.length;
    const r = await bridge(s.token, "storage.object", "write", { key: "/files/x", content_base64: b64("x") });
    expectDenied(r, 422, "provider_rejected");
    expect(r.json.outcome).toBe("failed");
    expect(r.json.detail).toContain("SignatureDoesNotMatch");
    expect(r.text).not.toContain(bad.secret);
    // Rejections are not retried.
    expect(s3.requests.slice(before).map((q) => q.status)).toEqual([403]);
    expect(s3.buckets.get(bucket)!.size).toBe(0);
    expect((await storageBudget(s)).used_units).toBe(0);

    const cases: Array<[string, (ws: TBridgeSetup) => Promise<unknown>, string]> = [
      [
        "unknown access key",
        (x) => addS3Binding(x.owner, x.ws, s3, { bucket: newBucket(), secret: "AKIAUNKNOWN:whatever" }),
        "InvalidAccessKeyId",
      ],
      ["missing bucket", (x) => addS3Binding(x.owner, x.ws, s3, { bucket: "no-such-bucket" }), "NoSuchBucket"],
      [
        "access denied",
        async (x) => {
          const sb = await addS3Binding(x.owner, x.ws, s3, { bucket: newBucket() });
          s3.grant(sb.accessKeyId, ["some-other-bucket"]);
        },
        "AccessDenied",
      ],
      [
        "malformed secret",
        (x) => addS3Binding(x.owner, x.ws, s3, { bucket: newBucket(), secret: "just-one-part" }),
        "ACCESS_KEY_ID:SECRET_ACCESS_KEY",
      ],
    ];
    for (const [what, bind, detail] of cases) {
      const x = await setupBridge({ capabilities: [storageCapability()], owner: s.owner });
      await bind(x);
      for (const [action, body] of [
        ["read", { key: "/files/x" }],
        ["list", { prefix: "/files/" }],
        ["delete", { key: "/files/x" }],
      ] as const) {
        const res = await bridge(x.token, "storage.object", action, body);
        expectDenied(res, 422, "provider_rejected");
        // delete asks HEAD first, whose answers carry no error code: only the status then.
        expect(res.json.detail, `${what} ${action}`).toMatch(
          action === "delete" && what !== "malformed secret"
            ? new RegExp(`${detail}|403 Forbidden`)
            : new RegExp(detail),
        );
      }
    }
  });

  it("provider_unavailable (503) on 5xx after one retry (2 attempts), and when the endpoint is down", async () => {
    const s = await setupBridge({ capabilities: [storageCapability()] });
    const server = await startS3Server();
    const bucket = `b-${randomBytes(4).toString("hex")}`;
    server.addBucket(bucket);
    await addS3Binding(s.owner, s.ws, server, { bucket });
    server.behave({ mode: "503" });
    const r = await bridge(s.token, "storage.object", "write", { key: "/files/x", content_base64: b64("x") });
    expectDenied(r, 503, "provider_unavailable");
    expect(r.json.outcome).toBe("failed");
    expect(server.requests.map((q) => q.status)).toEqual([503, 503]);
    expect(await storageBudget(s)).toMatchObject({ used_units: 0, reserved_units: 0 });

    server.behave({ mode: "500" });
    expectDenied(await bridge(s.token, "storage.object", "read", { key: "/files/x" }), 503, "provider_unavailable");
    server.behave({ mode: "reset" });
    expectDenied(await bridge(s.token, "storage.object", "read", { key: "/files/x" }), 503, "provider_unavailable");
    await server.close();
    const down = await bridge(s.token, "storage.object", "read", { key: "/files/x" });
    expectDenied(down, 503, "provider_unavailable");
    expect(down.json.detail).toContain("ECONNREFUSED");
  });
});

describe("provider choice and fallback", () => {
  it("falls back to the platform store when S3 is down and the contract says fallback: listed (audited)", async () => {
    const s = await setupBridge({
      capabilities: [storageCapability({ allow: ["s3", "platform"], prefer: "s3", fallback: "listed" })],
    });
    const server = await startS3Server();
    server.addBucket("main");
    const sb = await addS3Binding(s.owner, s.ws, server, { bucket: "main" });

    const first = await bridge(s.token, "storage.object", "write", { key: "/files/a", content_base64: b64("on s3") });
    expect(first.json).toMatchObject({ provider: "s3", fallback_used: false });
    await server.close();

    const w = await bridge(s.token, "storage.object", "write", { key: "/files/b", content_base64: b64("on platform") });
    expect(w.status, w.text).toBe(200);
    expect(w.json).toMatchObject({
      outcome: "completed",
      provider: "platform",
      fallback_used: true,
      usage: { units: 11, unit: "bytes" },
    });
    const r = await bridge(s.token, "storage.object", "read", { key: "/files/b" });
    expect(r.json).toMatchObject({
      provider: "platform",
      fallback_used: true,
      output: { found: true, content_base64: b64("on platform") },
    });

    const audits = await db().auditRecord.findMany({ where: { workspaceId: s.ws, action: "capability.fallback" } });
    expect(audits.length).toBe(2);
    expect(audits[0]!.details).toMatchObject({ from: "s3", to: "platform", binding_id: null });
    const row = await db().capabilityInvocation.findUniqueOrThrow({ where: { id: w.json.capability_invocation_id } });
    expect(row).toMatchObject({ provider: "platform", bindingId: null, fallbackUsed: true });
    expect((await storageBudget(s)).used_units).toBe(5 + 11);
    expect(sb.bindingId).toMatch(/^bind_/);
  });

  it("does not fall back with fallback: none, nor on provider_rejected", async () => {
    const none = await setupBridge({
      capabilities: [storageCapability({ allow: ["s3", "platform"], prefer: "s3", fallback: "none" })],
    });
    const server = await startS3Server();
    server.addBucket("main");
    await addS3Binding(none.owner, none.ws, server, { bucket: "main" });
    await server.close();
    expectDenied(await bridge(none.token, "storage.object", "read", { key: "/files/a" }), 503, "provider_unavailable");

    const listed = await setupBridge({
      capabilities: [storageCapability({ allow: ["s3", "platform"], fallback: "listed" })],
    });
    await addS3Binding(listed.owner, listed.ws, s3, { bucket: newBucket(), wrongSecret: true });
    expectDenied(await bridge(listed.token, "storage.object", "read", { key: "/files/a" }), 422, "provider_rejected");
  });

  it("prefers platform when the contract says so, and serves from it without any binding", async () => {
    const s = await setupBridge({
      capabilities: [storageCapability({ allow: ["s3", "platform"], prefer: "platform" })],
    });
    const bucket = newBucket();
    await addS3Binding(s.owner, s.ws, s3, { bucket });
    const w = await bridge(s.token, "storage.object", "write", { key: "/files/p", content_base64: b64("p") });
    expect(w.json).toMatchObject({ provider: "platform", fallback_used: false });
    expect(s3.buckets.get(bucket)!.size).toBe(0);

    const noBinding = await setupBridge({ capabilities: [storageCapability({ allow: ["s3", "platform"] })] });
    expect(
      (await bridge(noBinding.token, "storage.object", "write", { key: "/files/p", content_base64: b64("p") })).json,
    ).toMatchObject({ provider: "platform", fallback_used: false });
  });

  it("binding_missing (409) without an s3 binding, binding_revoked (409) once it is revoked or its credential has expired", async () => {
    const s = await setupBridge({ capabilities: [storageCapability()] });
    expectDenied(await bridge(s.token, "storage.object", "read", { key: "/files/a" }), 409, "binding_missing");
    // A binding for a provider outside the allow-list does not count.
    await addS3Binding(s.owner, s.ws, s3, { bucket: newBucket(), provider: "minio" });
    expectDenied(await bridge(s.token, "storage.object", "read", { key: "/files/a" }), 409, "binding_missing");

    const sb = await addS3Binding(s.owner, s.ws, s3, { bucket: newBucket() });
    expect((await bridge(s.token, "storage.object", "read", { key: "/files/a" })).status).toBe(200);
    const del = await api("DELETE", `/v1/workspaces/${s.ws}/provider-bindings/${sb.bindingId}`, {
      token: s.owner.token,
    });
    expect(del.status).toBeLessThan(300);
    expectDenied(await bridge(s.token, "storage.object", "read", { key: "/files/a" }), 409, "binding_revoked");

    // Ready binding, expired credential (before the expiry sweep marks the binding): nothing is sent.
    const e = await setupBridge({ capabilities: [storageCapability()], owner: s.owner });
    const eb = await addS3Binding(e.owner, e.ws, s3, { bucket: newBucket() });
    await db().credential.update({ where: { id: eb.credentialId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const before = s3.requests.length;
    expectDenied(await bridge(e.token, "storage.object", "read", { key: "/files/a" }), 409, "binding_revoked");
    expect(s3.requests.length).toBe(before);
  });
});

describe("binding-level scope", () => {
  it("policy_blocked (403) when no ready binding's prefix, max_object_bytes or actions cover the call; nothing is reserved or sent", async () => {
    const s = await setupBridge({ capabilities: [storageCapability()] });
    const bucket = newBucket();
    const sb = await addS3Binding(s.owner, s.ws, s3, { bucket, prefix: "/files/public/", maxObjectBytes: 10 });
    const before = s3.requests.length;

    const outside = await bridge(s.token, "storage.object", "write", {
      key: "/files/private/x",
      content_base64: b64("x"),
    });
    expectDenied(outside, 403, "policy_blocked");
    expect(outside.json.outcome).toBe("denied");
    expect(outside.json.detail).toContain(sb.bindingId);
    expect(outside.json.detail).toContain("/files/public/");
    expectDenied(await bridge(s.token, "storage.object", "list", { prefix: "/files/" }), 403, "policy_blocked");

    const big = await bridge(s.token, "storage.object", "write", {
      key: "/files/public/big",
      content_base64: b64("x".repeat(11)),
    });
    expectDenied(big, 403, "policy_blocked");
    expect(big.json.detail).toContain("allows 10");
    expect(s3.requests.length).toBe(before);
    expect(await storageBudget(s)).toMatchObject({ used_units: 0, reserved_units: 0 });
    expect(await db().auditRecord.count({ where: { workspaceId: s.ws, action: "capability.denied" } })).toBe(3);

    const ok = await bridge(s.token, "storage.object", "write", {
      key: "/files/public/ok",
      content_base64: b64("x".repeat(10)),
    });
    expect(ok.status, ok.text).toBe(200);

    // A second binding that covers the call makes it servable again.
    const wide = await addS3Binding(s.owner, s.ws, s3, { bucket, prefix: "/files/" });
    const served = await bridge(s.token, "storage.object", "write", {
      key: "/files/private/x",
      content_base64: b64("x"),
    });
    expect(served.status, served.text).toBe(200);
    expect(served.json.provider).toBe("s3");
    const row = await db().capabilityInvocation.findUniqueOrThrow({
      where: { id: served.json.capability_invocation_id },
    });
    expect(row.bindingId).toBe(wide.bindingId);

    // A binding's actions limit it too.
    const ro = await setupBridge({ capabilities: [storageCapability()], owner: s.owner });
    await addS3Binding(ro.owner, ro.ws, s3, { bucket, actions: ["read", "list"] });
    const write = await bridge(ro.token, "storage.object", "write", { key: "/files/x", content_base64: b64("x") });
    expectDenied(write, 403, "policy_blocked");
    expect(write.json.detail).toContain("write");
    expect((await bridge(ro.token, "storage.object", "read", { key: "/files/x" })).status).toBe(200);
  });

  it("refuses to read an object larger than the binding (policy_blocked) or the contract (outside_contract) allows", async () => {
    const s = await setupBridge({ capabilities: [storageCapability({ allow: ["s3"] }, 100)] });
    const bucket = newBucket();
    await addS3Binding(s.owner, s.ws, s3, { bucket, maxObjectBytes: 20 });
    // Objects written around Capstan (no sha256 metadata).
    const put = (key: string, size: number) =>
      s3.buckets.get(bucket)!.set(`${s.productId}${key}`, {
        body: Buffer.alloc(size, 1),
        contentType: "application/octet-stream",
        metadata: {},
        etag: "x",
        lastModified: new Date(),
      });
    put("/files/medium", 50);
    put("/files/huge", 500);
    put("/files/small", 5);
    const medium = await bridge(s.token, "storage.object", "read", { key: "/files/medium" });
    expectDenied(medium, 403, "policy_blocked");
    expect(medium.json.detail).toContain("allows 20");
    expectDenied(await bridge(s.token, "storage.object", "read", { key: "/files/huge" }), 403, "outside_contract");
    const small = await bridge(s.token, "storage.object", "read", { key: "/files/small" });
    expect(small.json.output).toMatchObject({
      found: true,
      size_bytes: 5,
      sha256: sha256(Buffer.alloc(5, 1)),
      content_type: "application/octet-stream",
    });
    const list = await bridge(s.token, "storage.object", "list", { prefix: "/files/" });
    expect(list.json.output.objects).toEqual([
      { key: "/files/huge", size_bytes: 500, sha256: null },
      { key: "/files/medium", size_bytes: 50, sha256: null },
      { key: "/files/small", size_bytes: 5, sha256: null },
    ]);
  });
});
