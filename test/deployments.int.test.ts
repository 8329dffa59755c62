import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { fireDueDeadlines } from "@/server/domain/deployments/surfaces.service";
import { handleSurfaceRequest } from "./support/handlers";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { isAlive } from "@/server/runtime/process-table";
import { runner, type TRuntimeState } from "@/server/runtime";
import { DEFAULT_PLAN_LIMITS } from "@/server/runtime/limits";
import { resetHostProbe } from "@/server/runtime/sandbox";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, freezeApp, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * Deployments against a real small Node app (test/fixtures/hosted-app.js)
 * frozen through the real intake, run by the real local runner (bubblewrap
 * where the host has it), reached through the real surface route.
 */
let owner: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };
/** What this host enforces (gVisor where runsc works: enforced; else bubblewrap or none: not). */
let enforced: boolean;

beforeAll(async () => {
  await bootBridgeApp();
  enforced = (await runner().isolation(DEFAULT_PLAN_LIMITS.free)).enforced;
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
});

afterAll(async () => {
  // Nothing this file started may outlive it.
  await runner().sweep(async () => new Set());
});

const viaPath = (srf: string, path: string, init: RequestInit = {}) =>
  handleSurfaceRequest(new Request(`http://localhost:3000/s/${srf}${path}`, init), srf);
const viaHost = (srf: string, path: string, init: RequestInit = {}) =>
  handleSurfaceRequest(
    new Request(`http://localhost:3000/s/${srf}${path}`, {
      ...init,
      headers: { ...init.headers, host: `srf-${srf.slice(4)}.localhost:3000` },
    }),
    null,
  );
const runtimeOf = async (id: string) =>
  (await db().deployment.findUniqueOrThrow({ where: { id } })).runtime as TRuntimeState;
const audits = async (target: string) =>
  (await db().auditRecord.findMany({ where: { targetId: target }, orderBy: { seq: "asc" } })).map((a) => a.action);
const get = (path: string, token = owner.token) => api("GET", `/v1/workspaces/${ws}${path}`, { token });
const stop = (dep: string, token = owner.token) =>
  api("POST", `/v1/workspaces/${ws}/deployments/${dep}:stop`, { token });

