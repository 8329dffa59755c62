import http from "node:http";
import type net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as tlsAsk } from "@/app/tls/ask/route";
import { processDomainChecks } from "@/server/domain/domains/verification.service";
import { serveSurfaceNode } from "@/server/http/surface-node";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { startDnsServer, type TDnsServer } from "./support/dns-server";

/**
 * Custom domains against a real DNS server on loopback (dns2): the worker's
 * checks use node:dns pointed at it. Routing is proven through the custom
 * server's fast path in front of a real deployed fixture app.
 */
const TARGET = "edge.capstan.test";
const APEX_IP = "203.0.113.7";
let dns: TDnsServer;
let owner: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };
let server: http.Server;
let port = 0;

beforeAll(async () => {
  dns = await startDnsServer();
  process.env.CAPSTAN_DNS_SERVERS = dns.address;
  process.env.CAPSTAN_DNS_TIMEOUT_MS = "300";
  process.env.CAPSTAN_DOMAIN_CNAME_TARGET = TARGET;
  process.env.CAPSTAN_DOMAIN_APEX_ADDRESSES = APEX_IP;
  resetEnvCache();
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  must(await api("PUT", `/v1/workspaces/${ws}/plan`, { token: owner.token, body: { plan: "team" } }), 200, "plan");
  app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
  server = http.createServer((req, res) => {
    if (
      !serveSurfaceNode(req, res, () => {
        res.writeHead(299);
        res.end("next.js");
      })
    ) {
      res.writeHead(299);
      res.end("next.js");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await dns.close();
  await runner().sweep(async () => new Set());
});

let n = 0;
const unique = (tag: string) => `${tag}-${Date.now().toString(36)}-${++n}.example.com`;
const create = (body: Record<string, unknown>, token = owner.token, w = ws) =>
  api("POST", `/v1/workspaces/${w}/domains`, { token, body });
const get = (id: string) => api("GET", `/v1/workspaces/${ws}/domains/${id}`, { token: owner.token });
const verify = (id: string, token = owner.token, w = ws) =>
  api("POST", `/v1/workspaces/${w}/domains/${id}/verify`, { token });
const publish = (host: string, token: string, routing: { CNAME?: string; A?: string[] } = { CNAME: TARGET }) => {
  dns.zone.set(`_capstan-challenge.${host}`, { TXT: [`capstan-verify=${token}`] });
  dns.zone.set(host, routing);
};
/** Runs the domain worker until it finds nothing to do. */
async function runChecks(): Promise<void> {
  while ((await processDomainChecks(50)) > 0) {
    /* next batch */
  }
}
/** A shortened clock: the budgets' and re-checks' history moves an hour into the past. */
async function ageOneHour(hostname: string): Promise<void> {
  await db()
    .$executeRaw`UPDATE "domain_verify_requests" SET "requested_at" = "requested_at" - interval '1 hour' WHERE "hostname" = ${hostname}`;
  await db()
    .$executeRaw`UPDATE "domains" SET "last_checked_at" = "last_checked_at" - interval '1 hour' WHERE "hostname" = ${hostname}`;
}
function hit(
  host: string,
  path: string,
  accept = "application/json",
  extra: Record<string, string> = {},
): Promise<{ status: number; body: string; setCookie: string[] }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, headers: { host, accept, ...extra } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, setCookie: res.headers["set-cookie"] ?? [] }));
    });
    req.on("error", reject);
    req.end();
  });
}
const domainEvents = async (id: string) =>
  (await db().outboxEvent.findMany({ where: { subject: id, type: "domain.changed" }, orderBy: { id: "asc" } })).map(
    (e) => (e.data as { to: string }).to,
  );

