import { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateEventData } from "@/server/domain/events/event-schemas";
import { db } from "@/server/platform/db/client";
import { api } from "./support/api";
import { bootBridgeApp, bridge, makeCredential, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { withFlag } from "./support/env";

/**
 * email.send through real SMTP servers on loopback (smtp-server): contract
 * scope checks, plan entitlement, provider_rejected on a 5xx, fallback when
 * the preferred server is down.
 */
type TMail = { from: string; to: string[]; subject: string; text: string; user: string };

function smtp(opts: { user: string; pass: string; reject?: boolean }) {
  const inbox: TMail[] = [];
  const server = new SMTPServer({
    authOptional: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.pass) cb(null, { user: auth.username });
      else cb(new Error("Invalid username or password"));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (opts.reject) {
          const err = new Error("Message rejected") as Error & { responseCode: number };
          err.responseCode = 554;
          return cb(err);
        }
        // Plain ASCII test messages: headers, a blank line, the 7-bit text body.
        const raw = Buffer.concat(chunks).toString("utf8");
        const split = raw.indexOf("\r\n\r\n");
        const headers = raw.slice(0, split);
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: /^Subject: (.*)$/m.exec(headers)?.[1]?.trim() ?? "",
          text: raw.slice(split + 4).trim(),
          user: String(session.user),
        });
        cb();
      });
    },
  });
  return {
    inbox,
    start: () =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.server.address() as AddressInfo).port)),
      ),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const primary = smtp({ user: "mailer", pass: "primary-password-123" });
const backup = smtp({ user: "backup", pass: "backup-password-456" });
const rejecting = smtp({ user: "mailer", pass: "primary-password-123", reject: true });
let ports: { primary: number; backup: number; rejecting: number };

const emailCapability = (allow: string[], fallback: "none" | "listed") => ({
  id: "email.send" as const,
  required: true,
  actions: ["send"],
  scope: {
    from_addresses: ["app@example.com"],
    recipient_domains: ["example.org"],
    max_recipients: 3,
    max_message_bytes: 2000,
  },
  credential_owner: "workspace" as const,
  provider: { allow, fallback, prefer: allow[0] },
});

async function addSmtp(
  s: TBridgeSetup,
  provider: string,
  secret: string,
  port: number,
  host = "127.0.0.1",
): Promise<void> {
  const credentialId = await makeCredential(s.owner, s.ws, secret, {
    provider,
    capability: "email.send",
    actions: ["send"],
  });
  const r = await api("POST", `/v1/workspaces/${s.ws}/provider-bindings`, {
    token: s.owner.token,
    body: {
      credential_id: credentialId,
      capability: "email.send",
      actions: ["send"],
      scope: [],
      budget: { units: 1000, unit: "tokens" },
      capability_scope: { id: "email.send", scope: emailCapability([provider], "none").scope },
      provider_config: { host, port, secure: false },
    },
  });
  expect(r.status, r.text).toBe(201);
}

async function teamPlan(s: TBridgeSetup): Promise<void> {
  expect(
    (await api("PUT", `/v1/workspaces/${s.ws}/plan`, { token: s.owner.token, body: { plan: "team" } })).status,
  ).toBe(200);
}

const mail = { from: "app@example.com", recipients: ["ada@example.org"], subject: "Hello", text: "First message" };

beforeAll(async () => {
  await bootBridgeApp();
  ports = { primary: await primary.start(), backup: await backup.start(), rejecting: await rejecting.start() };
});

afterAll(async () => {
  await Promise.all([primary.stop(), backup.stop(), rejecting.stop()]);
});