describe("a preview deployment", () => {
  let dep: any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it("runs the app, gives it a surface on both routes and records every step", async () => {
    dep = await deploy(owner, ws, app.revisionId);
    expect(dep.status, JSON.stringify(dep.findings)).toBe("active");
    expect(dep).toMatchObject({
      environment_type: "preview",
      slot: "default",
      required_isolation_profile: "isolated-vm",
      egress: "deny",
      isolation: { profile: "isolated-vm", enforced },
      superseded_deployment_id: null,
      source: { kind: "revision" },
    });
    expect(dep.health.attempts).toBeGreaterThanOrEqual(1);
    expect(dep.endpoint.address).toMatch(/^unix:.*ingress\.sock$/);
    if (enforced) expect(dep.findings.map((f: { code: string }) => f.code)).not.toContain("isolation_unenforced");
    else expect(dep.findings.map((f: { code: string }) => f.code)).toContain("isolation_unenforced");
    expect(dep.evidence.build_log.uri).toMatch(/^blob:sha256:/);
    expect(dep.evidence.health_attempts.size_bytes).toBeGreaterThan(0);

    const surface = must(await get(`/surfaces/${dep.surface_id}`), 200, "surface");
    expect(surface).toMatchObject({
      status: "active",
      surface_type: "web",
      identity_requirement: "none",
      access_policy: "preview_direct",
      deployment_id: dep.id,
      environment_type: "preview",
      url: `http://srf-${dep.surface_id.slice(4)}.localhost:3000/`,
      route: { host: `srf-${dep.surface_id.slice(4)}.localhost`, path: "/" },
      reachability: { status_code: 200 },
    });
    expect(surface.deadline_id).toMatch(/^ddl_/);
    const ttl = Date.parse(surface.expires_at) - Date.parse(surface.created_at);
    expect(Math.abs(ttl - 7 * 86_400_000)).toBeLessThan(60_000);

    const byPath = await viaPath(dep.surface_id, "/hello?x=1");
    expect(byPath.status).toBe(200);
    expect(await byPath.text()).toBe("hello from the app at /hello");
    // The path route shares Capstan's origin: the app's documents get an opaque origin.
    expect(byPath.headers.get("content-security-policy")).toMatch(/^sandbox /);
    const byHost = await viaHost(dep.surface_id, "/there");
    expect(await byHost.text()).toBe("hello from the app at /there");
    expect(byHost.headers.get("content-security-policy")).toBeNull();

    const run = must(await get(`/pipeline-runs/${dep.pipeline_run_id}`), 200, "pipeline run");
    expect(run).toMatchObject({
      intent: "preview",
      status: "completed",
      revision_id: app.revisionId,
      product_id: app.productId,
      deployment_id: dep.id,
    });
    const steps = await db().outboxEvent.findMany({
      where: { subject: dep.pipeline_run_id },
      orderBy: { createdAt: "asc" },
    });
    expect(steps.map((e) => (e.data as { to: string }).to)).toEqual([
      "pending_snapshot",
      "authorization_requested",
      "admitted",
      "requested",
      "reported",
      "completed",
    ]);
    expect(await audits(dep.id)).toEqual(
      enforced
        ? ["deployment.requested", "deployment.ready"]
        : ["deployment.requested", "isolation.unenforced_run", "deployment.ready"],
    );
  });

  it("lets the app call data.kv through its Bridge socket, under the deployed revision's contract", async () => {
    const one = await (await viaPath(dep.surface_id, "/hits")).json();
    const two = await (await viaPath(dep.surface_id, "/hits")).json();
    expect(one).toMatchObject({ bridge_status: 200, value: 1 });
    expect(two).toMatchObject({ bridge_status: 200, value: 2 });
    const outside = await (await viaPath(dep.surface_id, "/outside")).json();
    expect(outside).toEqual({ bridge_status: 403, reason: "outside_contract" });
    const calls = must(await get(`/capability-invocations?product_id=${app.productId}`), 200, "invocations").items;
    expect(calls.length).toBe(3);
    for (const c of calls)
      expect(c).toMatchObject({ deployment_id: dep.id, service_identity_id: null, revision_id: app.revisionId });
  });

  it("gives the app PORT, NODE_ENV and the Bridge URL but none of Capstan's environment, and no network when sandboxed", async () => {
    const env = await (await viaPath(dep.surface_id, "/env")).json();
    expect(env.keys).toEqual(
      expect.arrayContaining(["CAPSTAN_BRIDGE_URL", "CAPSTAN_DEPLOYMENT_ID", "HOME", "NODE_ENV", "PATH", "PORT"]),
    );
    // Whatever else is there was added by npm (it runs the start script), never inherited from Capstan.
    const others = env.keys.filter(
      (k: string) => !["CAPSTAN_BRIDGE_URL", "CAPSTAN_DEPLOYMENT_ID", "HOME", "NODE_ENV", "PATH", "PORT"].includes(k),
    );
    for (const k of others) expect(k, k).toMatch(/^(npm_|INIT_CWD$|NODE$|COLOR$|EDITOR$|SHELL$|PWD$)/);
    expect(env.keys).not.toContain("DATABASE_URL");
    expect(env.keys).not.toContain("CAPSTAN_MASTER_KEY");
    expect(env.node_env).toBe("production");
    const isolation = (await db().deployment.findUniqueOrThrow({ where: { id: dep.id } })).isolation as {
      sandbox: string;
    };
    const net = await (await viaPath(dep.surface_id, "/net")).json();
    if (isolation.sandbox !== "none") expect(net.network).toBe("blocked");
    else expect(dep.findings.map((f: { code: string }) => f.code)).toContain("sandbox_unavailable");
  });

  it("never forwards Capstan's credentials to the app, nor lets it set Capstan's cookies", async () => {
    const echo = await viaPath(dep.surface_id, "/echo", {
      method: "POST",
      body: "payload",
      headers: {
        authorization: "Bearer capstan-token",
        cookie: "next-auth.session-token=secret; theme=dark; __Secure-next-auth.callback-url=x",
      },
    });
    expect(await echo.json()).toMatchObject({
      method: "POST",
      body: "payload",
      authorization: null,
      cookie: "theme=dark",
      forwarded_prefix: `/s/${dep.surface_id}`,
    });
    const cookies = (await viaPath(dep.surface_id, "/cookie")).headers.getSetCookie();
    expect(cookies).toEqual(["app=1; Path=/"]);
  });

  it("stops: the process group, socket and directory are gone, the surface answers 410", async () => {
    const state = await runtimeOf(dep.id);
    expect(await isAlive(state.pid, state.start_time)).toBe(true);
    const stopped = must(await stop(dep.id), 200, "stop");
    expect(stopped).toMatchObject({ status: "superseded", reason_code: "stopped" });
    expect(stopped.stopped_at).not.toBeNull();
    expect(await isAlive(state.pid, state.start_time)).toBe(false);
    expect(existsSync(state.dir)).toBe(false);
    const gone = await viaPath(dep.surface_id, "/hello");
    expect(gone.status).toBe(410);
    expect(gone.headers.get("content-type")).toBe("application/problem+json");
    // The body agrees with the response (it once said 400 "Bad request" on a 410).
    expect(await gone.json()).toMatchObject({
      status: 410,
      title: "Gone",
      code: "not_found",
      reason: "deployment_stopped",
    });
    const html = await viaPath(dep.surface_id, "/hello", { headers: { accept: "text/html" } });
    expect(html.status).toBe(410);
    expect(await html.text()).toContain("This surface is gone");
    expect(must(await get(`/surfaces/${dep.surface_id}`), 200, "surface")).toMatchObject({
      status: "expired",
      reason_code: "deployment_stopped",
    });
    expect(await audits(dep.id)).toContain("deployment.stopped");
    const again = await stop(dep.id);
    expect(again.status).toBe(409);
    expect(again.json.reason).toBe("deployment_not_running");
  });
});

