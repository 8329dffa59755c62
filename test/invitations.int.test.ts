import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { resetMailTransports } from "@/server/platform/mailer";
import { api, bootApp, makeUser, makeWorkspace, uniqueEmail, type TTestUser } from "./support/api";
import { handleTrpc } from "@/server/http/trpc-handler";
import { invitationLinkOf, startSmtpSink, type TSmtpSink } from "./support/smtp-sink";
import { expectShape, Problem } from "./support/spec-schemas";

/**
 * Issue #21 item 3: invitations by email. A real SMTP server on loopback
 * (test/support/smtp-sink.ts) receives the platform's mail; the link in the
 * mail is the only way to the token (the API never returns it).
 */
let sink: TSmtpSink;
let owner: TTestUser;
let ws: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  process.env.CAPSTAN_SMTP_URL = sink.url;
  process.env.CAPSTAN_MAIL_FROM = "Capstan <no-reply@capstan.test>";
  process.env.CAPSTAN_INVITATION_RESEND_SECONDS = "60";
  resetEnvCache();
  resetMailTransports();
  await bootApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token, "Acme")).id;
});

afterAll(async () => {
  resetMailTransports();
  await sink.stop();
});

const invite = (email: string, role = "developer", token = owner.token, workspace = ws) =>
  api("POST", `/v1/workspaces/${workspace}/invitations`, { token, body: { email, role } });

const tokenOf = (link: string) => link.slice(link.lastIndexOf("/") + 1);

/** The console's sign-up-and-accept call, through the real tRPC handler (no session). */
async function signUp(input: { token: string; name: string; password: string }) {
  const res = await handleTrpc(
    new Request("http://127.0.0.1/api/trpc/invitations.signUp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
    }),
    async () => null,
  );
  return {
    status: res.status,
    json: (await res.json()) as {
      result?: { data: Record<string, unknown> };
      error?: { message: string; data: { problem?: { reason?: string } } };
    },
  };
}

const accept = (token: string, user: TTestUser) =>
  api("POST", "/v1/invitations/accept", { token: user.token, body: { token } });

