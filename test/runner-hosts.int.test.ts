import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { reconcileRunner } from "@/server/domain/deployments/reconcile.service";
import { lapseRunnerHosts } from "@/server/domain/deployments/host-lapse.service";
import { notePlacementWaits } from "@/server/domain/runners/capacity.service";
import { heartbeat, listRunnerHosts, localHostId } from "@/server/domain/runners/runner-hosts.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { isAlive } from "@/server/runtime/process-table";
import { runner, type TRuntimeState } from "@/server/runtime";
import { gatewayKey, startGateway } from "@/server/runtime/runner-gateway";
import { RemoteRunnerOps } from "@/server/runtime/remote-runner";
import { forgetSurface } from "@/server/domain/deployments/surface-cache";
import { handleSurfaceRequest } from "./support/handlers";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * Runner hosts (issue #23 part 2) in one process: this test process is a
 * runner host (it places deployments); other hosts are rows whose leases the
 * test controls. Placement goes to the least loaded live host with room; a
 * host whose lease lapses is lost and its deployments fail with
 * `runner_host_lost` exactly once, however many workers look; the gateway
 * serves an app and the runner operations to holders of the key only.
 */
let owner: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };
const fakeHost = (name: string) => `fake-${name}-${Math.random().toString(36).slice(2, 8)}:/nowhere`;

async function addHost(id: string, leaseMs: number, capacity = 5): Promise<void> {
  await db().runnerHost.create({
    data: { id, endpoint: "http://127.0.0.1:9", capacity, leaseExpiresAt: new Date(Date.now() + leaseMs) },
  });
}
const get = (p: string) => api("GET", `/v1/workspaces/${ws}${p}`, { token: owner.token });
const plan = (slot: string) =>
  api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
    token: owner.token,
    body: { environment_type: "preview", slot },
  });
const viaPath = (srf: string, p: string) =>
  handleSurfaceRequest(new Request(`http://localhost:3000/s/${srf}${p}`), srf);

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