describe("environments and slots", () => {
  it("a newer deployment supersedes the active one of the same environment and slot, not of another slot", async () => {
    const first = await deploy(owner, ws, app.revisionId, { environment_type: "staging" });
    const other = await deploy(owner, ws, app.revisionId, { environment_type: "staging", slot: "blue" });
    const second = await deploy(owner, ws, app.revisionId, { environment_type: "staging" });
    expect([first.status, other.status, second.status]).toEqual(["active", "active", "active"]);
    expect(second.superseded_deployment_id).toBe(first.id);
    expect(second.environment_id).toBe(first.environment_id);
    expect(other.environment_id).not.toBe(first.environment_id);
    const old = must(await get(`/deployments/${first.id}`), 200, "old");
    expect(old).toMatchObject({ status: "superseded", reason_code: "superseded" });
    expect((await viaPath(first.surface_id, "/")).status).toBe(410);
    expect((await viaPath(other.surface_id, "/")).status).toBe(200);
    expect((await viaPath(second.surface_id, "/")).status).toBe(200);
    expect(second.pipeline_run_id).toBeUndefined();
    const active = must(await get(`/deployments?product_id=${app.productId}&status=active`), 200, "list").items.map(
      (d: { id: string }) => d.id,
    );
    expect(active.sort()).toEqual([other.id, second.id].sort());
    for (const d of [other, second]) must(await stop(d.id), 200, "stop");
  });

  it("lists by revision, paginates, and lists surfaces", async () => {
    const page = must(await get(`/deployments?revision_id=${app.revisionId}&limit=2`), 200, "page");
    expect(page.items).toHaveLength(2);
    const next = must(
      await get(`/deployments?revision_id=${app.revisionId}&limit=2&cursor=${page.next_cursor}`),
      200,
      "next",
    );
    expect(next.items.map((d: { id: string }) => d.id)).not.toContain(page.items[0].id);
    expect(
      must(await get(`/deployments?release_id=rel_01jh0000000000000000000000`), 200, "release filter").items,
    ).toEqual([]);
    const surfaces = must(await get(`/surfaces?limit=200`), 200, "surfaces").items;
    expect(surfaces.length).toBeGreaterThanOrEqual(4);
  });
});