describe("inviting", () => {
  it("emails a single-use link; the stored token is only its hash; the invitation is listed as pending with its expiry and audited", async () => {
    const email = uniqueEmail("ada");
    const r = await invite(email.toUpperCase(), "admin");
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      email,
      role: "admin",
      status: "pending",
      email_status: "sent",
      email_error: null,
      send_count: 1,
      invited_by: { id: owner.userId, email: owner.email },
    });
    expect(JSON.stringify(r.json)).not.toMatch(/token/);
    const days = (Date.parse(r.json.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    const mail = await sink.waitFor(email);
    expect(mail.from).toBe("no-reply@capstan.test");
    expect(mail.subject).toContain("Acme");
    const link = invitationLinkOf(mail);
    expect(link.startsWith("http://localhost:3000/invite/")).toBe(true);
    expect(mail.html).toContain(link);
    const row = await db().invitation.findUniqueOrThrow({ where: { id: r.json.id }, omit: { tokenHash: false } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.tokenHash).not.toContain(tokenOf(link));
    expect(JSON.stringify(row)).not.toContain(tokenOf(link));

    const list = await api("GET", `/v1/workspaces/${ws}/invitations`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.json.items.map((i: { id: string }) => i.id)).toContain(r.json.id);
    const audit = await api("GET", `/v1/workspaces/${ws}/audit-records?action=member.invited`, { token: owner.token });
    expect(audit.json.items.some((a: { target: { id: string } | null }) => a.target?.id === r.json.id)).toBe(true);
  });

  it("refuses (409, nothing written) an address that is already a member or already invited", async () => {
    const member = await makeUser();
    expect(
      (
        await api("PUT", `/v1/workspaces/${ws}/members/${member.userId}`, {
          token: owner.token,
          body: { role: "viewer" },
        })
      ).status,
    ).toBe(200);
    const before = await db().invitation.count({ where: { workspaceId: ws } });
    const m = await invite(member.email);
    expect(m.status).toBe(409);
    expectShape(Problem, m.json);
    expect(m.json.reason).toBe("already_member");

    const email = uniqueEmail("twice");
    const first = await invite(email);
    expect(first.status).toBe(201);
    const again = await invite(email, "viewer");
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ reason: "invitation_pending", conflicting_id: first.json.id });
    expect(await db().invitation.count({ where: { workspaceId: ws } })).toBe(before + 1);
  });

  it("validates the body (422) and refuses an admin inviting an owner (403)", async () => {
    const bad = await invite("not-an-email");
    expect(bad.status).toBe(422);
    expect((await invite(uniqueEmail(), "emperor")).status).toBe(422);
    const admin = await makeUser();
    await api("PUT", `/v1/workspaces/${ws}/members/${admin.userId}`, { token: owner.token, body: { role: "admin" } });
    const asOwner = await invite(uniqueEmail(), "owner", admin.token);
    expect(asOwner.status).toBe(403);
    expect(asOwner.json.reason).toBe("role_required");
    expect((await invite(uniqueEmail(), "developer", admin.token)).status).toBe(201);
  });

  it("a viewer or developer cannot invite or list invitations (403)", async () => {
    for (const role of ["viewer", "developer"]) {
      const u = await makeUser();
      await api("PUT", `/v1/workspaces/${ws}/members/${u.userId}`, { token: owner.token, body: { role } });
      const r = await invite(uniqueEmail(), "viewer", u.token);
      expect(r.status).toBe(403);
      expect(r.json.reason).toBe("role_required");
      expect((await api("GET", `/v1/workspaces/${ws}/invitations`, { token: u.token })).status).toBe(403);
    }
  });

  it("503 mail_not_configured without an SMTP sender, and nothing is written", async () => {
    const before = await db().invitation.count({ where: { workspaceId: ws } });
    delete process.env.CAPSTAN_SMTP_URL;
    resetEnvCache();
    try {
      const r = await invite(uniqueEmail());
      expect(r.status).toBe(503);
      expect(r.json.reason).toBe("mail_not_configured");
    } finally {
      process.env.CAPSTAN_SMTP_URL = sink.url;
      resetEnvCache();
    }
    expect(await db().invitation.count({ where: { workspaceId: ws } })).toBe(before);
  });

  it("records a refused email on the invitation (email_status failed) and a resend retries it", async () => {
    process.env.CAPSTAN_SMTP_URL = "smtp://127.0.0.1:1"; // nothing listens on port 1
    resetEnvCache();
    let id: string;
    try {
      const r = await invite(uniqueEmail("down"));
      expect(r.status).toBe(201);
      expect(r.json.email_status).toBe("failed");
      expect(r.json.email_error).toMatch(/could not be reached/);
      id = r.json.id;
    } finally {
      process.env.CAPSTAN_SMTP_URL = sink.url;
      resetEnvCache();
    }
    await db().invitation.update({ where: { id }, data: { lastSentAt: new Date(Date.now() - 120_000) } });
    const again = await api("POST", `/v1/workspaces/${ws}/invitations/${id}/resend`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ email_status: "sent", email_error: null, send_count: 2 });
  });
});

