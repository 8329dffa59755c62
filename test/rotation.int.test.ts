import { spawnSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify } from "jose";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { authenticateBridgeToken } from "@/server/domain/service-identities/bridge-token.service";
import { deliverDue, dispatchOutbox } from "@/server/domain/webhooks/delivery.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { signToken, verifyToken } from "@/server/domain/signing-keys/jwt.service";
import {
  listSigningKeys,
  rotateSigningKey,
  type TSigningKeyView,
} from "@/server/domain/signing-keys/signing-keys.service";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser, type TTestWorkspace } from "./support/api";
import { handleOAuthToken } from "./support/handlers";
import { checkedFetch } from "./support/openapi-responses";
import { startServer, stopServer, type TServer } from "./support/spawn-server";
import { expectShape, Problem } from "./support/spec-schemas";

/**
 * Rotation without downtime (issue #25), proved with the verifier libraries
 * a customer would use: jose's createRemoteJWKSet against a real second
 * server process, standardwebhooks and svix on a real HTTP receiver, and the
 * token endpoint for service-identity secrets.
 *
 * The clock is shortened through configuration, not sleeps: the JWKS may be
 * cached 1 s, each process caches keys 100 ms and clock skew is 1 s, so a new
 * signing key is published 3 s before it signs. Waits poll a condition with a
 * deadline.
 */
process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
process.env.CAPSTAN_JWKS_MAX_AGE_SECONDS = "1";
process.env.CAPSTAN_SIGNING_KEY_CACHE_MS = "100";
process.env.CAPSTAN_JWT_CLOCK_SKEW_SECONDS = "1";
process.env.CAPSTAN_WEBHOOK_SCHEDULE = "0,0.2";
resetEnvCache();

const ROOT = path.resolve(import.meta.dirname, "..");
const ISSUER = "http://localhost:3000";
const PUBLISH_LEAD_MS = 3_000;

let owner: TTestUser;
let ws: TTestWorkspace;
let prod: string;
let server: TServer;
const base = () => `http://127.0.0.1:${server.port}`;

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Until the wall clock passes `iso` (a deadline, not a guess). */
const pastInstant = (iso: string) => until(`the clock to pass ${iso}`, async () => Date.now() > Date.parse(iso) + 5);

async function keys(): Promise<TSigningKeyView[]> {
  return listSigningKeys();
}
const keyOf = async (kid: string) => (await keys()).find((k) => k.kid === kid)!;

async function serverJwks(): Promise<{ kids: string[]; cacheControl: string | null }> {
  const res = await checkedFetch(`${base()}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { keys: { kid: string }[] };
  return { kids: body.keys.map((k) => k.kid), cacheControl: res.headers.get("cache-control") };
}

/** A bridge token minted by the second server process (client_credentials over HTTP). */
async function mintOnServer(clientId: string, secret: string): Promise<string> {
  const res = await checkedFetch(`${base()}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  });
  const body = (await res.json()) as { access_token: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.access_token;
}

async function tokenFor(clientId: string, secret: string) {
  const res = await handleOAuthToken(
    new Request("http://localhost:3000/v1/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: secret,
      }).toString(),
    }),
  );
  return { status: res.status, json: (await res.json()) as Record<string, string> };
}

async function makeProduct(workspaceId: string, userId: string): Promise<string> {
  const id = newId("prod");
  await db().product.create({
    data: {
      id,
      name: id,
      workspaceId,
      inputRevisionId: newId("rev"),
      repoUrl: "https://example.com/shop.git",
      ref: "main",
      createdBy: userId,
    },
  });
  return id;
}

async function createIdentity(name: string): Promise<{ id: string; client_secret: string }> {
  const r = await api("POST", `/v1/workspaces/${ws.id}/service-identities`, {
    token: owner.token,
    body: { name, product_id: prod },
  });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

function expectProblem(
  r: { status: number; json: unknown; headers: Headers; text: string },
  status: number,
  reason?: string,
) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toContain("application/problem+json");
  const p = expectShape(Problem, r.json);
  if (reason) expect(p.reason).toBe(reason);
  return p;
}

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  ws = await makeWorkspace(owner.token, "rotation");
  prod = await makeProduct(ws.id, owner.userId);
  server = await startServer();
});

afterAll(async () => {
  if (server) await stopServer(server);
});

// ---------------------------------------------------------------------------
// Discovery
// ---------------------------------------------------------------------------