describe("production and isolation", () => {
  it("follows the boundary: active with enforced: true and no override under gVisor, else blocked with an isolation.blocked audit", async () => {
    const r = await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
      token: owner.token,
      body: { environment_type: "production" },
    });
    expect(r.status).toBe(202);
    expect(process.env.CAPSTAN_ALLOW_UNENFORCED_PRODUCTION).toBeUndefined();
    if (enforced) {
      expect(r.json).toMatchObject({
        status: "planned",
        isolation: { enforced: true, mechanism: "gvisor", kernel_boundary: true },
      });
      expect(await processPlannedDeployments(5)).toBe(1);
      const d = must(await get(`/deployments/${r.json.id}`), 200, "dep");
      expect(d).toMatchObject({
        status: "active",
        environment_type: "production",
        isolation: { enforced: true, mechanism: "gvisor" },
      });
      expect(d.findings.map((f: { code: string }) => f.code)).not.toContain("isolation_unenforced");
      expect(await audits(d.id)).toEqual(["deployment.requested", "deployment.ready"]);
      must(await stop(d.id), 200, "stop");
      return;
    }
    expect(r.json).toMatchObject({
      status: "blocked",
      reason_code: "isolation_unenforced",
      isolation: { enforced: false },
    });
    expect(r.json.findings[0]).toMatchObject({ kind: "isolation", severity: "error", code: "isolation_unenforced" });
    expect(r.json.findings[0].message).toMatch(/CAPSTAN_ALLOW_UNENFORCED_PRODUCTION/);
    expect(await audits(r.json.id)).toEqual(["deployment.requested", "isolation.blocked"]);
    expect(await processPlannedDeployments(5)).toBe(0);
    expect((await stop(r.json.id)).status).toBe(409);
  });

  it("without an enforced sandbox (bubblewrap) production is blocked, and runs when the operator allows unenforced production", async () => {
    process.env.CAPSTAN_RUNNER_SANDBOX = "bubblewrap";
    resetEnvCache();
    resetHostProbe();
    try {
      const blocked = await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
        token: owner.token,
        body: { environment_type: "production", slot: "bw" },
      });
      expect(blocked.json).toMatchObject({
        status: "blocked",
        reason_code: "isolation_unenforced",
        isolation: { enforced: false, mechanism: "bubblewrap", kernel_boundary: false },
      });
      expect(await audits(blocked.json.id)).toEqual(["deployment.requested", "isolation.blocked"]);
      process.env.CAPSTAN_ALLOW_UNENFORCED_PRODUCTION = "1";
      resetEnvCache();
      const d = await deploy(owner, ws, app.revisionId, { environment_type: "production", slot: "bw" });
      expect(d.status).toBe("active");
      expect(d.isolation).toMatchObject({ enforced: false, mechanism: "bubblewrap" });
      expect(await audits(d.id)).toEqual(["deployment.requested", "isolation.unenforced_run", "deployment.ready"]);
      must(await stop(d.id), 200, "stop");
    } finally {
      delete process.env.CAPSTAN_ALLOW_UNENFORCED_PRODUCTION;
      delete process.env.CAPSTAN_RUNNER_SANDBOX;
      resetEnvCache();
      resetHostProbe();
    }
  });
});