describe("creating domains", () => {
  it("answers 201 with the records to create, normalised, and lists and reads it", async () => {
    const host = unique("shop");
    const d = must(
      await create({ product_id: app.productId, environment_type: "staging", hostname: `${host.toUpperCase()}.` }),
      201,
      "create",
    );
    expect(d).toMatchObject({
      hostname: host,
      apex: false,
      status: "pending_verification",
      check_pending: true,
      failure: null,
      verified_at: null,
      environment_type: "staging",
      product_id: app.productId,
      workspace_id: ws,
      verification_record: { type: "TXT", name: `_capstan-challenge.${host}` },
      routing_records: [{ type: "CNAME", name: host, value: TARGET }],
    });
    expect(d.verification_record.value).toMatch(/^capstan-verify=[0-9a-f]{32}$/);
    expect(must(await get(d.id), 200, "get")).toEqual(d);
    const list = must(
      await api("GET", `/v1/workspaces/${ws}/domains?product_id=${app.productId}`, { token: owner.token }),
      200,
      "list",
    );
    expect(list.items.map((x: { id: string }) => x.id)).toContain(d.id);
    expect(await domainEvents(d.id)).toEqual(["pending_verification"]);
  });

  it("an apex gets A records of Capstan's addresses", async () => {
    const d = must(
      await create({
        product_id: app.productId,
        environment_type: "production",
        hostname: `apex${Date.now().toString(36)}.co.uk`,
      }),
      201,
      "apex",
    );
    expect(d).toMatchObject({ apex: true, routing_records: [{ type: "A", value: APEX_IP }] });
  });

  it("refuses bad hostnames with a problem naming the field, storing nothing", async () => {
    const before = await db().domain.count({ where: { workspaceId: ws } });
    const bad = [
      "http://x.com",
      "1.2.3.4",
      "com",
      "co.uk",
      `${"a".repeat(300)}`,
      "xn--zz.com",
      "*.example.com",
      "a b.example.com",
      "exa_mple.com",
      "x.localhost",
      "<svg/onload=1>.com",
      "",
    ];
    for (const hostname of bad) {
      const r = await create({ product_id: app.productId, environment_type: "staging", hostname });
      expect(r.status, hostname).toBe(422);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.json.code).toBe("validation_failed");
      expect(r.json.errors?.[0]?.path, hostname).toBe("/hostname");
    }
    for (const body of [
      { product_id: app.productId, environment_type: "preview", hostname: unique("env") },
      { product_id: app.productId, hostname: unique("missing") },
      { product_id: app.productId, environment_type: "staging", hostname: unique("extra"), extra: 1 },
      { product_id: "prod_01jh0000000000000000000000", environment_type: "staging", hostname: unique("noprod") },
    ]) {
      const r = await create(body);
      expect([400, 422], JSON.stringify(body)).toContain(r.status);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(await db().domain.count({ where: { workspaceId: ws } })).toBe(before);
  });

  it("one claim per workspace; other workspaces may claim an unverified name; the first TXT proof wins and the others are released", async () => {
    const host = unique("taken");
    const mine = must(
      await create({ product_id: app.productId, environment_type: "staging", hostname: host }),
      201,
      "first",
    );
    for (const twin of [host.toUpperCase(), `${host}.`]) {
      const r = await create({ product_id: app.productId, environment_type: "production", hostname: twin });
      expect(r.status, twin).toBe(409);
      expect(r.json).toMatchObject({ code: "conflict", reason: "domain_hostname_taken" });
    }
    // Five other workspaces claim the same unverified name at once: every claim is its own, with its own
    // challenge (five: six TXT values still fit one UDP answer of the loopback DNS server).
    const racers: Array<{ u: TTestUser; w: string; a: { productId: string } }> = [];
    for (let i = 0; i < 5; i++) {
      const u = await makeUser();
      const w = (await makeWorkspace(u.token)).id;
      racers.push({ u, w, a: await confirmedApp(u, w) });
    }
    const claims = await Promise.all(
      racers.map(({ u, w, a }) =>
        create({ product_id: a.productId, environment_type: "staging", hostname: host }, u.token, w),
      ),
    );
    expect(claims.map((r) => r.status)).toEqual(Array(5).fill(201));
    expect(new Set(claims.map((r) => r.json.verification_record.value)).size).toBe(5);
    await runChecks();

    // Everyone publishes their TXT value; the worker decides them together: exactly one gets the name.
    dns.zone.set(`_capstan-challenge.${host}`, {
      TXT: [mine.verification_record.value, ...claims.map((r) => r.json.verification_record.value)],
    });
    dns.zone.set(host, { CNAME: TARGET });
    await db().$executeRaw`UPDATE "domains" SET "check_requested_at" = now() WHERE "hostname" = ${host}`;
    await runChecks();
    const rows = await db().domain.findMany({ where: { hostname: host } });
    expect(rows).toHaveLength(6);
    expect(rows.filter((r) => r.status === "verified")).toHaveLength(1);
    const released = rows.filter((r) => r.status === "released");
    expect(released).toHaveLength(5);
    expect(released[0]!.failureCode).toBe("claimed_elsewhere");
    expect(released[0]!.failureMessage).toMatch(/Another workspace .* verified .* first/);
    for (const r of released) expect((await domainEvents(r.id)).at(-1)).toBe("released");
    const winner = rows.find((r) => r.status === "verified")!;

    // A claim over the verified name is a 409 for everyone else, nothing stored; the released claims cannot verify again.
    const loser = racers.find((x) => x.w !== winner.workspaceId)!;
    const before = await db().domain.count({ where: { hostname: host } });
    const over = await create(
      { product_id: loser.a.productId, environment_type: "staging", hostname: host },
      loser.u.token,
      loser.w,
    );
    expect(over.status).toBe(409);
    expect(over.json).toMatchObject({ code: "conflict", reason: "domain_hostname_taken" });
    expect(over.json.detail).toContain("verified by another workspace");
    expect(await db().domain.count({ where: { hostname: host } })).toBe(before);
    const releasedOfLoser = released.find((r) => r.workspaceId === loser.w)!;
    expect(await verify(releasedOfLoser.id, loser.u.token, loser.w)).toMatchObject({
      status: 409,
      json: { reason: "domain_released" },
    });
    const read = must(
      await api("GET", `/v1/workspaces/${loser.w}/domains/${releasedOfLoser.id}`, { token: loser.u.token }),
      200,
      "released read",
    );
    expect(read).toMatchObject({ status: "released", failure: { code: "claimed_elsewhere" } });

    // The winner's records go away and its re-check fails it: the name can be claimed (and proven) again.
    dns.zone.set(`_capstan-challenge.${host}`, { TXT: ["capstan-verify=nobody"] });
    await db()
      .$executeRaw`UPDATE "domains" SET "last_checked_at" = now() - interval '2 hours' WHERE "id" = ${winner.id}`;
    await runChecks();
    expect((await db().domain.findUniqueOrThrow({ where: { id: winner.id } })).status).toBe("failed");
    must(
      await api("DELETE", `/v1/workspaces/${loser.w}/domains/${releasedOfLoser.id}`, { token: loser.u.token }),
      204,
      "delete released",
    );
    const again = must(
      await create(
        { product_id: loser.a.productId, environment_type: "staging", hostname: host },
        loser.u.token,
        loser.w,
      ),
      201,
      "claim again",
    );
    dns.zone.set(`_capstan-challenge.${host}`, { TXT: [again.verification_record.value] });
    await runChecks();
    expect((await db().domain.findUniqueOrThrow({ where: { id: again.id } })).status).toBe("verified");
    expect((await db().domain.findUniqueOrThrow({ where: { id: winner.id } })).status).toBe("released");
  }, 180_000);

  it("the plan's domain count is a 422 domain_limit_exceeded, exact under concurrency", async () => {
    const u = await makeUser();
    const w = (await makeWorkspace(u.token)).id; // free plan: 3 domains
    const a = await confirmedApp(u, w);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        create({ product_id: a.productId, environment_type: "staging", hostname: unique("limit") }, u.token, w),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 422);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.json).toMatchObject({
      code: "validation_failed",
      reason: "domain_limit_exceeded",
      limit: 3,
      plan: "free",
    });
    expect(await db().domain.count({ where: { workspaceId: w } })).toBe(3);
  }, 60_000);
});

