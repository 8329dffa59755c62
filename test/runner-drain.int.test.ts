import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { reconcileRunner } from "@/server/domain/deployments/reconcile.service";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { processDrains } from "@/server/domain/deployments/host-drain.service";
import { hostHandle } from "@/server/domain/runners/runner-hosts-admin.service";
import { heartbeat, localHostId } from "@/server/domain/runners/runner-hosts.service";
import { db } from "@/server/platform/db/client";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * Draining a runner host (runners/drain.service.ts, deployments/host-drain.service.ts) in one process: the drained host
 * is a row (its deployments are recorded on it), this test process is the
 * live host the replacements land on. POST …:drain (platform admins only, 202)
 * cordons and marks the host draining; the worker loop replaces one
 * deployment at a time (the next only once the previous replacement is
 * active), then marks the host drained; audited; a lost host cannot be
 * drained; uncordon ends a drain. The two-process drain with live traffic is
 * test/runner-hosts-two.int.test.ts.
 */
let platformToken: string;
let owner: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };
const gone = `fake-drain-${Math.random().toString(36).slice(2, 8)}:/nowhere`;
const act = (handle: string, op: "drain" | "uncordon", token = platformToken) =>
  api("POST", `/v1/platform/runner-hosts/${handle}:${op}`, { token });
const hostOf = async (handle: string) =>
  must(await api("GET", "/v1/platform/runner-hosts", { token: platformToken }), 200, "hosts").items.find(
    (h: { id: string }) => h.id === handle,
  );
const get = (p: string) => api("GET", `/v1/workspaces/${ws}${p}`, { token: owner.token });

