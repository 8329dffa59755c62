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
    if (!serveSurfaceNode(req, res, () => { res.writeHead(299); res.end("next.js"); })) {
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
const create = (body: Record<string, unknown>, token = owner.token, w = ws) => api("POST", `/v1/workspaces/${w}/domains`, { token, body });
const get = (id: string) => api("GET", `/v1/workspaces/${ws}/domains/${id}`, { token: owner.token });
const verify = (id: string, token = owner.token, w = ws) => api("POST", `/v1/workspaces/${w}/domains/${id}/verify`, { token });
const publish = (host: string, token: string, routing: { CNAME?: string; A?: string[] } = { CNAME: TARGET }) => {
  dns.zone.set(`_capstan-challenge.${host}`, { TXT: [`capstan-verify=${token}`] });
  dns.zone.set(host, routing);
};
/** Runs the domain worker until it finds nothing to do. */
async function runChecks(): Promise<void> {
  while ((await processDomainChecks(50)) > 0) { /* next batch */ }
}
/** A shortened clock: the budgets' and re-checks' history moves an hour into the past. */
async function ageOneHour(hostname: string): Promise<void> {
  await db().$executeRaw`UPDATE "domain_verify_requests" SET "requested_at" = "requested_at" - interval '1 hour' WHERE "hostname" = ${hostname}`;
  await db().$executeRaw`UPDATE "domains" SET "last_checked_at" = "last_checked_at" - interval '1 hour' WHERE "hostname" = ${hostname}`;
}
function hit(host: string, path: string, accept = "application/json"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, headers: { host, accept } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
const domainEvents = async (id: string) =>
  (await db().outboxEvent.findMany({ where: { subject: id, type: "domain.changed" }, orderBy: { id: "asc" } })).map((e) => (e.data as { to: string }).to);

describe("creating domains", () => {
  it("answers 201 with the records to create, normalised, and lists and reads it", async () => {
    const host = unique("shop");
    const d = must(await create({ product_id: app.productId, environment_type: "staging", hostname: `${host.toUpperCase()}.` }), 201, "create");
    expect(d).toMatchObject({
      hostname: host, apex: false, status: "pending_verification", check_pending: true, failure: null, verified_at: null,
      environment_type: "staging", product_id: app.productId, workspace_id: ws,
      verification_record: { type: "TXT", name: `_capstan-challenge.${host}` },
      routing_records: [{ type: "CNAME", name: host, value: TARGET }],
    });
    expect(d.verification_record.value).toMatch(/^capstan-verify=[0-9a-f]{32}$/);
    expect(must(await get(d.id), 200, "get")).toEqual(d);
    const list = must(await api("GET", `/v1/workspaces/${ws}/domains?product_id=${app.productId}`, { token: owner.token }), 200, "list");
    expect(list.items.map((x: { id: string }) => x.id)).toContain(d.id);
    expect(await domainEvents(d.id)).toEqual(["pending_verification"]);
  });

  it("an apex gets A records of Capstan's addresses", async () => {
    const d = must(await create({ product_id: app.productId, environment_type: "production", hostname: `apex${Date.now().toString(36)}.co.uk` }), 201, "apex");
    expect(d).toMatchObject({ apex: true, routing_records: [{ type: "A", value: APEX_IP }] });
  });

  it("refuses bad hostnames with a problem naming the field, storing nothing", async () => {
    const before = await db().domain.count({ where: { workspaceId: ws } });
    const bad = ["http://x.com", "1.2.3.4", "com", "co.uk", `${"a".repeat(300)}`, "xn--zz.com", "*.example.com", "a b.example.com", "exa_mple.com", "x.localhost", "<svg/onload=1>.com", ""];
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

  it("a hostname is held once platform-wide: case and trailing-dot twins and other workspaces get 409, also when 20 race", async () => {
    const host = unique("taken");
    must(await create({ product_id: app.productId, environment_type: "staging", hostname: host }), 201, "first");
    for (const twin of [host.toUpperCase(), `${host}.`]) {
      const r = await create({ product_id: app.productId, environment_type: "production", hostname: twin });
      expect(r.status, twin).toBe(409);
      expect(r.json).toMatchObject({ code: "conflict", reason: "domain_hostname_taken" });
    }
    const racers: Array<{ u: TTestUser; w: string; a: { productId: string } }> = [];
    for (let i = 0; i < 20; i++) {
      const u = await makeUser();
      const w = (await makeWorkspace(u.token)).id;
      racers.push({ u, w, a: await confirmedApp(u, w) });
    }
    const contested = unique("race");
    const results = await Promise.all(racers.map(({ u, w, a }) => create({ product_id: a.productId, environment_type: "staging", hostname: contested }, u.token, w)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.json.reason === "domain_hostname_taken")).toHaveLength(19);
    expect(await db().domain.count({ where: { hostname: contested } })).toBe(1);
    // And the one held by the first workspace is refused to everyone else too.
    const other = racers[0]!;
    expect((await create({ product_id: other.a.productId, environment_type: "staging", hostname: host }, other.u.token, other.w)).status).toBe(409);
  }, 120_000);

  it("the plan's domain count is a 422 domain_limit_exceeded, exact under concurrency", async () => {
    const u = await makeUser();
    const w = (await makeWorkspace(u.token)).id; // free plan: 3 domains
    const a = await confirmedApp(u, w);
    const results = await Promise.all(Array.from({ length: 6 }, () => create({ product_id: a.productId, environment_type: "staging", hostname: unique("limit") }, u.token, w)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 422);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.json).toMatchObject({ code: "validation_failed", reason: "domain_limit_exceeded", limit: 3, plan: "free" });
    expect(await db().domain.count({ where: { workspaceId: w } })).toBe(3);
  }, 60_000);
});

describe("roles and workspaces", () => {
  it("developers and viewers read but cannot create, delete or verify; other workspaces see nothing", async () => {
    const d = must(await create({ product_id: app.productId, environment_type: "staging", hostname: unique("roles") }), 201, "create");
    for (const role of ["developer", "viewer"]) {
      const m = await makeUser();
      must(await api("PUT", `/v1/workspaces/${ws}/members/${m.userId}`, { token: owner.token, body: { role } }), 200, "member");
      expect((await api("GET", `/v1/workspaces/${ws}/domains/${d.id}`, { token: m.token })).status).toBe(200);
      const denied = [
        await create({ product_id: app.productId, environment_type: "staging", hostname: unique(role) }, m.token),
        await verify(d.id, m.token),
        await api("DELETE", `/v1/workspaces/${ws}/domains/${d.id}`, { token: m.token }),
      ];
      expect(denied.map((r) => r.status), role).toEqual([403, 403, 403]);
    }
    const stranger = await makeUser();
    const sw = (await makeWorkspace(stranger.token)).id;
    expect((await api("GET", `/v1/workspaces/${ws}/domains/${d.id}`, { token: stranger.token })).status).toBe(403);
    expect((await api("GET", `/v1/workspaces/${sw}/domains/${d.id}`, { token: stranger.token })).status).toBe(404);
    expect((await verify(d.id, stranger.token, sw)).status).toBe(404);
    expect((await api("DELETE", `/v1/workspaces/${sw}/domains/${d.id}`, { token: stranger.token })).status).toBe(404);
    // A product of another workspace cannot be targeted.
    const cross = await create({ product_id: app.productId, environment_type: "staging", hostname: unique("cross") }, stranger.token, sw);
    expect(cross.status).toBe(422);
    expect(cross.json.errors[0].path).toBe("/product_id");
    expect(must(await get(d.id), 200, "still there").status).toBe("pending_verification");
  }, 60_000);
});

describe("verification over DNS", () => {
  it("missing TXT fails with the reason; TXT without routing fails; both verify; removal fails it on re-check", async () => {
    const host = unique("verify");
    const d = must(await create({ product_id: app.productId, environment_type: "staging", hostname: host }), 201, "create");
    const token = d.verification_record.value.slice("capstan-verify=".length);
    await runChecks();
    let now = must(await get(d.id), 200, "after first check");
    expect(now).toMatchObject({ status: "failed", check_pending: false, failure: { code: "verification_record_missing" } });
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
    expect(now).toMatchObject({ status: "failed", verified_at: null, failure: { code: "verification_record_missing" } });
    expect(await domainEvents(d.id)).toEqual(["pending_verification", "failed", "verified", "failed"]);
  }, 60_000);

  it("apex: A records of Capstan's addresses verify, foreign ones do not", async () => {
    const host = `apex${Date.now().toString(36)}.example.org`;
    const d = must(await create({ product_id: app.productId, environment_type: "production", hostname: host }), 201, "create");
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
    const d = must(await create({ product_id: app.productId, environment_type: "staging", hostname: host }), 201, "create");
    must(await verify(d.id), 202, "first");
    const again = await verify(d.id);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(again.headers.get("retry-after"))).toBeLessThanOrEqual(10);
    expect(again.json).toMatchObject({ code: "rate_limited", reason: "domain_verify_too_soon" });
    // Eleven more spaced-out requests use up the hour's twelve.
    for (let i = 0; i < 11; i++) {
      await db().$executeRaw`UPDATE "domain_verify_requests" SET "requested_at" = "requested_at" - interval '11 seconds' WHERE "hostname" = ${host}`;
      must(await verify(d.id), 202, `spaced ${i}`);
    }
    await db().$executeRaw`UPDATE "domain_verify_requests" SET "requested_at" = "requested_at" - interval '11 seconds' WHERE "hostname" = ${host}`;
    const spent = await verify(d.id);
    expect(spent.status).toBe(429);
    expect(spent.json.reason).toBe("domain_verify_budget_exhausted");
    expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(3000);
    // Deleting and re-adding the hostname does not refill its budget.
    must(await api("DELETE", `/v1/workspaces/${ws}/domains/${d.id}`, { token: owner.token }), 204, "delete");
    const re = must(await create({ product_id: app.productId, environment_type: "staging", hostname: host }), 201, "re-add");
    expect((await verify(re.id)).status).toBe(429);
  });
});

describe("routing", () => {
  it("a verified domain's Host reaches the deployed app; unverified, deleted and unknown hosts do not", async () => {
    const dep = await deploy(owner, ws, app.revisionId, { environment_type: "staging", slot: "default" });
    expect(dep.status).toBe("active");
    const host = unique("route");
    const d = must(await create({ product_id: app.productId, environment_type: "staging", hostname: host }), 201, "create");
    expect((await hit(host, "/echo")).status, "unverified").toBe(299);
    expect((await tlsAsk(new Request(`http://localhost/tls/ask?domain=${host}`))).status).toBe(404);
    publish(host, d.verification_record.value.slice("capstan-verify=".length));
    await runChecks();
    expect(must(await get(d.id), 200, "verified").status).toBe("verified");
    const r = await hit(host, "/echo?x=1");
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ path: "/echo", query: "?x=1", host, forwarded_prefix: null });
    expect((await hit(`${host.toUpperCase()}:443`, "/health")).body).toBe("ok");
    expect((await tlsAsk(new Request(`http://localhost/tls/ask?domain=${host}`))).status).toBe(200);
    expect((await tlsAsk(new Request(`http://localhost/tls/ask?domain=${unique("nope")}`))).status).toBe(404);
    expect((await tlsAsk(new Request("http://localhost/tls/ask"))).status).toBe(404);
    expect((await hit(unique("unknown"), "/")).status, "unknown host").toBe(299);

    must(await api("DELETE", `/v1/workspaces/${ws}/domains/${d.id}`, { token: owner.token }), 204, "delete");
    expect((await hit(host, "/echo")).status, "deleted").toBe(299);
    expect((await get(d.id)).status).toBe(404);
    expect(await domainEvents(d.id)).toEqual(["pending_verification", "verified", "deleted"]);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${dep.id}:stop`, { token: owner.token }), 200, "stop");
  }, 60_000);

  it("a verified domain of an environment with nothing deployed answers 503 in words", async () => {
    const host = unique("empty");
    const d = must(await create({ product_id: app.productId, environment_type: "production", hostname: host }), 201, "create");
    publish(host, d.verification_record.value.slice("capstan-verify=".length));
    await runChecks();
    const r = await hit(host, "/", "text/html");
    expect(r.status).toBe(503);
    expect(r.body).toContain("Nothing is deployed here yet");
  });
});
