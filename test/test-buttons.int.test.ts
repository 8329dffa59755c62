import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { addAiProvider, makeCredential } from "./support/bridge-fixtures";
import { closedPortUrl, startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { startS3Server, type TS3Server } from "./support/s3-server";
import { startSmtpSink } from "./support/smtp-sink";
import { expectShape, Problem } from "./support/spec-schemas";

/**
 * Issue #21 item 5: the test buttons. "Send test event" signs a webhook.test
 * event to one endpoint (a real receiver on loopback checks the Standard
 * Webhooks signature) and answers what was sent and what came back; a
 * binding's "Test" makes a one-token call to a loopback OpenAI-compatible
 * server, an SMTP check against the loopback smtp-server sink (no mail sent),
 * an S3 probe object against the loopback S3 server. All are audited as
 * tests and charge nothing.
 */
process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
process.env.CAPSTAN_PROVIDER_ALLOW_PRIVATE = "1";
resetEnvCache();

type TReceived = { headers: http.IncomingHttpHeaders; body: string };
let receiver: http.Server;
let receiverUrl = "";
const received: TReceived[] = [];
let answer = { status: 200, body: "thanks" };
let ai: TOpenAiServer;
let s3: TS3Server;
let owner: TTestUser;
let ws: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(answer.status, { "content-type": "text/plain", "x-receiver": "loopback" });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  ai = await startOpenAiServer("sk-test-buttons", { mode: "ok", text: "OK" });
  s3 = await startS3Server();
  await bootApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token, "Buttons")).id;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await ai.close();
  await s3.close();
});

function verify(secret: string, id: string, ts: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest();
  return header.split(" ").some((part) => {
    const sig = Buffer.from(part.split(",", 2)[1] ?? "", "base64");
    return sig.length === expected.length && timingSafeEqual(sig, expected);
  });
}

async function endpoint(url = receiverUrl, token = owner.token, workspace = ws) {
  const r = await api("POST", `/v1/workspaces/${workspace}/event-subscriptions`, {
    token,
    body: { url, event_types: ["*"], description: "test target" },
  });
  expect(r.status).toBe(201);
  return r.json as { id: string; secret: string };
}

describe("send test event", () => {
  it("delivers a signed webhook.test event to that endpoint only and answers the request, the response and the latency", async () => {
    const sub = await endpoint();
    const other = await endpoint();
    answer = { status: 200, body: "thanks" };
    const before = received.length;
    const r = await api("POST", `/v1/workspaces/${ws}/event-subscriptions/${sub.id}/test`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(received.length).toBe(before + 1);
    const got = received.at(-1)!;
    const event = JSON.parse(got.body);
    expect(event).toMatchObject({
      specversion: "1.0",
      type: "webhook.test",
      subject: sub.id,
      id: r.json.event_id,
      workspaceid: ws,
    });
    expect(
      verify(
        sub.secret,
        String(got.headers["webhook-id"]),
        String(got.headers["webhook-timestamp"]),
        got.body,
        String(got.headers["webhook-signature"]),
      ),
    ).toBe(true);
    expect(got.headers["content-type"]).toBe("application/cloudevents+json");

    expect(r.json).toMatchObject({
      delivered: true,
      error: null,
      subscription_id: sub.id,
      request: { method: "POST", url: receiverUrl, body: got.body },
    });
    expect(r.json.request.headers["webhook-signature"]).toBe(got.headers["webhook-signature"]);
    expect(r.json.request.headers["webhook-id"]).toBe(r.json.event_id);
    expect(r.json.response).toMatchObject({ status: 200, body_excerpt: "thanks", body_truncated: false });
    expect(r.json.response.headers["x-receiver"]).toBe("loopback");
    expect(r.json.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(r.json)).not.toContain(sub.secret);

    // Not an outbox event: no delivery rows, nothing for the other endpoint.
    expect(await db().webhookDelivery.count({ where: { subscriptionId: { in: [sub.id, other.id] } } })).toBe(0);
    expect(await db().outboxEvent.count({ where: { workspaceId: ws, type: "webhook.test" } })).toBe(0);
    const audit = await db().auditRecord.findFirst({
      where: { workspaceId: ws, action: "webhook.tested", targetId: sub.id },
    });
    expect(audit?.details).toMatchObject({ test: true, event_id: r.json.event_id, status_code: 200, error: null });
  });

  it("shows a failing endpoint's status and a truncated body, and an unreachable one in words", async () => {
    const sub = await endpoint();
    answer = { status: 500, body: "x".repeat(5000) };
    const r = await api("POST", `/v1/workspaces/${ws}/event-subscriptions/${sub.id}/test`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ delivered: false, response: { status: 500, body_truncated: true } });
    expect(r.json.response.body_excerpt.length).toBe(2048);
    expect(r.json.error).toMatch(/answered 500/);

    const down = await endpoint(`${await closedPortUrl()}/hooks`);
    const d = await api("POST", `/v1/workspaces/${ws}/event-subscriptions/${down.id}/test`, { token: owner.token });
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({ delivered: false, response: null });
    expect(d.json.error).toMatch(/could not be reached/);
    answer = { status: 200, body: "thanks" };
  });
});