describe("roles and workspaces", () => {
  it("developers and viewers read but cannot create, delete or verify; other workspaces see nothing", async () => {
    const d = must(
      await create({ product_id: app.productId, environment_type: "staging", hostname: unique("roles") }),
      201,
      "create",
    );
    for (const role of ["developer", "viewer"]) {
      const m = await makeUser();
      must(
        await api("PUT", `/v1/workspaces/${ws}/members/${m.userId}`, { token: owner.token, body: { role } }),
        200,
        "member",
      );
      expect((await api("GET", `/v1/workspaces/${ws}/domains/${d.id}`, { token: m.token })).status).toBe(200);
      const denied = [
        await create({ product_id: app.productId, environment_type: "staging", hostname: unique(role) }, m.token),
        await verify(d.id, m.token),
        await api("DELETE", `/v1/workspaces/${ws}/domains/${d.id}`, { token: m.token }),
      ];
      expect(
        denied.map((r) => r.status),
        role,
      ).toEqual([403, 403, 403]);
    }
    const stranger = await makeUser();
    const sw = (await makeWorkspace(stranger.token)).id;
    expect((await api("GET", `/v1/workspaces/${ws}/domains/${d.id}`, { token: stranger.token })).status).toBe(403);
    expect((await api("GET", `/v1/workspaces/${sw}/domains/${d.id}`, { token: stranger.token })).status).toBe(404);
    expect((await verify(d.id, stranger.token, sw)).status).toBe(404);
    expect((await api("DELETE", `/v1/workspaces/${sw}/domains/${d.id}`, { token: stranger.token })).status).toBe(404);
    // A product of another workspace cannot be targeted.
    const cross = await create(
      { product_id: app.productId, environment_type: "staging", hostname: unique("cross") },
      stranger.token,
      sw,
    );
    expect(cross.status).toBe(422);
    expect(cross.json.errors[0].path).toBe("/product_id");
    expect(must(await get(d.id), 200, "still there").status).toBe("pending_verification");
  }, 60_000);
});