describe("failures end with readable findings", () => {
  it("a failing build", async () => {
    const broken = await confirmedApp(
      owner,
      ws,
      { scripts: { build: "node -e \"console.error('type error in src/app.ts'); process.exit(2)\"" } },
      HEALTH_EDIT,
    );
    const d = await deploy(owner, ws, broken.revisionId);
    expect(d).toMatchObject({ status: "failed", reason_code: "build_failed" });
    const f = d.findings.find((x: { code: string }) => x.code === "build_failed");
    expect(f.message).toMatch(/The build step `npm run build` exited with code 2/);
    expect(f.message).toContain("type error in src/app.ts");
    expect(f.message).not.toMatch(/at .*\.ts:\d+/); // a finding, not a stack trace
    expect(must(await get(`/pipeline-runs/${d.pipeline_run_id}`), 200, "run")).toMatchObject({
      status: "failed",
      reason_code: "build_failed",
    });
    expect(d.surface_id).toBeUndefined();
    const logs = must(await get(`/deployments/${d.id}/logs`), 200, "logs");
    expect(logs.build_log).toContain("type error in src/app.ts");
    expect(existsSync(`${runner().hostId.split(":").slice(1).join(":")}/${d.id}`)).toBe(false);
  });

  it("a health check that never passes", async () => {
    const sick = await confirmedApp(owner, ws, {}, { build_plan: { health: { path: "/missing" } } });
    const d = await deploy(owner, ws, sick.revisionId);
    expect(d).toMatchObject({ status: "failed", reason_code: "health_check_failed" });
    expect(d.health.attempts).toBeGreaterThan(1);
    expect(d.findings.find((x: { code: string }) => x.code === "health_check_failed").message).toMatch(
      /\/missing did not answer 2xx\/3xx within \d+ ms .*the last answered 404/,
    );
  });

  it("a start command that exits at once", async () => {
    const dead = await confirmedApp(
      owner,
      ws,
      { scripts: { start: "node -e \"console.error('missing config'); process.exit(1)\"" } },
      HEALTH_EDIT,
    );
    const d = await deploy(owner, ws, dead.revisionId);
    expect(d).toMatchObject({ status: "failed", reason_code: "start_exited" });
    expect(d.findings.find((x: { code: string }) => x.code === "start_exited").message).toContain("missing config");
    // The ended app's log is kept in the blob store (a segment) after its directory is gone.
    const logs = must(await get(`/deployments/${d.id}/logs`), 200, "logs");
    expect(logs).toMatchObject({ live: false, run_log_start: 0 });
    expect(logs.run_log).toContain("missing config");
    expect(await db().deploymentLogSegment.count({ where: { deploymentId: d.id } })).toBeGreaterThan(0);
    expect(logs.build_steps.find((s: { name: string }) => s.name === "start")).toMatchObject({ status: "failed" });
  });

  it("a start command with shell syntax is refused before anything runs", async () => {
    const shelly = await confirmedApp(
      owner,
      ws,
      {},
      { ...HEALTH_EDIT, build_plan: { ...HEALTH_EDIT.build_plan, start: { command: "node server.js && rm -rf /" } } },
    );
    const d = await deploy(owner, ws, shelly.revisionId);
    expect(d).toMatchObject({ status: "failed", reason_code: "command_invalid" });
    expect(d.findings.find((x: { code: string }) => x.code === "command_invalid").message).toMatch(/shell syntax/);
  });
});

describe("expiry", () => {
  it("expires the surface at its deadline and stops the deployment, freeing its process and directory", async () => {
    process.env.CAPSTAN_SURFACE_TTL_PREVIEW_SECONDS = "1";
    resetEnvCache();
    let d: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      d = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "short" });
    } finally {
      delete process.env.CAPSTAN_SURFACE_TTL_PREVIEW_SECONDS;
      resetEnvCache();
    }
    expect(d.status).toBe("active");
    const state = await runtimeOf(d.id);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await fireDueDeadlines()) === 0) await new Promise((r) => setTimeout(r, 50));
    expect(must(await get(`/deployments/${d.id}`), 200, "dep")).toMatchObject({
      status: "superseded",
      reason_code: "expired",
    });
    expect(must(await get(`/surfaces/${d.surface_id}`), 200, "srf")).toMatchObject({
      status: "expired",
      reason_code: "deployment_expired",
    });
    expect((await viaPath(d.surface_id, "/")).status).toBe(410);
    expect(await isAlive(state.pid, state.start_time)).toBe(false);
    expect(existsSync(state.dir)).toBe(false);
    expect(await audits(d.id)).toContain("deployment.stopped");
    expect(
      (
        await db().deadline.findUniqueOrThrow({
          where: { id: (await db().surface.findUniqueOrThrow({ where: { id: d.surface_id } })).deadlineId },
        })
      ).status,
    ).toBe("fired");
  });
});