beforeAll(async () => {
  await bootBridgeApp();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
  await heartbeat();
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

describe("POST /v1/platform/runner-hosts/{host}:drain", () => {
  it("replaces the host's deployments one by one, then the host is drained; surfaces keep their ids; audited", async () => {
    const a = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "a" });
    const b = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "b" });
    // Both are recorded on the host to drain (registered only now: placement goes to the least loaded host).
    await db().runnerHost.create({
      data: { id: gone, endpoint: "http://127.0.0.1:9", capacity: 5, leaseExpiresAt: new Date(Date.now() + 600_000) },
    });
    await db().deployment.updateMany({ where: { id: { in: [a.id, b.id] } }, data: { runnerHost: gone } });
    const handle = hostHandle(gone);

    expect((await act(handle, "drain", owner.token)).status, "a workspace owner is no platform admin").toBe(403);
    const started = await act(handle, "drain");
    expect(started.status, started.text).toBe(202);
    expect(started.json).toMatchObject({ state: "draining", drained_at: null, load: 2 });
    expect(started.json.cordoned_at).not.toBeNull();
    expect(started.json.drain).toMatchObject({ remaining: 2 });
    const again = await act(handle, "drain");
    expect(again.json.draining_at, "idempotent").toBe(started.json.draining_at);

    // Two workers tick at once: one replacement in flight (the older deployment's), not two.
    await Promise.all([processDrains(), processDrains()]);
    const first = await db().deployment.findMany({ where: { replacesDeploymentId: { in: [a.id, b.id] } } });
    expect(first.map((r) => [r.replacesDeploymentId, r.status, r.avoidHost, r.replaceReason])).toEqual([
      [a.id, "planned", gone, "drain"],
    ]);
    expect((await hostOf(handle)).drain.message).toContain(`Replacing ${a.id} with ${first[0]!.id}`);
    await processDrains();
    expect(await db().deployment.count({ where: { replacesDeploymentId: b.id } }), "b waits for a's replacement").toBe(
      0,
    );

    expect(await processPlannedDeployments(5)).toBe(1);
    expect(must(await get(`/deployments/${first[0]!.id}`), 200, "ra")).toMatchObject({
      status: "active",
      surface_id: a.surface_id,
      runner_host: localHostId(),
    });
    expect(must(await get(`/deployments/${a.id}`), 200, "a")).toMatchObject({
      status: "superseded",
      reason_code: "replaced",
    });

    await processDrains();
    const rb = await db().deployment.findFirstOrThrow({ where: { replacesDeploymentId: b.id } });
    expect(await processPlannedDeployments(5)).toBe(1);
    expect(must(await get(`/deployments/${rb.id}`), 200, "rb")).toMatchObject({
      status: "active",
      surface_id: b.surface_id,
    });
    expect(must(await get(`/surfaces/${b.surface_id}`), 200, "srf b")).toMatchObject({
      status: "active",
      deployment_id: rb.id,
    });

    await processDrains();
    const drained = await hostOf(handle);
    expect(drained).toMatchObject({ state: "drained", load: 0, drain: null });
    expect(drained.drained_at).not.toBeNull();
    const audits = await db().auditRecord.findMany({
      where: { workspaceId: "ws_platform", targetId: handle },
      orderBy: { seq: "asc" },
    });
    expect(audits.map((x) => x.action)).toEqual([
      "runner_host.cordoned",
      "runner_host.drain_started",
      "runner_host.drained",
    ]);
    expect(await processDrains(), "nothing left to do").toBe(0);

    // Uncordon ends the drain: the host takes deployments again.
    expect((await act(handle, "uncordon")).json).toMatchObject({
      state: "live",
      draining_at: null,
      drained_at: null,
      cordoned_at: null,
    });
    // The old processes ran here (recorded elsewhere): this host's reconciler removes them.
    expect((await reconcileRunner()).killed.sort()).toEqual([a.id, b.id].sort());
    for (const r of [first[0]!.id, rb.id])
      must(await api("POST", `/v1/workspaces/${ws}/deployments/${r}:stop`, { token: owner.token }), 200, "stop");
    await db().runnerHost.delete({ where: { id: gone } });
  }, 240_000);

  it("a deployment whose replacement failed is not retried: the drain says which one and waits", async () => {
    const c = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "c" });
    const other = `fake-drain2-${Math.random().toString(36).slice(2, 8)}:/nowhere`;
    await db().runnerHost.create({
      data: { id: other, endpoint: "http://127.0.0.1:9", capacity: 5, leaseExpiresAt: new Date(Date.now() + 600_000) },
    });
    await db().deployment.update({ where: { id: c.id }, data: { runnerHost: other } });
    const handle = hostHandle(other);
    must(await act(handle, "drain"), 202, "drain");
    await processDrains();
    const rc = await db().deployment.findFirstOrThrow({ where: { replacesDeploymentId: c.id } });
    // Its build fails (simulated: failed before it was placed).
    await db().deployment.update({ where: { id: rc.id }, data: { status: "failed", reasonCode: "build_failed" } });
    await processDrains();
    expect(await db().deployment.count({ where: { replacesDeploymentId: c.id } }), "not tried again").toBe(1);
    const h = await hostOf(handle);
    expect(h).toMatchObject({ state: "draining", drain: { remaining: 1 } });
    expect(h.drain.message).toContain(`The replacement of ${c.id} failed`);
    // The app still answers from its old deployment, which is still active.
    expect(must(await get(`/deployments/${c.id}`), 200, "c").status).toBe("active");
    // Stopped by its owner: the drain finishes.
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${c.id}:stop`, { token: owner.token }), 200, "stop c");
    await processDrains();
    expect((await hostOf(handle)).state).toBe("drained");
    await reconcileRunner();
  }, 240_000);

  it("a lost host cannot be drained (its deployments are placed again anyway); an unknown one is 404", async () => {
    const lost = `fake-lost-${Math.random().toString(36).slice(2, 8)}:/nowhere`;
    await db().runnerHost.create({
      data: {
        id: lost,
        endpoint: "http://127.0.0.1:9",
        capacity: 5,
        state: "lost",
        leaseExpiresAt: new Date(Date.now() - 1000),
      },
    });
    const r = await act(hostHandle(lost), "drain");
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ reason: "runner_host_lost" });
    expect((await db().runnerHost.findUniqueOrThrow({ where: { id: lost } })).drainingAt).toBeNull();
    expect((await act("rh_00000000000000000000", "drain")).status).toBe(404);
  });
});
