import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { authenticateBridgeToken } from "@/server/domain/service-identities/bridge-token.service";
import { resetTokenCaches } from "@/server/domain/service-identities/token.service";
import { handleOAuthToken } from "./support/handlers";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { verifyToken } from "@/server/domain/signing-keys/jwt.service";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser, type TTestWorkspace } from "./support/api";

/**
 * POST /v1/oauth/token, black box: client_credentials (Basic and body), every
 * error path, and RFC 8693 token exchange against a real OIDC issuer on
 * loopback (discovery + JWKS over node:http, its own keys, its own tokens).
 * Logs run at debug and every stdout/stderr line is captured for the secret test.
 */
process.env.OIDC_ALLOW_INSECURE_ISSUER = "1";
process.env.LOG_LEVEL = "debug";
resetEnvCache();

type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const TOKEN_URL = "http://localhost:3000/v1/oauth/token";
const EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_TYPE = "urn:ietf:params:oauth:token-type:jwt";

// --- capture everything the app says, and every response it gives ---------------------------
const logLines: string[] = [];
const responses: string[] = [];
const secretsShown: string[] = [];
const writes = [vi.spyOn(process.stdout, "write"), vi.spyOn(process.stderr, "write")];
for (const spy of writes) spy.mockImplementation((chunk: string | Uint8Array) => (logLines.push(String(chunk)), true));

async function token(
  form: Record<string, string>,
  opts: { basic?: [string, string]; authorization?: string; contentType?: string; url?: string; raw?: string } = {},
) {
  const headers: Record<string, string> = { "content-type": opts.contentType ?? "application/x-www-form-urlencoded" };
  if (opts.basic) {
    const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
    headers.authorization = `Basic ${Buffer.from(`${enc(opts.basic[0])}:${enc(opts.basic[1])}`).toString("base64")}`;
  }
  if (opts.authorization) headers.authorization = opts.authorization;
  const res = await handleOAuthToken(
    new Request(opts.url ?? TOKEN_URL, {
      method: "POST",
      headers,
      body: opts.raw ?? new URLSearchParams(form).toString(),
    }),
  );
  const text = await res.text();
  responses.push(text);
  return { status: res.status, headers: res.headers, json: JSON.parse(text) as TJson };
}

/** Every /v1 API response is recorded too, except the ones that show a secret (`shown`). */
const apiTexts: string[] = [];
async function call(method: string, path: string, o: Parameters<typeof api>[2] = {}, shown = false) {
  const r = await api(method, path, o);
  if (!shown) apiTexts.push(r.text);
  return r;
}

// --- a real OIDC issuer on loopback --------------------------------------------------------
type TIssuer = {
  url: string;
  requests: { discovery: number; jwks: number };
  sign: (
    claims: TJson,
    o?: { kid?: string; key?: CryptoKey; expiresIn?: number | string; alg?: string },
  ) => Promise<string>;
  addKey: (kid: string) => Promise<CryptoKey>;
  jwksUriOverride?: string;
  close: () => Promise<void>;
};
const issuers: TIssuer[] = [];