describe("discovery metadata", () => {
  it("serves RFC 8414 metadata that agrees with the OIDC discovery document and lists every accepted auth method", async () => {
    const [asRes, oidcRes] = await Promise.all([
      checkedFetch(`${base()}/.well-known/oauth-authorization-server`),
      checkedFetch(`${base()}/.well-known/openid-configuration`),
    ]);
    expect(asRes.status).toBe(200);
    expect(oidcRes.status).toBe(200);
    const as = (await asRes.json()) as Record<string, unknown>;
    const oidc = (await oidcRes.json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: ISSUER,
      token_endpoint: `${ISSUER}/v1/oauth/token`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      grant_types_supported: ["client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange"],
    });
    expect(new Set(as.token_endpoint_auth_methods_supported as string[])).toEqual(
      new Set(["client_secret_basic", "client_secret_post", "none"]),
    );
    for (const [k, v] of Object.entries(as)) expect(oidc[k], k).toEqual(v);
  });
});

// ---------------------------------------------------------------------------
// Service-identity secrets
// ---------------------------------------------------------------------------

const siPath = (id: string) => `/v1/workspaces/${ws.id}/service-identities/${id}`;
const secretHashOf = async (id: string) =>
  await db().serviceIdentity.findUniqueOrThrow({
    where: { id },
    omit: { secretHash: false, previousSecretHash: false },
  });
const auditCount = (targetId: string) => db().auditRecord.count({ where: { targetId } });