describe("email.send", () => {
  it("sends through SMTP with the credential, counts one provider_call and emits valid events", async () => {
    const s = await setupBridge({ capabilities: [emailCapability(["smtp-a"], "none")] });
    await teamPlan(s);
    await addSmtp(s, "smtp-a", "mailer:primary-password-123", ports.primary);
    const r = await bridge(s.token, "email.send", "send", mail);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      outcome: "completed",
      provider: "smtp-a",
      usage: { units: 1, unit: "calls" },
      output: { accepted: ["ada@example.org"] },
    });
    const got = primary.inbox.find((m) => m.subject === "Hello");
    expect(got).toMatchObject({
      from: "app@example.com",
      to: ["ada@example.org"],
      text: "First message",
      user: "mailer",
    });

    const budgets = await api("GET", `/v1/workspaces/${s.ws}/budgets`, { token: s.owner.token });
    expect(
      budgets.json.items.find((b: { usage_category: string }) => b.usage_category === "provider_call").used_units,
    ).toBe(1);
    const events = await db().outboxEvent.findMany({ where: { subject: r.json.capability_invocation_id } });
    expect(events.map((e) => e.type).sort()).toEqual([
      "capability.invocation_requested",
      "capability.invocation_resulted",
    ]);
    for (const e of events) expect(validateEventData(e.type, e.data)).toEqual([]);
    const requested = events.find((e) => e.type === "capability.invocation_requested")!.data as {
      request: Record<string, unknown>;
    };
    expect(requested.request).toEqual({
      id: "email.send",
      action: "send",
      from: "app@example.com",
      recipients: ["ada@example.org"],
      bytes: 18,
    });
  });

  it("keeps calls inside the contract: from address, recipient domains, recipient count, size", async () => {
    const s = await setupBridge({ capabilities: [emailCapability(["smtp-a"], "none")] });
    await teamPlan(s);
    await addSmtp(s, "smtp-a", "mailer:primary-password-123", ports.primary);
    const before = primary.inbox.length;
    for (const body of [
      { ...mail, from: "boss@example.com" },
      { ...mail, recipients: ["eve@example.net"] },
      { ...mail, recipients: ["a@example.org", "b@example.org", "c@example.org", "d@example.org"] },
      { ...mail, text: "x".repeat(3000) },
    ]) {
      const r = await bridge(s.token, "email.send", "send", body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(403);
      expect(r.json.reason).toBe("outside_contract");
    }
    expect(primary.inbox.length).toBe(before);
    const bad = await bridge(s.token, "email.send", "send", { ...mail, from: "App@Example.com" });
    expect(bad.status).toBe(422);
    const noBody = await bridge(s.token, "email.send", "send", {
      from: mail.from,
      recipients: mail.recipients,
      subject: "x",
    });
    expect(noBody.status).toBe(422);
  });

  it("denies usage on the free plan (no provider_call entitlement)", async () => {
    const s = await setupBridge({ capabilities: [emailCapability(["smtp-a"], "none")] });
    await addSmtp(s, "smtp-a", "mailer:primary-password-123", ports.primary);
    const r = await bridge(s.token, "email.send", "send", mail);
    expect(r.status).toBe(429);
    expect(r.json.reason).toBe("usage_denied");
    expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("answers provider_rejected for a 5xx from the server, and falls back when the preferred server is down", async () => {
    const rej = await setupBridge({ capabilities: [emailCapability(["smtp-a"], "none")] });
    await teamPlan(rej);
    await addSmtp(rej, "smtp-a", "mailer:primary-password-123", ports.rejecting);
    const r = await bridge(rej.token, "email.send", "send", mail);
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe("provider_rejected");

    const fb = await setupBridge({ capabilities: [emailCapability(["smtp-down", "smtp-b"], "listed")] });
    await teamPlan(fb);
    await addSmtp(fb, "smtp-down", "mailer:primary-password-123", 1); // nothing listens on port 1
    await addSmtp(fb, "smtp-b", "backup:backup-password-456", ports.backup);
    const sent = await bridge(fb.token, "email.send", "send", { ...mail, subject: "Via backup" });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json).toMatchObject({ provider: "smtp-b", fallback_used: true });
    expect(backup.inbox.find((m) => m.subject === "Via backup")?.user).toBe("backup");
    const audits = await db().auditRecord.findMany({ where: { workspaceId: fb.ws, action: "capability.fallback" } });
    expect(audits).toHaveLength(1);

    const nofb = await setupBridge({ capabilities: [emailCapability(["smtp-down", "smtp-b"], "none")] });
    await teamPlan(nofb);
    await addSmtp(nofb, "smtp-down", "mailer:primary-password-123", 1);
    await addSmtp(nofb, "smtp-b", "backup:backup-password-456", ports.backup);
    const down = await bridge(nofb.token, "email.send", "send", mail);
    expect(down.status).toBe(503);
    expect(down.json.reason).toBe("provider_unavailable");
  });

  it("authenticates with each binding's own password: an equally long wrong password in another workspace is rejected", async () => {
    // Pooled transports are per server, user and password: a second workspace with the same server and
    // user but another password (of the same length) must not ride on the first one's connection.
    const right = await setupBridge({ capabilities: [emailCapability(["smtp-a"], "none")] });
    await teamPlan(right);
    await addSmtp(right, "smtp-a", "mailer:primary-password-123", ports.primary);
    expect((await bridge(right.token, "email.send", "send", { ...mail, subject: "Right password" })).status).toBe(200);

    const wrong = await setupBridge({ capabilities: [emailCapability(["smtp-a"], "none")] });
    await teamPlan(wrong);
    await addSmtp(wrong, "smtp-a", "mailer:primary-password-999", ports.primary);
    const before = primary.inbox.length;
    const r = await bridge(wrong.token, "email.send", "send", { ...mail, subject: "Wrong password" });
    expect(r.status, r.text).toBe(422);
    expect(r.json.reason).toBe("provider_rejected");
    expect(primary.inbox.length).toBe(before);
  });

  it("refuses an SMTP host that resolves to a non-public address unless CAPSTAN_PROVIDER_ALLOW_PRIVATE (egress guard)", async () => {
    const s = await setupBridge({ capabilities: [emailCapability(["smtp-a"], "none")] });
    await teamPlan(s);
    // Created while the flag is on (bootBridgeApp); `localhost` resolves through DNS to 127.0.0.1.
    await addSmtp(s, "smtp-a", "mailer:primary-password-123", ports.primary, "localhost");
    const before = primary.inbox.length;
    await withFlag("CAPSTAN_PROVIDER_ALLOW_PRIVATE", false, async () => {
      const r = await bridge(s.token, "email.send", "send", { ...mail, subject: "Blocked" });
      expect(r.status, r.text).toBe(503);
      expect(r.json).toMatchObject({ reason: "provider_unavailable", outcome: "failed" });
      expect(r.json.detail).toContain("egress blocked: localhost resolves to a non-public address");
    });
    expect(primary.inbox.length).toBe(before);
    const ok = await bridge(s.token, "email.send", "send", { ...mail, subject: "Allowed" });
    expect(ok.status, ok.text).toBe(200);
    expect(primary.inbox.at(-1)?.subject).toBe("Allowed");
  });
});