async function startIssuer(): Promise<TIssuer> {
  const keys = new Map<string, { priv: CryptoKey; pub: JWK; alg: string }>();
  const addKey = async (kid: string, alg = "ES256") => {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    keys.set(kid, { priv: privateKey, pub: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" }, alg });
    return privateKey;
  };
  await addKey("es-1");
  await addKey("rs-1", "RS256");
  const iss: TIssuer = {
    url: "",
    requests: { discovery: 0, jwks: 0 },
    addKey: (kid) => addKey(kid),
    sign: async (claims, o = {}) => {
      const kid = o.kid ?? "es-1";
      const entry = keys.get(kid);
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT({
        iss: iss.url,
        aud: "capstan",
        sub: "repo:acme/shop:ref:refs/heads/main",
        iat: now,
        ...claims,
      }).setProtectedHeader({ alg: o.alg ?? entry?.alg ?? "ES256", kid, typ: "JWT" });
      if (o.expiresIn !== undefined) jwt.setExpirationTime(o.expiresIn);
      else if (!("exp" in claims)) jwt.setExpirationTime(now + 300);
      return jwt.sign(o.key ?? entry!.priv);
    },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.url === "/.well-known/openid-configuration") {
      iss.requests.discovery++;
      return send(200, {
        issuer: iss.url,
        jwks_uri: iss.jwksUriOverride ?? `${iss.url}/jwks`,
        id_token_signing_alg_values_supported: ["ES256", "RS256"],
      });
    }
    if (req.url === "/jwks") {
      iss.requests.jwks++;
      return send(200, { keys: [...keys.values()].map((k) => k.pub) });
    }
    send(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  iss.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  iss.close = () => new Promise((resolve) => server.close(() => resolve()));
  issuers.push(iss);
  return iss;
}

// --- fixtures ----------------------------------------------------------------------------
let owner: TTestUser;
let ws: TTestWorkspace;
let prod: string;
let client: { id: string; secret: string };
let idp: TIssuer;
let federated: string;
const SUBJECT = "repo:acme/shop:ref:refs/heads/main";

async function createIdentity(body: TJson, headers: Record<string, string> = {}): Promise<TJson> {
  const r = await call(
    "POST",
    `/v1/workspaces/${ws.id}/service-identities`,
    { token: owner.token, body: { product_id: prod, ...body }, headers },
    true,
  );
  if (r.status !== 201) throw new Error(`create identity: ${r.status} ${r.text}`);
  if (r.json.client_secret) secretsShown.push(r.json.client_secret);
  return r.json;
}

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  ws = await makeWorkspace(owner.token);
  prod = newId("prod");
  await db().product.create({
    data: {
      id: prod,
      name: prod,
      workspaceId: ws.id,
      inputRevisionId: newId("rev"),
      repoUrl: "https://example.com/s.git",
      ref: "main",
      createdBy: owner.userId,
    },
  });
  const si = await createIdentity(
    { name: "deployer", environment_type: "production" },
    { "idempotency-key": "create-deployer" },
  );
  client = { id: si.id, secret: si.client_secret };
  idp = await startIssuer();
  federated = (
    await createIdentity({ name: "gha", federation: { issuer: idp.url, subject: SUBJECT, audience: "capstan" } })
  ).id;
});

afterAll(async () => {
  for (const spy of writes) spy.mockRestore();
  await Promise.all(issuers.map((i) => i.close()));
});

const denied = (error: string, description: string | RegExp) => ({
  error,
  error_description: typeof description === "string" ? description : expect.stringMatching(description),
});

describe("client_credentials", () => {
  it("via HTTP Basic: a bridge JWT with the identity's claims, no-store, last_token_at set", async () => {
    const r = await token({ grant_type: "client_credentials" }, { basic: [client.id, client.secret] });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.json).toEqual({
      access_token: expect.any(String),
      token_type: "Bearer",
      expires_in: 600,
      scope: "bridge",
    });
    const claims = await verifyToken(r.json.access_token, "bridge");
    expect(claims).toMatchObject({
      sub: client.id,
      aud: "bridge",
      ws: ws.id,
      prod,
      env: "production",
      kind: "workspace",
    });
    expect(claims.jti).toMatch(/^tok_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    expect(claims.exp! - claims.iat!).toBe(600);
    await expect(verifyToken(r.json.access_token, "control")).rejects.toThrow(/audience check failed/);
    expect(await authenticateBridgeToken(r.json.access_token)).toMatchObject({
      serviceIdentityId: client.id,
      workspaceId: ws.id,
      productId: prod,
      environmentType: "production",
    });
    const row = await db().serviceIdentity.findUnique({ where: { id: client.id } });
    expect(row?.lastTokenAt).not.toBeNull();
  });

  it("via the body", async () => {
    const r = await token({
      grant_type: "client_credentials",
      client_id: client.id,
      client_secret: client.secret,
      scope: "anything",
    });
    expect(r.status).toBe(200);
    expect((await verifyToken(r.json.access_token, "bridge")).sub).toBe(client.id);
  });

  const cases: Array<[string, () => Parameters<typeof token>, number, TJson, boolean?]> = [
    [
      "a JSON body",
      () => [{}, { contentType: "application/json", raw: JSON.stringify({ grant_type: "client_credentials" }) }],
      400,
      denied("invalid_request", /x-www-form-urlencoded/),
    ],
    [
      "no grant_type",
      () => [{ client_id: client.id, client_secret: client.secret }],
      400,
      denied("invalid_request", "grant_type is required"),
    ],
    ["an unknown grant_type", () => [{ grant_type: "password" }], 400, denied("unsupported_grant_type", /password/)],
    [
      "a repeated parameter",
      () => [{}, { raw: `grant_type=client_credentials&client_id=${client.id}&client_id=${client.id}` }],
      400,
      denied("invalid_request", "parameter client_id is repeated"),
    ],
    [
      "Basic and a body secret",
      () => [{ grant_type: "client_credentials", client_secret: client.secret }, { basic: [client.id, client.secret] }],
      400,
      denied("invalid_request", /both/),
    ],
    [
      "an unknown client (Basic)",
      () => [{ grant_type: "client_credentials" }, { basic: [newId("svc"), client.secret] }],
      401,
      denied("invalid_client", "client authentication failed: unknown client"),
      true,
    ],
    [
      "an unknown client (body)",
      () => [{ grant_type: "client_credentials", client_id: "nobody", client_secret: "x" }],
      401,
      denied("invalid_client", "client authentication failed: unknown client"),
    ],
    [
      "a wrong secret (Basic)",
      () => [{ grant_type: "client_credentials" }, { basic: [client.id, "cssec_wrong"] }],
      401,
      denied("invalid_client", "client authentication failed: secret mismatch"),
      true,
    ],
    [
      "a wrong secret (body)",
      () => [{ grant_type: "client_credentials", client_id: client.id, client_secret: "cssec_wrong" }],
      401,
      denied("invalid_client", "client authentication failed: secret mismatch"),
    ],
    [
      "no credentials",
      () => [{ grant_type: "client_credentials" }],
      401,
      denied("invalid_client", "client authentication failed: no client credentials"),
    ],
    [
      "no secret",
      () => [{ grant_type: "client_credentials", client_id: client.id }],
      401,
      denied("invalid_client", "client authentication failed: no client secret"),
    ],
    [
      "malformed Basic",
      () => [{ grant_type: "client_credentials" }, { authorization: "Basic bm9jb2xvbg==" }],
      401,
      denied("invalid_client", /malformed Basic/),
      true,
    ],
    [
      "a Bearer header",
      () => [{ grant_type: "client_credentials" }, { authorization: "Bearer abc" }],
      400,
      denied("invalid_request", /Basic scheme/),
    ],
    [
      "a foreign audience",
      () => [
        {
          grant_type: "client_credentials",
          client_id: client.id,
          client_secret: client.secret,
          audience: "https://evil.example",
        },
      ],
      400,
      denied("invalid_target", /audience/),
    ],
    [
      "a foreign resource",
      () => [
        {
          grant_type: "client_credentials",
          client_id: client.id,
          client_secret: client.secret,
          resource: "https://evil.example/api",
        },
      ],
      400,
      denied("invalid_target", /resource/),
    ],
    [
      "a secret in the URL",
      () => [{ grant_type: "client_credentials" }, { url: `${TOKEN_URL}?client_secret=x` }],
      400,
      denied("invalid_request", /URL/),
    ],
  ];
  it.each(cases)("refuses %s", async (_what, args, status, body, basicChallenge) => {
    const r = await token(...args());
    expect(r.status).toBe(status);
    expect(r.json).toEqual(body);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("www-authenticate")).toBe(basicChallenge ? 'Basic realm="capstan"' : null);
  });
});