describe("service-identity secrets", () => {
  it("during the overlap both secrets get tokens; after it only the new one; tokens from the old one live until their exp", async () => {
    const si = await createIdentity("overlapping");
    const beforeRotation = await tokenFor(si.id, si.client_secret);
    expect(beforeRotation.status).toBe(200);

    const corr = newId("evt");
    const r = await api("POST", `${siPath(si.id)}:rotate-secret`, {
      token: owner.token,
      body: { previous_secret_expires_in: 3 },
      headers: { "x-correlation-id": corr },
    });
    expect(r.status, r.text).toBe(200);
    const newSecret = r.json.client_secret as string;
    expect(newSecret).not.toBe(si.client_secret);
    const expiresAt = r.json.previous_secret_expires_at as string;
    expect(Date.parse(expiresAt) - Date.parse(r.json.secret_rotated_at)).toBe(3_000);
    const shown = await api("GET", siPath(si.id), { token: owner.token });
    expect(shown.json.previous_secret_expires_at).toBe(expiresAt);
    expect(shown.text).not.toContain(newSecret);
    expect(shown.text).not.toContain(si.client_secret);

    const viaOld = await tokenFor(si.id, si.client_secret);
    const viaNew = await tokenFor(si.id, newSecret);
    expect([viaOld.status, viaNew.status]).toEqual([200, 200]);
    for (const t of [beforeRotation, viaOld, viaNew])
      expect((await authenticateBridgeToken(t.json.access_token!)).serviceIdentityId).toBe(si.id);

    await pastInstant(expiresAt);
    expect(await tokenFor(si.id, si.client_secret)).toEqual({
      status: 401,
      json: { error: "invalid_client", error_description: "client authentication failed: secret mismatch" },
    });
    expect((await tokenFor(si.id, newSecret)).status).toBe(200);
    // Documented rule: a token obtained with the previous secret lives until its own exp.
    expect((await authenticateBridgeToken(viaOld.json.access_token!)).serviceIdentityId).toBe(si.id);
    expect((await api("GET", siPath(si.id), { token: owner.token })).json.previous_secret_expires_at).toBeNull();

    const audit = await db().auditRecord.findMany({
      where: { targetId: si.id, action: "service_identity.secret_rotated" },
    });
    expect(audit.map((a) => [a.correlationId, (a.details as { step: string }).step])).toEqual([[corr, "rotated"]]);
    expect(JSON.stringify(audit.map((a) => a.details))).not.toContain(newSecret);
  });

  it("the previous secret can be revoked early: it stops, and so do tokens obtained with it", async () => {
    const si = await createIdentity("revoke early");
    const r = await api("POST", `${siPath(si.id)}:rotate-secret`, {
      token: owner.token,
      body: { previous_secret_expires_in: 7 * 86400 },
    });
    expect(r.status, r.text).toBe(200);
    expect(Date.parse(r.json.previous_secret_expires_at) - Date.parse(r.json.secret_rotated_at)).toBe(7 * 86400_000);
    const viaOld = await tokenFor(si.id, si.client_secret);
    expect(viaOld.status).toBe(200);

    const revoked = await api("POST", `${siPath(si.id)}:revoke-previous-secret`, { token: owner.token });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.json.previous_secret_expires_at).toBeNull();
    expect((await tokenFor(si.id, si.client_secret)).status).toBe(401);
    expect((await tokenFor(si.id, r.json.client_secret)).status).toBe(200);
    await expect(authenticateBridgeToken(viaOld.json.access_token!)).rejects.toMatchObject({ status: 401 });
    const steps = (
      await db().auditRecord.findMany({
        where: { targetId: si.id, action: "service_identity.secret_rotated" },
        orderBy: { seq: "asc" },
      })
    ).map((a) => (a.details as { step: string }).step);
    expect(steps).toEqual(["rotated", "previous_secret_revoked"]);
    // Idempotent: nothing left to revoke, no second audit.
    expect((await api("POST", `${siPath(si.id)}:revoke-previous-secret`, { token: owner.token })).status).toBe(200);
    expect(await auditCount(si.id)).toBe(3); // created, rotated, previous_secret_revoked
  });

  it("bad input is a problem document and changes nothing", async () => {
    const si = await createIdentity("bad input");
    const before = await secretHashOf(si.id);
    const audits = await auditCount(si.id);
    for (const body of [
      { previous_secret_expires_in: -1 },
      { previous_secret_expires_in: 7 * 86400 + 1 },
      { previous_secret_expires_in: 1.5 },
      { previous_secret_expires_in: "1h" },
      { overlap: 60 },
    ]) {
      const p = expectProblem(await api("POST", `${siPath(si.id)}:rotate-secret`, { token: owner.token, body }), 422);
      expect(p.code).toBe("validation_failed");
    }
    expect(await secretHashOf(si.id)).toEqual(before);
    expect(await auditCount(si.id)).toBe(audits);

    // A revoked identity: 409, nothing changes.
    expect((await api("DELETE", siPath(si.id), { token: owner.token })).status).toBe(200);
    const revokedRow = await secretHashOf(si.id);
    expectProblem(
      await api("POST", `${siPath(si.id)}:rotate-secret`, {
        token: owner.token,
        body: { previous_secret_expires_in: 60 },
      }),
      409,
      "service_identity_revoked",
    );
    expect(await secretHashOf(si.id)).toEqual(revokedRow);
  });

  it("concurrent rotations: one wins, the other is a 409, and no secret is lost", async () => {
    const si = await createIdentity("concurrent");
    const audits = await auditCount(si.id);
    const results = await Promise.all(
      [0, 1].map(() =>
        api("POST", `${siPath(si.id)}:rotate-secret`, {
          token: owner.token,
          body: { previous_secret_expires_in: 600 },
        }),
      ),
    );
    const statuses = results.map((x) => x.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = results.find((x) => x.status === 200)!;
    expectProblem(
      results.find((x) => x.status === 409)!,
      409,
      "secret_rotation_in_progress",
    );
    // The original secret (now previous) and the winner's both work.
    expect((await tokenFor(si.id, si.client_secret)).status).toBe(200);
    expect((await tokenFor(si.id, winner.json.client_secret)).status).toBe(200);
    expect(await auditCount(si.id)).toBe(audits + 1);
    // Rotating again during the overlap is refused the same way.
    expectProblem(
      await api("POST", `${siPath(si.id)}:rotate-secret`, { token: owner.token }),
      409,
      "secret_rotation_in_progress",
    );
  });
});

// ---------------------------------------------------------------------------
// Webhook secrets
// ---------------------------------------------------------------------------

type TDelivery = { headers: Record<string, string>; body: string };
let receiver: { url: string; got: TDelivery[]; close: () => Promise<void> };

async function startReceiver(): Promise<typeof receiver> {
  const got: TDelivery[] = [];
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const h of ["webhook-id", "webhook-timestamp", "webhook-signature"])
        headers[h] = String(req.headers[h] ?? "");
      got.push({ headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise((r) => srv.close(() => r())),
  };
}

const whPath = (id = "") => `/v1/workspaces/${ws.id}/event-subscriptions${id ? `/${id}` : ""}`;