describe("placement and lost hosts", () => {
  it("places on the least loaded live host; a lapsed host's deployments fail once and new ones go elsewhere", async () => {
    const idle = fakeHost("idle");
    await addHost(idle, 60_000);
    // Equal load (0 and 0): this host takes it and records itself.
    const d1 = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "one" });
    expect(d1.status).toBe("active");
    const row1 = await db().deployment.findUniqueOrThrow({ where: { id: d1.id } });
    expect(row1.runnerHost).toBe(localHostId());
    const hosts = await listRunnerHosts();
    expect(hosts.find((h) => h.id === localHostId())).toMatchObject({ state: "live", load: 1 });
    expect(hosts.find((h) => h.id === idle)).toMatchObject({ state: "live", load: 0 });

    // Now this host is busier than the idle one: it leaves the next deployment to it.
    const d2 = must(await plan("two"), 202, "plan two");
    expect(await processPlannedDeployments(5)).toBe(0);
    expect(must(await get(`/deployments/${d2.id}`), 200, "d2").status).toBe("planned");

    // d1 is recorded on the idle host, whose lease then lapses.
    await db().deployment.update({ where: { id: d1.id }, data: { runnerHost: idle } });
    await db().runnerHost.update({ where: { id: idle }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });
    // Two workers look at once: the host is declared lost once, the deployment fails once and is placed again once.
    const [a, b] = await Promise.all([lapseRunnerHosts(), lapseRunnerHosts()]);
    expect([...a.lost, ...b.lost]).toEqual([idle]);
    expect([...a.failed, ...b.failed]).toEqual([d1.id]);
    const [rep] = [...a.replacements, ...b.replacements];
    expect([...a.replacements, ...b.replacements]).toHaveLength(1);
    const lost = must(await get(`/deployments/${d1.id}`), 200, "d1");
    expect(lost).toMatchObject({ status: "failed", reason_code: "runner_host_lost" });
    const finding = lost.findings.find((f: { code: string }) => f.code === "runner_host_lost").message;
    expect(finding).toContain(idle);
    expect(finding).toContain(`placed again automatically as ${rep}`);
    // The surface is kept for the replacement: it answers 503 (moving) meanwhile, not 410.
    expect(must(await get(`/surfaces/${d1.surface_id}`), 200, "srf1")).toMatchObject({
      status: "active",
      deployment_id: d1.id,
    });
    const moving = await viaPath(d1.surface_id, "/health");
    expect(moving.status).toBe(503);
    expect(moving.headers.get("retry-after")).toBe("2");
    expect(await moving.json()).toMatchObject({ reason: "deployment_replacing" });
    const events = await db().outboxEvent.findMany({ where: { subject: d1.id, type: "deployment.changed" } });
    expect(events.filter((e) => (e.data as { to: string }).to === "failed")).toHaveLength(1);
    expect(await lapseRunnerHosts()).toEqual({ lost: [], failed: [], replacements: [] });
    const repRow = await db().deployment.findUniqueOrThrow({ where: { id: rep! } });
    expect(repRow).toMatchObject({
      status: "planned",
      replacesDeploymentId: d1.id,
      replaceReason: "host_lost",
      avoidHost: idle,
    });

    // The lost host is out of placement: the waiting deployment and the replacement come here.
    expect(await processPlannedDeployments(5)).toBe(2);
    const placed = must(await get(`/deployments/${d2.id}`), 200, "d2");
    expect(placed.status).toBe("active");
    expect((await db().deployment.findUniqueOrThrow({ where: { id: d2.id } })).runnerHost).toBe(localHostId());
    expect(must(await get(`/deployments/${rep}`), 200, "rep")).toMatchObject({
      status: "active",
      surface_id: d1.surface_id,
      runner_host: localHostId(),
      superseded_deployment_id: d1.id,
    });
    expect(must(await get(`/surfaces/${d1.surface_id}`), 200, "srf1 after")).toMatchObject({
      status: "active",
      deployment_id: rep,
    });
    expect((await viaPath(d1.surface_id, "/health")).status).toBe(200);
    const replacedEvent = await db().outboxEvent.findFirstOrThrow({
      where: { subject: d1.id, type: "deployment.replaced", data: { path: ["phase"], equals: "completed" } },
    });
    expect(replacedEvent.data).toMatchObject({
      reason: "host_lost",
      old_host: idle,
      new_host: localHostId(),
      old_deployment_id: d1.id,
      new_deployment_id: rep,
    });

    // d1's process still ran here (it "came back"): this host's reconciler removes what no live deployment owns.
    const state1 = row1.runtime as unknown as TRuntimeState;
    expect(await isAlive(state1.pid, state1.start_time)).toBe(true);
    const report = await reconcileRunner();
    expect(report.killed).toContain(d1.id);
    expect(report.adopted).toContain(d2.id);
    expect(report.adopted).toContain(rep);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${rep}:stop`, { token: owner.token }), 200, "stop rep");
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${d2.id}:stop`, { token: owner.token }), 200, "stop d2");
  });

  it("a host at its capacity takes nothing", async () => {
    process.env.CAPSTAN_RUNNER_CAPACITY = "0";
    resetEnvCache();
    try {
      await heartbeat();
      expect((await db().runnerHost.findUniqueOrThrow({ where: { id: localHostId() } })).capacity).toBe(0);
      const d = must(await plan("full"), 202, "plan full");
      expect(await processPlannedDeployments(5)).toBe(0);
      expect(must(await get(`/deployments/${d.id}`), 200, "d").status).toBe("planned");
      // Waiting a while with no host that can take it: it says so in words, once.
      expect(await notePlacementWaits(), "too fresh to say anything").not.toContain(d.id);
      await db().deployment.update({ where: { id: d.id }, data: { createdAt: new Date(Date.now() - 60_000) } });
      expect(await notePlacementWaits()).toContain(d.id);
      expect(await notePlacementWaits()).not.toContain(d.id);
      const waiting = must(await get(`/deployments/${d.id}`), 200, "d");
      expect(waiting).toMatchObject({ status: "planned", reason_code: "no_runner_capacity" });
      const words = waiting.findings.filter((f: { code: string }) => f.code === "no_runner_capacity");
      expect(words).toHaveLength(1);
      expect(words[0].message).toMatch(/live, uncordoned runner hosts? (is|are) at capacity/);
    } finally {
      delete process.env.CAPSTAN_RUNNER_CAPACITY;
      resetEnvCache();
      await heartbeat();
    }
    // Once a host has room it is placed, and the reason goes.
    expect(await processPlannedDeployments(5)).toBe(1);
    const d = await db().deployment.findFirstOrThrow({ where: { slot: "full" } });
    expect(must(await get(`/deployments/${d.id}`), 200, "d placed")).toMatchObject({ status: "active" });
    expect(d.reasonCode).toBeNull();
    must(
      await api("POST", `/v1/workspaces/${ws}/deployments/${d.id}:stop`, { token: owner.token }),
      200,
      "stop placed",
    );
  });
});