describe("bad input changes nothing", () => {
  const count = () => db().deployment.count();

  it("refuses unknown environment types, bad slots and unknown fields with 422", async () => {
    const before = await count();
    for (const body of [
      { environment_type: "qa" },
      { environment_type: "preview", slot: "Has Spaces" },
      { environment_type: "preview", slot: "x".repeat(64) },
      {},
      { environment_type: "preview", extra: 1 },
    ]) {
      const r = await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
        token: owner.token,
        body,
      });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(await count()).toBe(before);
  });

  it("refuses a revision whose descriptor is unconfirmed or whose contract was rejected (409 naming why)", async () => {
    const before = await count();
    const unconfirmed = await freezeApp(owner, ws);
    const r1 = await api("POST", `/v1/workspaces/${ws}/revisions/${unconfirmed.revisionId}/deployments`, {
      token: owner.token,
      body: { environment_type: "preview" },
    });
    expect(r1.status).toBe(409);
    expect(r1.json.reason).toBe("descriptor_unconfirmed");
    const rejected = await confirmedApp(owner, ws, { capabilities: [{ id: "teleport.now" } as never] });
    const r2 = await api("POST", `/v1/workspaces/${ws}/revisions/${rejected.revisionId}/deployments`, {
      token: owner.token,
      body: { environment_type: "preview" },
    });
    expect(r2.status).toBe(409);
    expect(r2.json.reason).toBe("contract_rejected");
    expect(r2.json.detail).toMatch(/unknown_capability/);
    expect(await count()).toBe(before);
  });

  it("hides other workspaces' resources (404) and refuses viewers (403)", async () => {
    const stranger = await makeUser();
    const theirs = (await makeWorkspace(stranger.token)).id;
    const before = await count();
    const cross = await api("POST", `/v1/workspaces/${theirs}/revisions/${app.revisionId}/deployments`, {
      token: stranger.token,
      body: { environment_type: "preview" },
    });
    expect(cross.status).toBe(404);
    const mine = await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
      token: stranger.token,
      body: { environment_type: "preview" },
    });
    expect(mine.status).toBe(403);
    const some = (await db().deployment.findFirstOrThrow({ where: { workspaceId: ws } })).id;
    expect((await api("GET", `/v1/workspaces/${theirs}/deployments/${some}`, { token: stranger.token })).status).toBe(
      404,
    );
    expect(
      (await api("POST", `/v1/workspaces/${theirs}/deployments/${some}:stop`, { token: stranger.token })).status,
    ).toBe(404);
    const srf = (await db().surface.findFirstOrThrow({ where: { workspaceId: ws } })).id;
    expect((await api("GET", `/v1/workspaces/${theirs}/surfaces/${srf}`, { token: stranger.token })).status).toBe(404);
    expect(
      must(await api("GET", `/v1/workspaces/${theirs}/deployments`, { token: stranger.token }), 200, "list").items,
    ).toEqual([]);
    expect(
      must(await api("GET", `/v1/workspaces/${theirs}/surfaces`, { token: stranger.token }), 200, "list").items,
    ).toEqual([]);
    expect(await count()).toBe(before);
  });

  it("answers unknown surfaces with 404 and malformed ids without touching the database", async () => {
    expect((await viaPath("srf_01jh0000000000000000000000", "/")).status).toBe(404);
    const hostile = await handleSurfaceRequest(
      new Request("http://localhost:3000/s/..%2F..%2Fetc/passwd"),
      "..%2F..%2Fetc",
    );
    expect(hostile.status).toBe(404);
  });
});