describe("accepting", () => {
  it("a new person signs up through the link and becomes a member with the invited role; the link then is used up", async () => {
    const email = uniqueEmail("newbie");
    const inv = await invite(email, "developer");
    const token = tokenOf(invitationLinkOf(await sink.waitFor(email)));
    const r = await signUp({ token, name: "Grace Hopper", password: "a long enough password" });
    expect(r.status).toBe(200);
    expect(r.json.result?.data).toMatchObject({
      workspace_id: ws,
      workspace_name: "Acme",
      role: "developer",
      already_member: false,
      email,
    });

    const members = await api("GET", `/v1/workspaces/${ws}/members?limit=100`, { token: owner.token });
    expect(members.json.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ email, name: "Grace Hopper", role: "developer" })]),
    );
    const got = await api("GET", `/v1/workspaces/${ws}/invitations/${inv.json.id}`, { token: owner.token });
    expect(got.json).toMatchObject({ status: "accepted" });
    expect(got.json.accepted_by_id).toMatch(/^usr_/);
    const joined = await db().auditRecord.findFirst({
      where: { workspaceId: ws, action: "member.upserted", targetId: got.json.accepted_by_id },
    });
    expect(joined?.details).toMatchObject({ via: "invitation", invitation_id: inv.json.id, role: "developer" });

    const twice = await signUp({ token, name: "Mallory", password: "another long password" });
    expect(twice.status).toBe(409);
    expect(twice.json.error?.data.problem?.reason).toBe("invitation_used");
    expect(await db().user.count({ where: { email } })).toBe(1);
  });

  it("a signed-in user with the invited email accepts; another user is refused (403); the token cannot be used twice", async () => {
    const invitee = await makeUser();
    const other = await makeUser();
    await invite(invitee.email, "viewer");
    const token = tokenOf(invitationLinkOf(await sink.waitFor(invitee.email)));

    const wrong = await accept(token, other);
    expect(wrong.status).toBe(403);
    expect(wrong.json.reason).toBe("invitation_email_mismatch");
    expect((await api("GET", `/v1/workspaces/${ws}`, { token: other.token })).status).toBe(403);

    const ok = await accept(token, invitee);
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ workspace_id: ws, role: "viewer", already_member: false });
    expect((await api("GET", `/v1/workspaces/${ws}`, { token: invitee.token })).json.role).toBe("viewer");

    const again = await accept(token, invitee);
    expect(again.status).toBe(409);
    expect(again.json.reason).toBe("invitation_used");
  });

  it("an existing account cannot be taken over by signing up through its invitation (409 email_taken)", async () => {
    const invitee = await makeUser();
    await invite(invitee.email);
    const token = tokenOf(invitationLinkOf(await sink.waitFor(invitee.email)));
    const r = await signUp({ token, name: "Eve", password: "a long enough password" });
    expect(r.status).toBe(409);
    expect(r.json.error?.data.problem?.reason).toBe("email_taken");
  });

  it("an expired link is refused (409 invitation_expired), listed as expired, and a new invitation may be made", async () => {
    const invitee = await makeUser();
    const inv = await invite(invitee.email);
    const token = tokenOf(invitationLinkOf(await sink.waitFor(invitee.email)));
    await db().invitation.update({ where: { id: inv.json.id }, data: { expiresAt: new Date(Date.now() - 1000) } });

    const r = await accept(token, invitee);
    expect(r.status).toBe(409);
    expect(r.json.reason).toBe("invitation_expired");
    const pending = await api("GET", `/v1/workspaces/${ws}/invitations?status=pending&limit=100`, {
      token: owner.token,
    });
    expect(pending.json.items.map((i: { id: string }) => i.id)).not.toContain(inv.json.id);
    const expired = await api("GET", `/v1/workspaces/${ws}/invitations?status=expired&limit=100`, {
      token: owner.token,
    });
    expect(expired.json.items.map((i: { id: string }) => i.id)).toContain(inv.json.id);
    expect((await invite(invitee.email)).status).toBe(201);
    expect((await db().invitation.findUniqueOrThrow({ where: { id: inv.json.id } })).status).toBe("expired");
  });

  it("a revoked link is refused (409 invitation_revoked) and revocation is audited; revoking twice is a 409", async () => {
    const invitee = await makeUser();
    const inv = await invite(invitee.email);
    const token = tokenOf(invitationLinkOf(await sink.waitFor(invitee.email)));
    const del = await api("DELETE", `/v1/workspaces/${ws}/invitations/${inv.json.id}`, { token: owner.token });
    expect(del.status).toBe(200);
    expect(del.json.status).toBe("revoked");
    const r = await accept(token, invitee);
    expect(r.status).toBe(409);
    expect(r.json.reason).toBe("invitation_revoked");
    expect(
      (await api("DELETE", `/v1/workspaces/${ws}/invitations/${inv.json.id}`, { token: owner.token })).status,
    ).toBe(409);
    expect(
      await db().auditRecord.count({
        where: { workspaceId: ws, action: "member.invitation_revoked", targetId: inv.json.id },
      }),
    ).toBe(1);
  });

  it("an unknown or malformed token is a 404 / 422", async () => {
    const u = await makeUser();
    const unknown = await accept("A".repeat(43), u);
    expect(unknown.status).toBe(404);
    expect(unknown.json.reason).toBe("invitation_not_found");
    expect((await accept("short", u)).status).toBe(422);
  });
});