describe("test a provider binding", () => {
  it("makes one call with max_tokens 1, answers latency and the provider's text, audits it as a test and charges no budget", async () => {
    const { bindingId } = await addAiProvider(owner, ws, {
      provider: "openai",
      baseUrl: ai.baseUrl,
      apiKey: ai.apiKey,
    });
    const calls = ai.calls.length;
    const before = await db().providerBinding.findUniqueOrThrow({ where: { id: bindingId } });
    const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${bindingId}/test`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      binding_id: bindingId,
      provider: "openai",
      action: "generate",
      model: "test-chat",
      ok: true,
      answer: "OK",
      error: null,
      error_kind: null,
    });
    expect(r.json.duration_ms).toBeGreaterThanOrEqual(0);
    expect(ai.calls.length).toBe(calls + 1);
    expect(ai.calls.at(-1)).toMatchObject({
      path: "/v1/chat/completions",
      authorized: true,
      body: { model: "test-chat", max_tokens: 1 },
    });

    const after = await db().providerBinding.findUniqueOrThrow({ where: { id: bindingId } });
    expect([after.usedUnits, after.reservedUnits]).toEqual([before.usedUnits, before.reservedUnits]);
    expect(await db().capabilityInvocation.count({ where: { workspaceId: ws } })).toBe(0);
    const audit = await db().auditRecord.findFirst({
      where: { workspaceId: ws, action: "binding.tested", targetId: bindingId },
    });
    expect(audit?.details).toMatchObject({ test: true, ok: true, model: "test-chat", provider: "openai" });
    expect(JSON.stringify(audit?.details)).not.toContain(ai.apiKey);
  });

  it("says in words why a call failed: a refused key, a provider outage", async () => {
    const wrongKey = await addAiProvider(owner, ws, { provider: "openai", baseUrl: ai.baseUrl, apiKey: "sk-wrong" });
    const refused = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${wrongKey.bindingId}/test`, {
      token: owner.token,
    });
    expect(refused.status).toBe(200);
    expect(refused.json).toMatchObject({ ok: false, error_kind: "rejected", answer: null });
    expect(refused.json.error).toMatch(/refused the request: provider answered 401/);

    ai.behave({ mode: "500" });
    try {
      const ok = await addAiProvider(owner, ws, { provider: "openai", baseUrl: ai.baseUrl, apiKey: ai.apiKey });
      const down = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${ok.bindingId}/test`, {
        token: owner.token,
      });
      expect(down.json).toMatchObject({ ok: false, error_kind: "unavailable" });
      expect(down.json.error).toMatch(/answered 500/);
    } finally {
      ai.behave({ mode: "ok", text: "OK" });
    }
  });

  it("refuses bindings it cannot test: another capability (422), a revoked binding (409)", async () => {
    const { bindingId } = await addAiProvider(owner, ws, {
      provider: "openai",
      baseUrl: ai.baseUrl,
      apiKey: ai.apiKey,
    });
    expect(
      (await api("DELETE", `/v1/workspaces/${ws}/provider-bindings/${bindingId}`, { token: owner.token })).status,
    ).toBe(204);
    const revoked = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${bindingId}/test`, {
      token: owner.token,
    });
    expect(revoked.status).toBe(409);
    expectShape(Problem, revoked.json);

    const platformToken = await issueTokenForEmail("admin@example.com", 3600);
    const kv = await api("POST", "/v1/workspaces/ws_platform/credentials", {
      token: platformToken,
      body: {
        secret: "kv-secret",
        provider: "platform",
        capability: "data.kv",
        actions: ["get", "set"],
        scope: ["*"],
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
      },
    });
    expect(kv.status, kv.text).toBe(201);
    const kvBinding = await api("POST", `/v1/workspaces/${ws}/provider-bindings`, {
      token: owner.token,
      body: {
        credential_id: kv.json.id,
        capability: "data.kv",
        actions: ["get"],
        scope: [],
        budget: { units: 10, unit: "tokens" },
        capability_scope: { id: "data.kv", scope: { prefix: "/app/", max_value_bytes: 65536, max_keys: 100 } },
      },
    });
    expect(kvBinding.status, kvBinding.text).toBe(201);
    const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${kvBinding.json.id}/test`, {
      token: owner.token,
    });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe("test_not_supported");
  });
});

async function smtpBinding(secret: string, port: number, from = "app@example.com") {
  const cred = await makeCredential(owner, ws, secret, {
    provider: "smtp",
    capability: "email.send",
    actions: ["send"],
  });
  const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings`, {
    token: owner.token,
    body: {
      credential_id: cred,
      capability: "email.send",
      actions: ["send"],
      scope: [],
      budget: { units: 10, unit: "tokens" },
      capability_scope: {
        id: "email.send",
        scope: {
          from_addresses: [from],
          recipient_domains: ["example.org"],
          max_recipients: 1,
          max_message_bytes: 10_000,
        },
      },
      provider_config: { host: "127.0.0.1", port, secure: false },
    },
  });
  expect(r.status, r.text).toBe(201);
  return r.json.id as string;
}

describe("test an email.send binding (SMTP check, no mail sent)", () => {
  it("connects, says EHLO and signs in with the binding's user and password; a wrong password is refused in words", async () => {
    const sink = await startSmtpSink(0, { auth: { user: "mailer", pass: "right-password" } });
    try {
      const good = await smtpBinding("mailer:right-password", sink.port);
      const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${good}/test`, { token: owner.token });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        binding_id: good,
        capability: "email.send",
        provider: "smtp",
        action: "smtp_check",
        ok: true,
        model: null,
        tokens: null,
        error: null,
      });
      expect(r.json.answer).toMatch(
        /^The SMTP server 127\.0\.0\.1:\d+ answered EHLO without TLS .* and accepted the sign-in as mailer\. No mail was sent\.$/,
      );
      expect(r.json.duration_ms).toBeGreaterThanOrEqual(0);
      expect(sink.inbox).toHaveLength(0);

      const bad = await smtpBinding("mailer:wrong-password", sink.port);
      const refused = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${bad}/test`, { token: owner.token });
      expect(refused.status).toBe(200);
      expect(refused.json).toMatchObject({ ok: false, error_kind: "rejected", answer: null });
      expect(refused.json.error).toMatch(
        /refused the request: SMTP 535.*Invalid username or password.*check the host, port, TLS setting/,
      );
      const audit = await db().auditRecord.findFirst({
        where: { workspaceId: ws, action: "binding.tested", targetId: bad },
      });
      expect(audit?.details).toMatchObject({ test: true, ok: false, provider: "smtp" });
      expect(JSON.stringify(audit?.details)).not.toContain("wrong-password");
    } finally {
      await sink.stop();
    }
  });

  it("says when the server offers no AUTH (the credential is not checked), and when nothing listens", async () => {
    const sink = await startSmtpSink();
    try {
      const id = await smtpBinding("just-a-password", sink.port);
      const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${id}/test`, { token: owner.token });
      expect(r.json).toMatchObject({ ok: true });
      expect(r.json.answer).toMatch(/offers no AUTH, so the credential was not checked/);
      expect(sink.inbox).toHaveLength(0);
    } finally {
      await sink.stop();
    }
    const closed = Number(new URL(await closedPortUrl()).port);
    const down = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${await smtpBinding("x:y", closed)}/test`, {
      token: owner.token,
    });
    expect(down.json).toMatchObject({ ok: false, error_kind: "unavailable" });
    expect(down.json.error).toMatch(/did not answer usefully: SMTP ESOCKET: connect ECONNREFUSED/);
  });

  it("obeys the private-address rule: a loopback SMTP host is refused without CAPSTAN_PROVIDER_ALLOW_PRIVATE", async () => {
    const sink = await startSmtpSink();
    const id = await smtpBinding("x:y", sink.port);
    delete process.env.CAPSTAN_PROVIDER_ALLOW_PRIVATE;
    resetEnvCache();
    try {
      const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${id}/test`, { token: owner.token });
      expect(r.json).toMatchObject({ ok: false, error_kind: "unavailable" });
      expect(r.json.error).toMatch(/not a public address|private|non-public/i);
    } finally {
      process.env.CAPSTAN_PROVIDER_ALLOW_PRIVATE = "1";
      resetEnvCache();
      await sink.stop();
    }
  });
});

describe("test a storage.object binding (a probe object under _capstan-test/)", () => {
  async function s3Binding(bucket: string, secretOverride?: string) {
    const accessKeyId = `AKIA${randomBytes(8).toString("hex").toUpperCase()}`;
    const secretAccessKey = randomBytes(15).toString("base64");
    s3.addKey(accessKeyId, secretAccessKey);
    const cred = await makeCredential(owner, ws, secretOverride ?? `${accessKeyId}:${secretAccessKey}`, {
      provider: "s3",
      capability: "storage.object",
      actions: ["read", "write", "delete", "list"],
    });
    const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings`, {
      token: owner.token,
      body: {
        credential_id: cred,
        capability: "storage.object",
        actions: ["read", "write", "delete", "list"],
        scope: [],
        budget: { units: 1000, unit: "tokens" },
        capability_scope: { id: "storage.object", scope: { prefix: "/", max_object_bytes: 1_000_000 } },
        provider_config: { endpoint: s3.endpoint, bucket, region: s3.region },
      },
    });
    expect(r.status, r.text).toBe(201);
    return r.json.id as string;
  }

  it("writes, reads back and deletes a probe object, leaving the bucket as it was", async () => {
    s3.addBucket("probe-ok");
    const id = await s3Binding("probe-ok");
    const seen = s3.requests.length;
    const r = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${id}/test`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      capability: "storage.object",
      provider: "s3",
      action: "probe",
      ok: true,
      error: null,
    });
    expect(r.json.answer).toMatch(
      /^Wrote, read back and deleted a 16-byte probe object probe-ok\/_capstan-test\/\S+ \(PUT ok, GET ok, DELETE ok\)\.$/,
    );
    const made = s3.requests.slice(seen);
    expect(made.map((q) => [q.method, q.status])).toEqual([
      ["PUT", 200],
      ["GET", 200],
      ["DELETE", 204],
    ]);
    expect(made.every((q) => q.key?.startsWith("_capstan-test/"))).toBe(true);
    expect(s3.buckets.get("probe-ok")!.size).toBe(0);
  });

  it("names the failing step and S3's error: a missing bucket, a wrong secret", async () => {
    const missing = await api(
      "POST",
      `/v1/workspaces/${ws}/provider-bindings/${await s3Binding("no-such-bucket")}/test`,
      { token: owner.token },
    );
    expect(missing.json).toMatchObject({ ok: false, error_kind: "rejected" });
    expect(missing.json.error).toMatch(/PUT no-such-bucket\/_capstan-test\/\S+ failed: S3 404 NoSuchBucket/);

    s3.addBucket("probe-bad-key");
    const wrong = await api(
      "POST",
      `/v1/workspaces/${ws}/provider-bindings/${await s3Binding("probe-bad-key", "AKIAUNKNOWN:nope")}/test`,
      { token: owner.token },
    );
    expect(wrong.json).toMatchObject({ ok: false, error_kind: "rejected" });
    expect(wrong.json.error).toMatch(/S3 403 InvalidAccessKeyId/);
  });
});

describe("roles and workspaces", () => {
  it("a developer cannot press either button (403); A's owner cannot test B's endpoint or binding (403 via B, 404 via A)", async () => {
    const dev = await makeUser();
    await api("PUT", `/v1/workspaces/${ws}/members/${dev.userId}`, { token: owner.token, body: { role: "developer" } });
    const sub = await endpoint();
    const { bindingId } = await addAiProvider(owner, ws, {
      provider: "openai",
      baseUrl: ai.baseUrl,
      apiKey: ai.apiKey,
    });
    expect(
      (await api("POST", `/v1/workspaces/${ws}/event-subscriptions/${sub.id}/test`, { token: dev.token })).status,
    ).toBe(403);
    expect(
      (await api("POST", `/v1/workspaces/${ws}/provider-bindings/${bindingId}/test`, { token: dev.token })).status,
    ).toBe(403);

    const other = await makeUser();
    const wsB = (await makeWorkspace(other.token, "Other")).id;
    const sent = received.length;
    const calls = ai.calls.length;
    expect(
      (await api("POST", `/v1/workspaces/${ws}/event-subscriptions/${sub.id}/test`, { token: other.token })).status,
    ).toBe(403);
    expect(
      (await api("POST", `/v1/workspaces/${ws}/provider-bindings/${bindingId}/test`, { token: other.token })).status,
    ).toBe(403);
    const viaOwn = await api("POST", `/v1/workspaces/${wsB}/event-subscriptions/${sub.id}/test`, {
      token: other.token,
    });
    expect(viaOwn.status).toBe(404);
    expectShape(Problem, viaOwn.json);
    expect(
      (await api("POST", `/v1/workspaces/${wsB}/provider-bindings/${bindingId}/test`, { token: other.token })).status,
    ).toBe(404);
    expect(received.length).toBe(sent);
    expect(ai.calls.length).toBe(calls);
  });
});
