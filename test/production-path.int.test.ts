import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { processDomainChecks } from "@/server/domain/domains/verification.service";
import { processReleaseWindows } from "@/server/domain/releases/release-window.service";
import { db } from "@/server/platform/db/client";
import { env, resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp, kvCapability } from "./support/bridge-fixtures";
import { HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { startDnsServer, type TDnsServer } from "./support/dns-server";
import { changeableApp, evaluate } from "./support/release-fixtures";

/**
 * The production path (issue #32 items 1-2): a release live on staging is
 * promoted to production; production invocations are admitted only with a
 * verified custom domain (a real DNS server on loopback) and refused again
 * once the re-check finds the record gone; rollback puts the previous
 * production release back. The local runner cannot enforce isolated-vm, so
 * the file runs with the operator's CAPSTAN_ALLOW_UNENFORCED_PRODUCTION.
 */
const TARGET = "edge.capstan.test";
let dns: TDnsServer;
let owner: TTestUser;
let developer: TTestUser;
let stranger: TTestUser;
let ws: string;
let strangerWs: string;

beforeAll(async () => {
  dns = await startDnsServer();
  process.env.CAPSTAN_DNS_SERVERS = dns.address;
  process.env.CAPSTAN_DNS_TIMEOUT_MS = "300";
  process.env.CAPSTAN_DOMAIN_CNAME_TARGET = TARGET;
  process.env.CAPSTAN_ALLOW_UNENFORCED_PRODUCTION = "1";
  resetEnvCache();
  await bootBridgeApp();
  [owner, developer, stranger] = await Promise.all([makeUser(), makeUser(), makeUser()]);
  ws = (await makeWorkspace(owner.token)).id;
  strangerWs = (await makeWorkspace(stranger.token)).id;
  must(
    await api("PUT", `/v1/workspaces/${ws}/members/${developer.userId}`, {
      token: owner.token,
      body: { role: "developer" },
    }),
    200,
    "member",
  );
});

afterAll(async () => {
  delete process.env.CAPSTAN_ALLOW_UNENFORCED_PRODUCTION;
  resetEnvCache();
  await dns.close();
  await runner().sweep(async () => new Set());
});

const get = (p: string, token = owner.token, w = ws) => api("GET", `/v1/workspaces/${w}${p}`, { token });
const post = (p: string, body: unknown = {}, token = owner.token, w = ws) =>
  api("POST", `/v1/workspaces/${w}${p}`, { token, body });
const audits = async (target: string) =>
  (await db().auditRecord.findMany({ where: { targetId: target }, orderBy: { seq: "asc" } })).map((a) => a.action);
const window = (endsInMs: number | null = 3_600_000) => ({
  starts_at: new Date(Date.now() - 1000).toISOString(),
  ends_at: endsInMs === null ? null : new Date(Date.now() + endsInMs).toISOString(),
});
const productionCount = () => db().deployment.count({ where: { workspaceId: ws, environmentType: "production" } });

async function runChecks(): Promise<void> {
  while ((await processDomainChecks(50)) > 0) {
    /* next batch */
  }
}

/** Deploy workers and the release-window worker until the release reaches `status` (a deadline, no fixed sleep). */
async function settle(rel: string, status: string, ms = 60_000) {
  const until = Date.now() + ms;
  for (;;) {
    await processPlannedDeployments(5);
    await processReleaseWindows();
    const r = must(await get(`/releases/${rel}`), 200, "release");
    if (r.status === status) return r;
    if (Date.now() > until) throw new Error(`release ${rel} still ${r.status} (${r.reason_code})`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** A version's release, deployed to staging and live there. */
async function liveOnStaging(productId: string, versionId: string, over: Record<string, unknown> = {}) {
  const rel = must(
    await post(
      "/releases",
      {
        product_id: productId,
        version_id: versionId,
        channel: "staged",
        audience: { kind: "custom" },
        window: window(),
        ...over,
      },
      developer.token,
    ),
    201,
    "release",
  );
  must(await post(`/releases/${rel.id}/deployments`, {}, developer.token), 202, "deploy to staging");
  return settle(rel.id, "live");
}

async function invokeOn(surfaceId: string) {
  const ses = must(
    await api("POST", "/v1/sessions", { token: owner.token, body: { surface_id: surfaceId } }),
    201,
    "session",
  );
  return must(
    await api("POST", `/v1/sessions/${ses.id}/invocations`, {
      token: owner.token,
      body: { kind: "http_request", method: "GET", path: "/hello", body_evidence: null },
    }),
    201,
    "invoke",
  ).admission;
}

describe("promotion, production admission, rollback", () => {
  let app: Awaited<ReturnType<typeof changeableApp>>;
  let r1: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  let r2: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  let prod1: any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it("promotes a release live on staging: a production deployment whose source is the release, live once active", async () => {
    app = await changeableApp(owner, ws);
    must(
      await post(`/products/${app.productId}/revisions/${app.revisionId}/descriptor:confirm`, { edits: HEALTH_EDIT }),
      200,
      "confirm",
    );
    const e = await evaluate(owner, ws, app.revisionId);
    expect(e.status).toBe("passed");
    r1 = await liveOnStaging(app.productId, e.version_id);
    expect(r1).toMatchObject({ status: "live", channel: "staged" });

    // Promotion is an owner/admin decision.
    expect((await post(`/releases/${r1.id}:promote`, {}, developer.token)).status).toBe(403);
    expect(await productionCount()).toBe(0);

    const promoted = await post(`/releases/${r1.id}:promote`);
    expect(promoted.status, promoted.text).toBe(202);
    expect(promoted.json.deployment).toMatchObject({
      environment_type: "production",
      revision_id: r1.revision_id,
      source: { kind: "release", release_id: r1.id, version_id: r1.version_id },
    });
    expect(promoted.json.release).toMatchObject({
      status: "ready",
      channel: "production",
      deployment_id: promoted.json.deployment.id,
    });
    expect(await audits(r1.id)).toEqual(["release.created", "release.promoted"]);
    // One production change at a time.
    expect(await post(`/releases/${r1.id}:promote`)).toMatchObject({
      status: 409,
      json: { reason: "release_not_live_on_staging" },
    });

    r1 = await settle(r1.id, "live");
    expect(r1).toMatchObject({ channel: "production", reason_code: null });
    expect(r1.history.map((h: { status: string }) => h.status)).toEqual(["draft", "ready", "live", "ready", "live"]);
    prod1 = must(await get(`/deployments/${r1.deployment_id}`), 200, "production deployment");
    expect(prod1).toMatchObject({ status: "active", environment_type: "production" });
  }, 180_000);

  it("production invocations: verification_blocked without a verified domain, admitted with one, refused again once the re-check fails it", async () => {
    const refused = await invokeOn(prod1.surface_id);
    expect(refused).toMatchObject({ outcome: "denied", reason: "verification_blocked" });
    expect(refused.message).toMatch(/verified custom domain.*Domains/);
    expect(refused.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`)).toEqual([
      "permission:passed",
      "policy:passed",
      "binding:passed",
      "verification:failed",
      "usage:skipped",
    ]);

    // A staging domain does not count for production.
    const host = `shop-${Date.now().toString(36)}.example.com`;
    const staging = must(
      await post("/domains", { product_id: app.productId, environment_type: "staging", hostname: `staging-${host}` }),
      201,
      "staging domain",
    );
    dns.zone.set(`_capstan-challenge.staging-${host}`, { TXT: [staging.verification_record.value] });
    dns.zone.set(`staging-${host}`, { CNAME: TARGET });
    const d = must(
      await post("/domains", { product_id: app.productId, environment_type: "production", hostname: host }),
      201,
      "domain",
    );
    await runChecks();
    const pending = await invokeOn(prod1.surface_id);
    expect(pending).toMatchObject({ outcome: "denied", reason: "verification_blocked" });
    expect(pending.message).toContain(`${host} failed its DNS check`);

    dns.zone.set(`_capstan-challenge.${host}`, { TXT: [d.verification_record.value] });
    dns.zone.set(host, { CNAME: TARGET });
    await db().domainVerifyRequest.deleteMany({ where: { hostname: host } });
    must(await post(`/domains/${d.id}/verify`), 202, "verify");
    await runChecks();
    expect(must(await get(`/domains/${d.id}`), 200, "domain").status).toBe("verified");
    expect(await invokeOn(prod1.surface_id)).toMatchObject({ outcome: "admitted", reason: "admitted" });

    // The record goes away; within one re-check interval the worker fails the domain and admission stops.
    dns.zone.delete(`_capstan-challenge.${host}`);
    await runChecks();
    expect(must(await get(`/domains/${d.id}`), 200, "not yet due").status).toBe("verified");
    const interval = env().CAPSTAN_DOMAIN_RECHECK_SECONDS;
    await db()
      .$executeRaw`UPDATE "domains" SET "last_checked_at" = "last_checked_at" - make_interval(secs => ${interval}) WHERE "id" = ${d.id}`;
    await runChecks();
    expect(must(await get(`/domains/${d.id}`), 200, "re-checked").status).toBe("failed");
    expect(await invokeOn(prod1.surface_id)).toMatchObject({ outcome: "denied", reason: "verification_blocked" });

    dns.zone.set(`_capstan-challenge.${host}`, { TXT: [d.verification_record.value] });
    await db().domainVerifyRequest.deleteMany({ where: { hostname: host } });
    must(await post(`/domains/${d.id}/verify`), 202, "verify again");
    await runChecks();
    expect(await invokeOn(prod1.surface_id)).toMatchObject({ outcome: "admitted" });
  }, 60_000);

  it("rollback with nothing before it is a 409 and changes nothing", async () => {
    const before = await productionCount();
    const r = await post(`/products/${app.productId}/releases:rollback`);
    expect(r.status).toBe(409);
    expect(r.headers.get("content-type")).toContain("application/problem+json");
    expect(r.json.reason).toBe("nothing_to_roll_back");
    expect(await productionCount()).toBe(before);
    expect(must(await get(`/releases/${r1.id}`), 200, "r1")).toMatchObject({ status: "live", channel: "production" });
  });

  it("a wider contract needs approve_widening; v2 replaces v1 in production; rollback puts v1 back without an evaluation", async () => {
    const rev2 = await app.refreeze({
      "capabilities.json": JSON.stringify({ capabilities: [kvCapability({ scope: { max_keys: 700 } })] }),
    });
    must(
      await post(`/products/${app.productId}/revisions/${rev2}/descriptor:confirm`, {
        edits: HEALTH_EDIT,
        approve_widening: true,
      }),
      200,
      "confirm",
    );
    const e = await evaluate(owner, ws, rev2);
    expect(e.status).toBe("passed");
    // On staging it widens production's live release: approved like any widening.
    const rel = must(
      await post("/releases", {
        product_id: app.productId,
        version_id: e.version_id,
        channel: "staged",
        audience: { kind: "custom" },
        window: window(),
      }),
      201,
      "release",
    );
    expect(rel.status).toBe("pending_approval");
    must(await post(`/releases/${rel.id}:approve`, { note: "more keys" }), 200, "approve");
    must(await post(`/releases/${rel.id}/deployments`, {}), 202, "deploy");
    r2 = await settle(rel.id, "live");
    // Staging and production each keep their own live release.
    expect(must(await get(`/releases/${r1.id}`), 200, "r1").status).toBe("live");

    const before = await productionCount();
    const refused = await post(`/releases/${r2.id}:promote`);
    expect(refused.status).toBe(409);
    expect(refused.json.reason).toBe("approval_required");
    expect(refused.json.detail).toContain("max_keys");
    expect(await productionCount()).toBe(before);

    const promoted = must(
      await post(`/releases/${r2.id}:promote`, { approve_widening: true, note: "checked" }),
      202,
      "promote",
    );
    expect(promoted.release.adjudication).toMatchObject({
      decision: "approve",
      note: "checked",
      decided_by: owner.userId,
    });
    r2 = await settle(r2.id, "live");
    expect(must(await get(`/releases/${r1.id}`), 200, "r1")).toMatchObject({
      status: "retired",
      reason_code: "superseded",
    });
    expect(must(await get(`/deployments/${prod1.id}`), 200, "old")).toMatchObject({ status: "superseded" });

    const evaluations = await db().evaluation.count({ where: { productId: app.productId } });
    const rolled = await post(`/products/${app.productId}/releases:rollback`);
    expect(rolled.status, rolled.text).toBe(202);
    expect(rolled.json.release).toMatchObject({
      id: r1.id,
      status: "ready",
      reason_code: "rollback",
      channel: "production",
    });
    expect(rolled.json.deployment).toMatchObject({
      environment_type: "production",
      source: { kind: "release", release_id: r1.id },
    });
    expect(await audits(r1.id)).toEqual(["release.created", "release.promoted", "release.rolled_back"]);
    const audit = await db().auditRecord.findFirst({ where: { targetId: r1.id, action: "release.rolled_back" } });
    expect(audit?.details).toMatchObject({
      from_release_id: r2.id,
      to_release_id: r1.id,
      deployment_id: rolled.json.deployment.id,
    });
    // A second rollback while the first is under way is refused.
    expect(await post(`/products/${app.productId}/releases:rollback`)).toMatchObject({
      status: 409,
      json: { reason: "production_change_in_progress" },
    });

    const back = await settle(r1.id, "live");
    expect(back.deployment_id).toBe(rolled.json.deployment.id);
    expect(must(await get(`/releases/${r2.id}`), 200, "r2")).toMatchObject({
      status: "retired",
      reason_code: "rolled_back",
      channel: "production",
    });
    expect(await db().evaluation.count({ where: { productId: app.productId } })).toBe(evaluations);
  }, 240_000);

  it("refuses to promote unqualified, staging-less, ended and other workspaces' releases: 409/404, nothing changed", async () => {
    const draft = must(
      await post("/releases", {
        product_id: app.productId,
        version_id: r1.version_id,
        channel: "staged",
        audience: { kind: "workspace" },
        window: window(),
      }),
      201,
      "draft",
    );
    const before = {
      prod: await productionCount(),
      releases: await db().release.findMany({ where: { workspaceId: ws }, orderBy: { id: "asc" } }),
    };
    const refused = async (rel: string, reason: string, w = ws, token = owner.token) => {
      const r = await post(`/releases/${rel}:promote`, {}, token, w);
      expect(r.status, r.text).toBe(409);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.json.reason).toBe(reason);
    };
    await refused(draft.id, "release_not_live_on_staging");
    await refused(r2.id, "release_not_live_on_staging"); // retired in production

    // Another workspace's release is unknown there, and its owner cannot reach ours.
    expect((await post(`/releases/${draft.id}:promote`, {}, stranger.token, strangerWs)).status).toBe(404);
    expect((await post(`/releases/${draft.id}:promote`, {}, stranger.token)).status).toBe(403);
    expect((await post(`/products/${app.productId}/releases:rollback`, {}, stranger.token, strangerWs)).status).toBe(
      404,
    );
    expect((await post(`/products/${app.productId}/releases:rollback`, {}, developer.token)).status).toBe(403);
    expect((await post(`/releases/${newId("rel")}:promote`)).status).toBe(404);
    expect((await post(`/releases/${draft.id}:promote`, { approve_widening: "yes" })).status).toBe(422);
    expect(await productionCount()).toBe(before.prod);
    expect(await db().release.findMany({ where: { workspaceId: ws }, orderBy: { id: "asc" } })).toEqual(
      before.releases,
    );
  }, 120_000);

  it("refuses a release live on staging whose version was disqualified or whose window ended", async () => {
    const other = await changeableApp(owner, ws);
    must(
      await post(`/products/${other.productId}/revisions/${other.revisionId}/descriptor:confirm`, {
        edits: HEALTH_EDIT,
      }),
      200,
      "confirm",
    );
    const e = await evaluate(owner, ws, other.revisionId);
    const live = await liveOnStaging(other.productId, e.version_id);
    const before = await productionCount();

    await db().release.update({ where: { id: live.id }, data: { endsAt: new Date(Date.now() - 1000) } });
    const ended = await post(`/releases/${live.id}:promote`);
    expect(ended).toMatchObject({ status: 409, json: { reason: "window_ended" } });
    await db().release.update({ where: { id: live.id }, data: { endsAt: new Date(Date.now() + 3_600_000) } });

    await db().evaluation.create({
      data: {
        id: newId("qual"),
        workspaceId: ws,
        productId: other.productId,
        revisionId: other.revisionId,
        requestKey: "rerun",
        status: "failed",
        verdict: "fail",
        correlationId: newId("evt"),
        createdBy: owner.userId,
        finishedAt: new Date(Date.now() + 1000),
      },
    });
    const unqualified = await post(`/releases/${live.id}:promote`);
    expect(unqualified).toMatchObject({ status: 409, json: { reason: "version_unqualified" } });
    expect(await productionCount()).toBe(before);
    expect(must(await get(`/releases/${live.id}`), 200, "live")).toMatchObject({ status: "live", channel: "staged" });
  }, 180_000);
});