describe("the runner gateway", () => {
  it("serves a deployment's app and the runner operations to holders of the key only", async () => {
    const d = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "gateway" });
    expect(d.status).toBe("active");
    const state = (await db().deployment.findUniqueOrThrow({ where: { id: d.id } }))
      .runtime as unknown as TRuntimeState;
    const gw = await startGateway("127.0.0.1:0");
    const base = `http://127.0.0.1:${gw.port}`;
    try {
      const key = gatewayKey();
      const health = await fetch(`${base}/health`, {
        headers: { "x-capstan-runner-key": key, "x-capstan-deployment": d.id },
      });
      expect(health.status).toBe(200);
      expect(await health.text()).toBe("ok");
      // Passed through unchanged: method, path, query and body.
      const echo = await fetch(`${base}/echo?q=1`, {
        method: "POST",
        body: "hi",
        headers: { "x-capstan-runner-key": key, "x-capstan-deployment": d.id, "content-type": "text/plain" },
      });
      expect(await echo.json()).toMatchObject({
        method: "POST",
        path: "/echo",
        query: "?q=1",
        body: "hi",
        content_type: "text/plain",
      });

      for (const headers of [
        { "x-capstan-deployment": d.id },
        { "x-capstan-runner-key": "0".repeat(64), "x-capstan-deployment": d.id },
      ] as Record<string, string>[]) {
        const refused = await fetch(`${base}/hello`, { headers });
        expect(refused.status).toBe(401);
        expect(refused.headers.get("content-type")).toBe("application/problem+json");
      }
      const bad = await fetch(`${base}/hello`, {
        headers: { "x-capstan-runner-key": key, "x-capstan-deployment": "../../etc" },
      });
      expect(bad.status).toBe(400);
      const unknownOp = await fetch(`${base}/runner/v1/deployments/${d.id}/format-disk`, {
        method: "POST",
        headers: { "x-capstan-runner-key": key },
      });
      expect(unknownOp.status).toBe(404);
      // A state that names another host's process is refused.
      const foreign = await fetch(`${base}/runner/v1/deployments/${d.id}/stop`, {
        method: "POST",
        headers: { "x-capstan-runner-key": key, "content-type": "application/json" },
        body: JSON.stringify({ state: { ...state, host: "elsewhere:/x" } }),
      });
      expect(foreign.status).toBe(409);
      expect(await isAlive(state.pid, state.start_time)).toBe(true);

      const remote = new RemoteRunnerOps(base, key);
      expect(await remote.isRunning(state)).toBe(true);
      expect(await remote.logSize(d.id)).toBeGreaterThanOrEqual(0);
      await expect(new RemoteRunnerOps(base, "f".repeat(64)).runLog(d.id, 100)).rejects.toThrow(/401/);
      await remote.stop(d.id, state);
      expect(await isAlive(state.pid, state.start_time)).toBe(false);
      expect(await remote.isRunning(state)).toBe(false);
    } finally {
      gw.server.close();
    }
  });

  it("a surface whose live host does not answer is 502 runner_host_unreachable; an app its host cannot reach is 502 upstream_unreachable", async () => {
    const d = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "unreachable" });
    expect(d.status).toBe("active");
    const srf = d.surface_id as string;
    const state = (await db().deployment.findUniqueOrThrow({ where: { id: d.id } }))
      .runtime as unknown as TRuntimeState;
    const problemOf = async (r: Response) => ({
      status: r.status,
      type: r.headers.get("content-type"),
      reason: ((await r.json()) as { reason?: string }).reason,
    });
    // Recorded on a live host whose gateway refuses connections (nothing listens on its endpoint).
    const silent = fakeHost("silent");
    await addHost(silent, 600_000);
    await db().deployment.update({ where: { id: d.id }, data: { runnerHost: silent } });
    forgetSurface(srf);
    expect(await problemOf(await viaPath(srf, "/health"))).toEqual({
      status: 502,
      type: "application/problem+json",
      reason: "runner_host_unreachable",
    });
    // A host that answers, but not the app (its socket is gone): the gateway's own 502, passed through.
    const gw = await startGateway("127.0.0.1:0");
    try {
      const answering = fakeHost("answering");
      await db().runnerHost.create({
        data: {
          id: answering,
          endpoint: `http://127.0.0.1:${gw.port}`,
          capacity: 5,
          leaseExpiresAt: new Date(Date.now() + 600_000),
        },
      });
      await db().deployment.update({ where: { id: d.id }, data: { runnerHost: answering } });
      forgetSurface(srf);
      expect((await viaPath(srf, "/health")).status, "through the gateway while the app runs").toBe(200);
      await runner().stop(d.id, state);
      expect(await problemOf(await viaPath(srf, "/health"))).toEqual({
        status: 502,
        type: "application/problem+json",
        reason: "upstream_unreachable",
      });
      await db().deployment.update({ where: { id: d.id }, data: { runnerHost: localHostId() } });
      await db().runnerHost.deleteMany({ where: { id: { in: [silent, answering] } } });
    } finally {
      gw.server.close();
    }
  });
});