describe("resending", () => {
  it("issues a new link and expiry (the old link stops working), rate-limited with Retry-After", async () => {
    const invitee = await makeUser();
    const inv = await invite(invitee.email);
    const oldToken = tokenOf(invitationLinkOf(await sink.waitFor(invitee.email)));

    const soon = await api("POST", `/v1/workspaces/${ws}/invitations/${inv.json.id}/resend`, { token: owner.token });
    expect(soon.status).toBe(429);
    expect(soon.json.reason).toBe("resend_too_soon");
    expect(Number(soon.headers.get("retry-after"))).toBeGreaterThan(0);

    // Move the last send (and the expiry) into the past instead of waiting.
    await db().invitation.update({
      where: { id: inv.json.id },
      data: { lastSentAt: new Date(Date.now() - 120_000), expiresAt: new Date(Date.now() - 1000) },
    });
    const count = sink.inbox.filter((m) => m.to.includes(invitee.email)).length;
    const again = await api("POST", `/v1/workspaces/${ws}/invitations/${inv.json.id}/resend`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ status: "pending", send_count: 2 });
    expect(Date.parse(again.json.expires_at)).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    const mails = sink.inbox.filter((m) => m.to.includes(invitee.email));
    expect(mails.length).toBe(count + 1);
    const newToken = tokenOf(invitationLinkOf(mails.at(-1)!));
    expect(newToken).not.toBe(oldToken);

    expect((await accept(oldToken, invitee)).status).toBe(404);
    expect((await accept(newToken, invitee)).status).toBe(200);
    const done = await api("POST", `/v1/workspaces/${ws}/invitations/${inv.json.id}/resend`, { token: owner.token });
    expect(done.status).toBe(409);
  });
});

describe("across workspaces", () => {
  it("A's admin cannot list, read, resend or revoke B's invitations", async () => {
    const bOwner = await makeUser();
    const wsB = (await makeWorkspace(bOwner.token, "Bravo")).id;
    const invB = await invite(uniqueEmail("b"), "viewer", bOwner.token, wsB);
    expect(invB.status).toBe(201);
    const id = invB.json.id as string;

    expect((await api("GET", `/v1/workspaces/${wsB}/invitations`, { token: owner.token })).status).toBe(403);
    expect((await invite(uniqueEmail(), "viewer", owner.token, wsB)).status).toBe(403);
    for (const [method, path] of [
      ["GET", `/invitations/${id}`],
      ["POST", `/invitations/${id}/resend`],
      ["DELETE", `/invitations/${id}`],
    ] as const) {
      const viaB = await api(method, `/v1/workspaces/${wsB}${path}`, { token: owner.token });
      expect(viaB.status).toBe(403);
      const viaA = await api(method, `/v1/workspaces/${ws}${path}`, { token: owner.token });
      expect(viaA.status).toBe(404);
      expectShape(Problem, viaA.json);
    }
    const list = await api("GET", `/v1/workspaces/${ws}/invitations?limit=100`, { token: owner.token });
    expect(list.json.items.map((i: { id: string }) => i.id)).not.toContain(id);
    const row = await db().invitation.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "pending", sendCount: 1, revokedAt: null });
  });
});