/** Emits a budget.changed event and delivers it; returns what the receiver got. */
async function deliverOne(limit: number): Promise<TDelivery> {
  const n = receiver.got.length;
  expect(
    (
      await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, {
        token: owner.token,
        body: { limit_units: limit },
      })
    ).status,
  ).toBe(200);
  await until("a delivery", async () => {
    await dispatchOutbox();
    await deliverDue();
    return receiver.got.length > n;
  });
  return receiver.got[n]!;
}

/** Which secrets verify a delivery, with each library. */
function verifies(secret: string, d: TDelivery): { standardwebhooks: boolean; svix: boolean } {
  const attempt = (fn: () => unknown) => {
    try {
      fn();
      return true;
    } catch {
      return false;
    }
  };
  return {
    standardwebhooks: attempt(() => new StandardWebhook(secret).verify(d.body, d.headers)),
    svix: attempt(() => new SvixWebhook(secret).verify(d.body, d.headers)),
  };
}

describe("webhook secrets", () => {
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it("during the overlap receivers with the old or the new secret both verify every delivery; after it only the new one", async () => {
    const created = await api("POST", whPath(), {
      token: owner.token,
      body: { url: receiver.url, event_types: ["budget.changed"] },
    });
    expect(created.status, created.text).toBe(201);
    const oldSecret = created.json.secret as string;
    const wb = created.json.id as string;
    const plain = await deliverOne(1);
    expect(plain.headers["webhook-signature"]!.split(" ")).toHaveLength(1);

    // Long enough for two deliveries on a slow machine; the wait after it is a deadline, not a sleep.
    const r = await api("POST", `${whPath(wb)}:rotate-secret`, {
      token: owner.token,
      body: { previous_secret_expires_in: 5 },
    });
    expect(r.status, r.text).toBe(200);
    const newSecret = r.json.secret as string;
    const expiresAt = r.json.previous_secret_expires_at as string;
    expect(Date.parse(expiresAt) - Date.parse(r.json.secret_rotated_at)).toBe(5_000);
    const shown = await api("GET", whPath(wb), { token: owner.token });
    expect(shown.json).toMatchObject({
      previous_secret_expires_at: expiresAt,
      secret_rotated_at: r.json.secret_rotated_at,
    });
    expect(shown.json).not.toHaveProperty("secret");

    for (let i = 0; i < 2; i++) {
      const d = await deliverOne(10 + i);
      expect(Date.now()).toBeLessThan(Date.parse(expiresAt));
      const sigs = d.headers["webhook-signature"]!.split(" ");
      expect(sigs).toHaveLength(2);
      for (const s of sigs) expect(s).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verifies(oldSecret, d)).toEqual({ standardwebhooks: true, svix: true });
      expect(verifies(newSecret, d)).toEqual({ standardwebhooks: true, svix: true });
    }

    await pastInstant(expiresAt);
    const after = await deliverOne(20);
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verifies(newSecret, after)).toEqual({ standardwebhooks: true, svix: true });
    expect(verifies(oldSecret, after)).toEqual({ standardwebhooks: false, svix: false });
    expect((await api("GET", whPath(wb), { token: owner.token })).json.previous_secret_expires_at).toBeNull();
    const audit = await db().auditRecord.findMany({ where: { targetId: wb } });
    expect(audit.map((a) => [a.action, (a.details as { step: string }).step])).toEqual([
      ["credential.created", "rotated"],
    ]);
    expect(JSON.stringify(audit.map((a) => a.details))).not.toContain(newSecret.slice(6));
  });

  it("defaults to a 24 h overlap; revoking the previous secret early ends the second signature", async () => {
    const created = await api("POST", whPath(), {
      token: owner.token,
      body: { url: receiver.url, event_types: ["budget.changed"] },
    });
    const wb = created.json.id as string;
    const r = await api("POST", `${whPath(wb)}:rotate-secret`, { token: owner.token });
    expect(r.status, r.text).toBe(200);
    expect(Date.parse(r.json.previous_secret_expires_at) - Date.parse(r.json.secret_rotated_at)).toBe(86_400_000);
    const revoked = await api("POST", `${whPath(wb)}:revoke-previous-secret`, { token: owner.token });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.json.previous_secret_expires_at).toBeNull();
    // Only the other subscription of this file is listening to budget.changed: pick this one's delivery.
    const n = receiver.got.length;
    expect(
      (await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, { token: owner.token, body: { limit_units: 30 } }))
        .status,
    ).toBe(200);
    await until("two deliveries", async () => {
      await dispatchOutbox();
      await deliverDue();
      return receiver.got.length >= n + 2;
    });
    const mine = receiver.got.slice(n).find((d) => verifies(r.json.secret, d).svix)!;
    expect(mine.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verifies(created.json.secret, mine)).toEqual({ standardwebhooks: false, svix: false });
  });

  it("bad input: negative or too long an overlap, a deleted subscription, a rotation during an overlap, concurrent rotations", async () => {
    const created = await api("POST", whPath(), {
      token: owner.token,
      body: { url: `${receiver.url}?bad`, event_types: ["plan.changed"] },
    });
    const wb = created.json.id as string;
    const row = () =>
      db().eventSubscription.findUniqueOrThrow({
        where: { id: wb },
        omit: { secretSealed: false, previousSecretSealed: false },
      });
    const before = await row();
    for (const body of [
      { previous_secret_expires_in: -1 },
      { previous_secret_expires_in: 7 * 86400 + 1 },
      { previous_secret_expires_in: null },
      { extra: true },
    ]) {
      expectProblem(await api("POST", `${whPath(wb)}:rotate-secret`, { token: owner.token, body }), 422);
    }
    expect(await row()).toEqual(before);

    const results = await Promise.all(
      [0, 1].map(() =>
        api("POST", `${whPath(wb)}:rotate-secret`, { token: owner.token, body: { previous_secret_expires_in: 600 } }),
      ),
    );
    expect(results.map((x) => x.status).sort()).toEqual([200, 409]);
    expectProblem(
      results.find((x) => x.status === 409)!,
      409,
      "secret_rotation_in_progress",
    );
    const winner = results.find((x) => x.status === 200)!.json;
    const during = await row();
    expectProblem(
      await api("POST", `${whPath(wb)}:rotate-secret`, { token: owner.token, body: { previous_secret_expires_in: 0 } }),
      409,
      "secret_rotation_in_progress",
    );
    expect(await row()).toEqual(during);
    expect(during.secretRotatedAt?.toISOString()).toBe(winner.secret_rotated_at);
    expect(await db().auditRecord.count({ where: { targetId: wb } })).toBe(1);

    expect((await api("DELETE", whPath(wb), { token: owner.token })).status).toBe(204);
    expectProblem(await api("POST", `${whPath(wb)}:rotate-secret`, { token: owner.token }), 404);
    expectProblem(await api("POST", `${whPath(wb)}:revoke-previous-secret`, { token: owner.token }), 404);
    expect(await db().eventSubscription.count({ where: { id: wb } })).toBe(0);
  });
});