describe("verification over DNS", () => {
  it("missing TXT fails with the reason; TXT without routing fails; both verify; removal fails it on re-check", async () => {
    const host = unique("verify");
    const d = must(
      await create({ product_id: app.productId, environment_type: "staging", hostname: host }),
      201,
      "create",
    );
    const token = d.verification_record.value.slice("capstan-verify=".length);
    await runChecks();
    let now = must(await get(d.id), 200, "after first check");
    expect(now).toMatchObject({
      status: "failed",
      check_pending: false,
      failure: { code: "verification_record_missing" },
    });
    expect(now.failure.message).toContain(`_capstan-challenge.${host}`);
    expect(now.last_checked_at).not.toBeNull();

    dns.zone.set(`_capstan-challenge.${host}`, { TXT: ["capstan-verify=someone-else"] });
    expect(must(await verify(d.id), 202, "verify").check_pending).toBe(true);
    await runChecks();
    expect(must(await get(d.id), 200, "mismatch").failure.code).toBe("verification_record_mismatch");

    dns.zone.set(`_capstan-challenge.${host}`, { TXT: ["unrelated", `capstan-verify=${token}`] });
    await ageOneHour(host);
    must(await verify(d.id), 202, "verify again");
    await runChecks();
    now = must(await get(d.id), 200, "no routing");
    expect(now).toMatchObject({ status: "failed", failure: { code: "routing_record_missing" } });
    expect(now.failure.message).toContain(TARGET);

    dns.zone.set(host, { CNAME: "elsewhere.example.net" });
    await ageOneHour(host);
    must(await verify(d.id), 202, "verify");
    await runChecks();
    expect(must(await get(d.id), 200, "wrong cname").failure.message).toContain("elsewhere.example.net");

    publish(host, token);
    await ageOneHour(host);
    must(await verify(d.id), 202, "verify");
    await runChecks();
    now = must(await get(d.id), 200, "verified");
    expect(now).toMatchObject({ status: "verified", failure: null, check_pending: false });
    expect(now.verified_at).not.toBeNull();

    // A DNS outage leaves a verified domain verified, with the failure shown.
    dns.silent.add(`_capstan-challenge.${host}`);
    await ageOneHour(host);
    await runChecks();
    now = must(await get(d.id), 200, "outage");
    expect(now).toMatchObject({ status: "verified", failure: { code: "dns_unavailable" } });
    dns.silent.delete(`_capstan-challenge.${host}`);

    // The record disappears: the periodic re-check fails the domain.
    dns.zone.delete(`_capstan-challenge.${host}`);
    await ageOneHour(host);
    await runChecks();
    now = must(await get(d.id), 200, "removed");
    expect(now).toMatchObject({
      status: "failed",
      verified_at: null,
      failure: { code: "verification_record_missing" },
    });
    expect(await domainEvents(d.id)).toEqual(["pending_verification", "failed", "verified", "failed"]);
  }, 60_000);

  it("apex: A records of Capstan's addresses verify, foreign ones do not", async () => {
    const host = `apex${Date.now().toString(36)}.example.org`;
    const d = must(
      await create({ product_id: app.productId, environment_type: "production", hostname: host }),
      201,
      "create",
    );
    const token = d.verification_record.value.slice("capstan-verify=".length);
    publish(host, token, { A: ["198.51.100.1"] });
    await runChecks();
    const bad = must(await get(d.id), 200, "foreign");
    expect(bad.failure).toMatchObject({ code: "routing_record_mismatch" });
    expect(bad.failure.message).toContain("198.51.100.1");
    publish(host, token, { A: [APEX_IP] });
    await ageOneHour(host);
    must(await verify(d.id), 202, "verify");
    await runChecks();
    expect(must(await get(d.id), 200, "ours").status).toBe("verified");
  });

  it("verify twice quickly is a 429 with Retry-After; the hostname's and workspace's hourly budgets hold", async () => {
    const host = unique("budget");
    const d = must(
      await create({ product_id: app.productId, environment_type: "staging", hostname: host }),
      201,
      "create",
    );
    must(await verify(d.id), 202, "first");
    const again = await verify(d.id);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(again.headers.get("retry-after"))).toBeLessThanOrEqual(10);
    expect(again.json).toMatchObject({ code: "rate_limited", reason: "domain_verify_too_soon" });
    // Eleven more spaced-out requests use up the hour's twelve.
    for (let i = 0; i < 11; i++) {
      await db()
        .$executeRaw`UPDATE "domain_verify_requests" SET "requested_at" = "requested_at" - interval '11 seconds' WHERE "hostname" = ${host}`;
      must(await verify(d.id), 202, `spaced ${i}`);
    }
    await db()
      .$executeRaw`UPDATE "domain_verify_requests" SET "requested_at" = "requested_at" - interval '11 seconds' WHERE "hostname" = ${host}`;
    const spent = await verify(d.id);
    expect(spent.status).toBe(429);
    expect(spent.json.reason).toBe("domain_verify_budget_exhausted");
    expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(3000);
    // Deleting and re-adding the hostname does not refill its budget.
    must(await api("DELETE", `/v1/workspaces/${ws}/domains/${d.id}`, { token: owner.token }), 204, "delete");
    const re = must(
      await create({ product_id: app.productId, environment_type: "staging", hostname: host }),
      201,
      "re-add",
    );
    expect((await verify(re.id)).status).toBe(429);
  });
});