describe("token exchange (RFC 8693) with a loopback OIDC issuer", () => {
  const exchange = (subjectToken: string, extra: Record<string, string> = {}, clientId = federated) =>
    token({
      grant_type: EXCHANGE,
      client_id: clientId,
      subject_token: subjectToken,
      subject_token_type: JWT_TYPE,
      ...extra,
    });

  it("swaps a valid external token for a bridge token with fed_sub; discovery and JWKS are then cached", async () => {
    resetTokenCaches();
    const before = { ...idp.requests };
    const r = await exchange(await idp.sign({}));
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({
      token_type: "Bearer",
      expires_in: 600,
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
    });
    expect(await verifyToken(r.json.access_token, "bridge")).toMatchObject({
      sub: federated,
      fed_sub: SUBJECT,
      ws: ws.id,
      prod,
      env: null,
      kind: "workspace",
    });
    expect(idp.requests).toEqual({ discovery: before.discovery + 1, jwks: before.jwks + 1 });
    const again = await exchange(await idp.sign({}, { kid: "rs-1" }), {
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      audience: "bridge",
    });
    expect(again.status).toBe(200);
    expect(idp.requests).toEqual({ discovery: before.discovery + 1, jwks: before.jwks + 1 });
    expect(await authenticateBridgeToken(again.json.access_token)).toMatchObject({
      serviceIdentityId: federated,
      federatedSubject: SUBJECT,
    });
  });

  it("names the failed check", async () => {
    const other = await generateKeyPair("ES256");
    const now = Math.floor(Date.now() / 1000);
    const checks: Array<[string, string | RegExp]> = [
      [
        await idp.sign({ sub: "repo:acme/other:ref:refs/heads/main" }),
        `subject check failed: expected "${SUBJECT}", got "repo:acme/other:ref:refs/heads/main"`,
      ],
      [await idp.sign({ aud: "someone-else" }), /^audience check failed/],
      [await idp.sign({ aud: ["x", "y"] }), /^audience check failed/],
      [await idp.sign({ exp: now - 120 }), /token expired/],
      [await idp.sign({ nbf: now + 600 }), /^not-before check failed/],
      [await idp.sign({}, { key: other.privateKey }), /^signature check failed$/],
      [
        await idp.sign({}, { kid: "nope", key: other.privateKey, alg: "ES256" }),
        /^signature check failed: no key .* kid "nope"/,
      ],
      ["not-a-jwt", "subject token is not a well-formed JWT"],
    ];
    for (const [subjectToken, description] of checks) {
      const r = await exchange(subjectToken);
      expect(r.status).toBe(400);
      expect(r.json).toEqual(denied("invalid_grant", description));
    }
    // 30 s past exp is inside the 60 s clock tolerance.
    expect((await exchange(await idp.sign({ exp: now - 30 }))).status).toBe(200);
  });

  it("checks the issuer before fetching anything", async () => {
    const fresh = await startIssuer();
    const id = (
      await createIdentity({ name: "fresh", federation: { issuer: fresh.url, subject: SUBJECT, audience: "capstan" } })
    ).id;
    const r = await exchange(await idp.sign({}), {}, id); // a token of another (real) issuer
    expect(r.json).toEqual(denied("invalid_grant", `issuer check failed: expected "${fresh.url}", got "${idp.url}"`));
    const evil = await exchange(await fresh.sign({ iss: "https://evil.example" }), {}, id);
    expect(evil.json.error_description).toMatch(/^issuer check failed/);
    expect(fresh.requests).toEqual({ discovery: 0, jwks: 0 });
  });

  it("refreshes the JWKS on an unknown kid at most once a minute", async () => {
    const rot = await startIssuer();
    const id = (
      await createIdentity({
        name: "rotating idp",
        federation: { issuer: rot.url, subject: SUBJECT, audience: "capstan" },
      })
    ).id;
    expect((await exchange(await rot.sign({}), {}, id)).status).toBe(200);
    const key = await rot.addKey("es-2");
    const early = await exchange(await rot.sign({}, { kid: "es-2", key }), {}, id);
    expect(early.json.error_description).toMatch(/kid "es-2"/);
    expect(rot.requests.jwks).toBe(1);
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      const later = await exchange(await rot.sign({}, { kid: "es-2", key }), {}, id);
      expect(later.status, JSON.stringify(later.json)).toBe(200);
      expect(rot.requests).toEqual({ discovery: 2, jwks: 2 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a jwks_uri off the issuer's origin", async () => {
    const off = await startIssuer();
    off.jwksUriOverride = `${idp.url}/jwks`;
    const id = (
      await createIdentity({
        name: "off origin",
        federation: { issuer: off.url, subject: SUBJECT, audience: "capstan" },
      })
    ).id;
    const r = await exchange(await off.sign({}), {}, id);
    expect(r.json).toEqual(denied("invalid_grant", "discovery failed: jwks_uri is not on the issuer's origin"));
  });

  it("refuses bad requests and clients", async () => {
    const good = await idp.sign({});
    const plain = client.id; // has no federation
    const cases: Array<[Record<string, string>, number, TJson]> = [
      [
        { grant_type: EXCHANGE, client_id: federated, subject_token_type: JWT_TYPE },
        400,
        denied("invalid_request", "subject_token is required"),
      ],
      [
        { grant_type: EXCHANGE, client_id: federated, subject_token: good },
        400,
        denied("invalid_request", "subject_token_type is required"),
      ],
      [
        { grant_type: EXCHANGE, client_id: federated, subject_token: good, subject_token_type: "urn:x" },
        400,
        denied("invalid_request", /subject_token_type must be/),
      ],
      [
        {
          grant_type: EXCHANGE,
          client_id: federated,
          subject_token: good,
          subject_token_type: JWT_TYPE,
          client_secret: "x",
        },
        400,
        denied("invalid_request", /without a client secret/),
      ],
      [
        {
          grant_type: EXCHANGE,
          client_id: federated,
          subject_token: good,
          subject_token_type: JWT_TYPE,
          actor_token: good,
        },
        400,
        denied("invalid_request", /actor tokens/),
      ],
      [
        { grant_type: EXCHANGE, subject_token: good, subject_token_type: JWT_TYPE },
        401,
        denied("invalid_client", /client_id is required/),
      ],
      [
        { grant_type: EXCHANGE, client_id: newId("svc"), subject_token: good, subject_token_type: JWT_TYPE },
        401,
        denied("invalid_client", "client authentication failed: unknown client"),
      ],
      [
        { grant_type: EXCHANGE, client_id: plain, subject_token: good, subject_token_type: JWT_TYPE },
        400,
        denied("unauthorized_client", /no federation/),
      ],
    ];
    for (const [form, status, body] of cases) {
      const r = await token(form);
      expect([r.status, r.json]).toEqual([status, body]);
    }
    const gone = (
      await createIdentity({ name: "gone", federation: { issuer: idp.url, subject: SUBJECT, audience: "capstan" } })
    ).id;
    await call("DELETE", `/v1/workspaces/${ws.id}/service-identities/${gone}`, { token: owner.token });
    expect((await exchange(good, {}, gone)).json).toEqual(denied("invalid_client", "client is revoked"));
  });
});

describe("the client secret never leaks", () => {
  it("appears only in its create/rotate response: not in replays, reads, token responses, audit, outbox, idempotency store or logs", async () => {
    // Exercise everything once more around a fresh identity.
    const key = `leak-${newId("evt")}`;
    const si = await createIdentity({ name: "leak check" }, { "idempotency-key": key });
    const replay = await call("POST", `/v1/workspaces/${ws.id}/service-identities`, {
      token: owner.token,
      body: { product_id: prod, name: "leak check" },
      headers: { "idempotency-key": key },
    });
    expect(replay.status).toBe(201);
    const rot = await call(
      "POST",
      `/v1/workspaces/${ws.id}/service-identities/${si.id}:rotate-secret`,
      { token: owner.token, headers: { "idempotency-key": `${key}-r` } },
      true,
    );
    secretsShown.push(rot.json.client_secret);
    const rotReplay = await call("POST", `/v1/workspaces/${ws.id}/service-identities/${si.id}:rotate-secret`, {
      token: owner.token,
      headers: { "idempotency-key": `${key}-r` },
    });
    expect(rotReplay.json.id).toBe(si.id);
    expect(rotReplay.json).not.toHaveProperty("client_secret");
    await call("GET", `/v1/workspaces/${ws.id}/service-identities/${si.id}`, { token: owner.token });
    await call("GET", `/v1/workspaces/${ws.id}/service-identities`, { token: owner.token });
    await call("GET", `/v1/workspaces/${ws.id}/audit-records?limit=200`, { token: owner.token });
    await call("GET", `/v1/workspaces/${ws.id}/correlations/${newId("evt")}/events`, { token: owner.token });
    await token({ grant_type: "client_credentials" }, { basic: [si.id, si.client_secret] }); // the old one: mismatch
    await token({ grant_type: "client_credentials", client_id: si.id, client_secret: rot.json.client_secret });
    await call("DELETE", `/v1/workspaces/${ws.id}/service-identities/${si.id}`, { token: owner.token });
    await token({ grant_type: "client_credentials", client_id: si.id, client_secret: rot.json.client_secret });

    const bigint = (_k: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v);
    const haystacks: Array<[string, string]> = [
      ["token endpoint responses", responses.join("\n")],
      ["other API responses", apiTexts.join("\n")],
      ["audit records", JSON.stringify(await db().auditRecord.findMany(), bigint)],
      ["outbox events", JSON.stringify(await db().outboxEvent.findMany(), bigint)],
      ["idempotency store", JSON.stringify(await db().idempotencyKey.findMany(), bigint)],
      [
        "service identity rows",
        JSON.stringify(await db().serviceIdentity.findMany({ omit: { secretHash: false } }), bigint),
      ],
      ["log lines", logLines.join("")],
    ];
    expect(secretsShown.length).toBeGreaterThanOrEqual(8);
    expect(logLines.some((l) => l.includes("oauth.token_issued"))).toBe(true);
    expect(logLines.some((l) => l.includes("oauth.token_denied"))).toBe(true);
    for (const secret of secretsShown) {
      const body = secret.slice("cssec_".length);
      for (const [where, text] of haystacks) {
        expect(text.includes(body), `a client secret appears in ${where}`).toBe(false);
      }
    }
  });
});