// ---------------------------------------------------------------------------
// Signing keys
// ---------------------------------------------------------------------------

describe("signing keys", () => {
  it("publishes the next key before it signs: a token a second process signs right after the rotation, and after activation, verifies with jose", async () => {
    const si = await createIdentity("jwks verifier");
    const [first] = (await keys()).filter((k) => k.state === "active");
    expect(first).toBeDefined();

    const rotatedAt = Date.now();
    const rotation = await rotateSigningKey({ correlationId: newId("evt"), actor: { kind: "user", id: owner.userId } });
    expect(rotation).toMatchObject({ state: "next", previous: first!.kid, retired: [] });
    // Activation waits out max-age (1 s) + key cache (100 ms, rounded up to 1 s) + skew (1 s).
    expect(Date.parse(rotation.activates_at) - rotatedAt).toBeGreaterThanOrEqual(PUBLISH_LEAD_MS - 50);
    expect(await keyOf(rotation.kid)).toMatchObject({ state: "next", retires_at: null });

    // The second process signs with the previous key at once, and the new key is already published.
    const before = await mintOnServer(si.id, si.client_secret);
    expect(decodeProtectedHeader(before).kid).toBe(first!.kid);
    const jwksNow = await serverJwks();
    expect(jwksNow.kids).toEqual(expect.arrayContaining([first!.kid, rotation.kid]));
    expect(jwksNow.cacheControl).toBe("public, max-age=1");

    // A verifier that fetches the key set once, now, and never again.
    const verifier = createRemoteJWKSet(new URL(`${base()}/.well-known/jwks.json`), {
      cooldownDuration: 3_600_000,
      cacheMaxAge: 3_600_000,
    });
    const v1 = await jwtVerify(before, verifier, { issuer: ISSUER, audience: "bridge" });
    expect(v1.payload.sub).toBe(si.id);

    // Once active, the second process signs with the new key; the key set fetched before activation verifies it.
    const after = await until("the second process to sign with the new key", async () => {
      const t = await mintOnServer(si.id, si.client_secret);
      return decodeProtectedHeader(t).kid === rotation.kid ? t : undefined;
    });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(rotation.activates_at));
    const v2 = await jwtVerify(after, verifier, { issuer: ISSUER, audience: "bridge" });
    expect(v2.protectedHeader.kid).toBe(rotation.kid);
    expect((await authenticateBridgeToken(after)).serviceIdentityId).toBe(si.id);
    // The previous key still verifies what it signed, and is now retiring.
    await jwtVerify(before, verifier, { issuer: ISSUER, audience: "bridge" });
    await until(
      "states written back",
      async () => (await db().signingKey.findUnique({ where: { kid: rotation.kid } }))?.status === "active",
    );
    expect(await keyOf(first!.kid)).toMatchObject({ state: "retiring" });
    expect((await keyOf(first!.kid)).retires_at).not.toBeNull();

    // Each step is audited in ws_platform (the key itself never appears).
    const audit = await db().auditRecord.findMany({
      where: { workspaceId: "ws_platform", targetId: rotation.kid },
      orderBy: { seq: "asc" },
    });
    expect(audit.map((a) => [a.action, (a.details as { step: string }).step])).toEqual([
      ["credential.created", "published"],
      ["credential.created", "activated"],
    ]);
    expect(JSON.stringify(audit.map((a) => a.details))).not.toMatch(/"d":/);
  });

  it("a second rotation while a key is still next is a 409 problem and changes nothing", async () => {
    const r1 = await rotateSigningKey({ correlationId: newId("evt") });
    const count = await db().signingKey.count();
    await expect(rotateSigningKey({ correlationId: newId("evt") })).rejects.toMatchObject({
      status: 409,
      reason: "signing_key_rotation_in_progress",
    });
    expect(await db().signingKey.count()).toBe(count);
    await until("the pending key to activate", async () => (await keyOf(r1.kid)).state === "active");
  });

  it("a token the previous key signed verifies until it expires; after the key retires it no longer verifies", async () => {
    // Only short-lived tokens are signed by the current key from here on.
    const current = (await keys()).find((k) => k.state === "active")!;
    const { token, expiresAt, kid } = await signToken({
      audience: "control",
      subject: owner.userId,
      jti: newId("tok"),
      ttlSeconds: 8,
    });
    expect(kid).toBe(current.kid);
    const next = await rotateSigningKey({ correlationId: newId("evt") });
    await until("the new key to activate", async () => (await keyOf(next.kid)).state === "active");
    expect(Date.now()).toBeLessThan(expiresAt.getTime());

    const fresh = () => createRemoteJWKSet(new URL(`${base()}/.well-known/jwks.json`));
    const ok = await jwtVerify(token, fresh(), { issuer: ISSUER, audience: "control" });
    expect(ok.protectedHeader.kid).toBe(current.kid);
    expect((await keyOf(current.kid)).state).toBe("retiring");
    const retiresAt = (await keyOf(current.kid)).retires_at!;
    // Not before every token it signed has expired, plus skew.
    expect(Date.parse(retiresAt)).toBeGreaterThanOrEqual(expiresAt.getTime() + 1_000);
    // The JWKS is not cached past the scheduled retirement.
    const maxAge = Number(/max-age=(\d+)/.exec((await serverJwks()).cacheControl ?? "")![1]);
    expect(Date.now() + maxAge * 1000).toBeLessThanOrEqual(Date.parse(retiresAt) + 1_000);

    await until("the previous key to leave the JWKS", async () => !(await serverJwks()).kids.includes(current.kid));
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(retiresAt));
    expect((await keyOf(current.kid)).state).toBe("retired");
    // Even with a clock before its expiry, the token no longer verifies: its key is gone.
    const early = new Date(expiresAt.getTime() - 5_000);
    await expect(
      jwtVerify(token, fresh(), { issuer: ISSUER, audience: "control", currentDate: early }),
    ).rejects.toBeInstanceOf(joseErrors.JWKSNoMatchingKey);
    await expect(verifyToken(token, "control")).rejects.toMatchObject({ status: 401 });
    // The state change is written back (once, by whichever process saw it first) with its audit record.
    const audit = await until("the retirement to be recorded", async () => {
      const rows = await db().auditRecord.findMany({
        where: { workspaceId: "ws_platform", targetId: current.kid, action: "credential.revoked" },
      });
      return rows.length ? rows : undefined;
    });
    expect(audit.map((a) => a.details)).toMatchObject([{ step: "retired", emergency: false }]);
    expect(await db().signingKey.findUniqueOrThrow({ where: { kid: current.kid } })).toMatchObject({
      status: "retired",
      retiredReason: "scheduled",
    });
  });

  it("an emergency rotation (the CLI) removes every old key at once: old tokens fail, new ones verify", async () => {
    const si = await createIdentity("emergency");
    const oldBridge = await mintOnServer(si.id, si.client_secret);
    const oldKid = decodeProtectedHeader(oldBridge).kid!;
    expect((await api("GET", "/v1/workspaces", { token: owner.token })).status).toBe(200);

    const cli = spawnSync(
      process.execPath,
      [path.join(ROOT, "bin/capstan.mjs"), "rotate-signing-key", "--emergency", "--reason", "test: key leaked"],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, CAPSTAN_MIGRATE_ON_START: "0" },
      },
    );
    expect(cli.status, cli.stderr + cli.stdout).toBe(0);
    const newKid = /new signing key (key_[0-9a-z]+): active now \(emergency\)/.exec(cli.stdout)?.[1];
    expect(newKid, cli.stdout).toBeDefined();
    expect(cli.stdout).toContain(oldKid);
    expect(cli.stdout).toMatch(/what this breaks: every token those keys signed fails verification/);

    // Within one key-cache period (100 ms) everywhere.
    const removedAt = Date.now();
    await until(
      "the old keys to leave the server's JWKS",
      async () => {
        const { kids } = await serverJwks();
        return kids.length === 1 && kids[0] === newKid;
      },
      2_000,
    );
    expect(Date.now() - removedAt).toBeLessThan(1_000);
    await expect(
      jwtVerify(oldBridge, createRemoteJWKSet(new URL(`${base()}/.well-known/jwks.json`)), {
        issuer: ISSUER,
        audience: "bridge",
      }),
    ).rejects.toBeInstanceOf(joseErrors.JWKSNoMatchingKey);
    await expect(authenticateBridgeToken(oldBridge)).rejects.toMatchObject({ status: 401 });
    const refused = await api("GET", "/v1/workspaces", { token: owner.token });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("signature check failed");

    const fresh = await mintOnServer(si.id, si.client_secret);
    expect(decodeProtectedHeader(fresh).kid).toBe(newKid);
    await jwtVerify(fresh, createRemoteJWKSet(new URL(`${base()}/.well-known/jwks.json`)), {
      issuer: ISSUER,
      audience: "bridge",
    });
    const all = await keys();
    expect(all.filter((k) => k.state !== "retired").map((k) => k.kid)).toEqual([newKid]);
    expect(all.find((k) => k.kid === oldKid)).toMatchObject({ state: "retired", retired_reason: "emergency" });
    const audit = await db().auditRecord.findMany({
      where: { workspaceId: "ws_platform", targetId: oldKid, action: "credential.revoked" },
    });
    expect(audit.map((a) => a.details)).toMatchObject([
      { step: "retired", emergency: true, reason: "test: key leaked" },
    ]);

    // Personal tokens signed before are dead too: a new one works.
    const { token } = await createApiToken(owner.userId, "after the emergency", 3600);
    expect(decodeProtectedHeader(token).kid).toBe(newKid);
    expect((await api("GET", "/v1/workspaces", { token })).status).toBe(200);
  });

  it("GET /v1/platform/signing-keys shows each key's state and when it changes, to platform admins only", async () => {
    const platformToken = await issueTokenForEmail("admin@example.com", 3600);
    const r = await api("GET", "/v1/platform/signing-keys", { token: platformToken });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ jwks_max_age_seconds: 1, publish_lead_seconds: 3, clock_skew_seconds: 1 });
    const items = r.json.items as TSigningKeyView[];
    expect(items[0]).toMatchObject({ state: "active", retires_at: null, retired_reason: null });
    expect(items.filter((k) => k.state === "retired").length).toBe(items.length - 1);
    expect(items.some((k) => k.retired_reason === "emergency")).toBe(true);
    expect(r.text).not.toMatch(/"d":|private/);
    const { token } = await createApiToken(owner.userId, "not platform", 600);
    expectProblem(await api("GET", "/v1/platform/signing-keys", { token }), 403);
  });
});