describe("routing", () => {
  it("a verified domain's Host reaches the deployed app; unverified, deleted and unknown hosts do not", async () => {
    const dep = await deploy(owner, ws, app.revisionId, { environment_type: "staging", slot: "default" });
    expect(dep.status).toBe("active");
    const host = unique("route");
    const d = must(
      await create({ product_id: app.productId, environment_type: "staging", hostname: host }),
      201,
      "create",
    );
    // Not verified yet: a page (browsers) or a problem saying so, never the console.
    const unverified = await hit(host, "/echo");
    expect(unverified.status, "unverified").toBe(404);
    expect(JSON.parse(unverified.body)).toMatchObject({
      status: 404,
      code: "not_found",
      reason: "domain_not_verified",
    });
    const page = await hit(host, "/", "text/html");
    expect(page.status).toBe(404);
    expect(page.body).toContain("This domain is not verified yet");
    expect(page.body).not.toContain("next.js");
    expect((await tlsAsk(new Request(`http://localhost/tls/ask?domain=${host}`))).status).toBe(404);
    publish(host, d.verification_record.value.slice("capstan-verify=".length));
    await runChecks();
    expect(must(await get(d.id), 200, "verified").status).toBe("verified");
    const r = await hit(host, "/echo?x=1");
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ path: "/echo", query: "?x=1", host, forwarded_prefix: null });
    // The app's own origin: its Authorization header and every cookie reach it (next-auth's names included), and its cookies come back.
    const own = await hit(host, "/echo", "application/json", {
      authorization: "Basic YXBwOnNlY3JldA==",
      cookie: "next-auth.session-token=app-owned; theme=dark",
    });
    expect(JSON.parse(own.body)).toMatchObject({
      authorization: "Basic YXBwOnNlY3JldA==",
      cookie: "next-auth.session-token=app-owned; theme=dark",
    });
    expect((await hit(host, "/cookie")).setCookie).toEqual(["next-auth.session-token=evil; Path=/", "app=1; Path=/"]);
    // Capstan's own host route keeps stripping them.
    const srf = must(
      await api("GET", `/v1/workspaces/${ws}/surfaces/${dep.surface_id}`, { token: owner.token }),
      200,
      "surface",
    );
    const viaSurface = await hit(new URL(srf.url).host, "/echo", "application/json", {
      authorization: "Bearer capstan-token",
      cookie: "next-auth.session-token=console; theme=dark",
    });
    expect(JSON.parse(viaSurface.body)).toMatchObject({ authorization: null, cookie: "theme=dark" });
    expect((await hit(`${host.toUpperCase()}:443`, "/health")).body).toBe("ok");
    expect((await tlsAsk(new Request(`http://localhost/tls/ask?domain=${host}`))).status).toBe(200);
    expect((await tlsAsk(new Request(`http://localhost/tls/ask?domain=${unique("nope")}`))).status).toBe(404);
    expect((await tlsAsk(new Request("http://localhost/tls/ask"))).status).toBe(404);
    const unknown = await hit(unique("unknown"), "/");
    expect(unknown.status, "unknown host").toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ reason: "domain_not_found" });
    expect((await hit(unique("unknown"), "/", "text/html")).body).toContain("This domain is not connected");
    // Capstan's probes still answer on any name that is not a routed domain.
    expect((await hit(unique("unknown"), "/readyz")).status).toBe(299);

    must(await api("DELETE", `/v1/workspaces/${ws}/domains/${d.id}`, { token: owner.token }), 204, "delete");
    expect((await hit(host, "/echo")).status, "deleted").toBe(404);
    expect((await get(d.id)).status).toBe(404);
    expect(await domainEvents(d.id)).toEqual(["pending_verification", "verified", "deleted"]);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${dep.id}:stop`, { token: owner.token }), 200, "stop");
  }, 60_000);

  it("a verified domain of an environment with nothing deployed answers 503 in words", async () => {
    const host = unique("empty");
    const d = must(
      await create({ product_id: app.productId, environment_type: "production", hostname: host }),
      201,
      "create",
    );
    publish(host, d.verification_record.value.slice("capstan-verify=".length));
    await runChecks();
    const r = await hit(host, "/", "text/html");
    expect(r.status).toBe(503);
    expect(r.body).toContain("Nothing is deployed here yet");
  });
});
