import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { replaceDeployment } from "@/server/domain/deployments/replace.service";
import { heartbeat, localHostId } from "@/server/domain/runners/runner-hosts.service";
import { AppError } from "@/server/platform/errors";
import { db } from "@/server/platform/db/client";
import { isAlive } from "@/server/runtime/process-table";
import { runner, type TRuntimeState } from "@/server/runtime";
import { handleSurfaceRequest } from "./support/handlers";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * Replacing a deployment (replace.service.ts), the primitive behind drain,
 * self-healing placement and credential rotation, in one process (this test
 * process is the runner host): the replacement is a new deployment of the
 * same revision and environment; once healthy it takes over the old one's
 * surface (same id, URL, sessions), the old one is superseded (`replaced`)
 * and its process stops; asking again while one is in flight returns it;
 * a replacement never lands on the host it avoids; one whose old deployment
 * ended meanwhile stops itself and leaves the surface alone.
 */
let owner: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };
const system = { kind: "system" as const, id: null };
const get = (p: string) => api("GET", `/v1/workspaces/${ws}${p}`, { token: owner.token });
const viaPath = (srf: string, p: string) =>
  handleSurfaceRequest(new Request(`http://localhost:3000/s/${srf}${p}`), srf);
const stateOf = async (id: string) =>
  (await db().deployment.findUniqueOrThrow({ where: { id } })).runtime as unknown as TRuntimeState;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
  await heartbeat();
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

describe("replaceDeployment", () => {
  it("the new deployment takes over the surface once active; the old one stops; idempotent while in flight; audited", async () => {
    const d1 = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "swap" });
    expect(d1.status).toBe("active");
    const srf = d1.surface_id as string;
    const surfaceBefore = must(await get(`/surfaces/${srf}`), 200, "srf");
    const hits1 = await (await viaPath(srf, "/hits")).json();
    expect(hits1).toMatchObject({ bridge_status: 200, value: 1 });
    const session = must(
      await api("POST", "/v1/sessions", { token: owner.token, body: { surface_id: srf } }),
      201,
      "session",
    );
    const oldState = await stateOf(d1.id);

    // Three callers at once, then a fourth: one replacement.
    const asked = await Promise.all(
      [1, 2, 3].map(() => replaceDeployment(system, d1.id, { reason: "credentials_changed" })),
    );
    expect(new Set(asked.map((r) => r.id)).size).toBe(1);
    const r1 = asked[0]!;
    expect((await replaceDeployment(system, d1.id, { reason: "drain" })).id).toBe(r1.id);
    expect(r1).toMatchObject({
      status: "planned",
      replacesDeploymentId: d1.id,
      replaceReason: "credentials_changed",
      revisionId: d1.revision_id,
      environmentId: d1.environment_id,
    });
    // Until the replacement is active the old one serves.
    expect((await viaPath(srf, "/health")).status).toBe(200);

    expect(await processPlannedDeployments(5)).toBe(1);
    const now1 = must(await get(`/deployments/${r1.id}`), 200, "r1");
    expect(now1).toMatchObject({
      status: "active",
      surface_id: srf,
      superseded_deployment_id: d1.id,
      runner_host: localHostId(),
    });
    expect(must(await get(`/deployments/${d1.id}`), 200, "d1")).toMatchObject({
      status: "superseded",
      reason_code: "replaced",
    });
    const surfaceAfter = must(await get(`/surfaces/${srf}`), 200, "srf after");
    expect(surfaceAfter).toMatchObject({
      id: srf,
      status: "active",
      deployment_id: r1.id,
      url: surfaceBefore.url,
      expires_at: surfaceBefore.expires_at,
    });
    // The same surface answers from the new process (its Bridge identity works: the counter goes on), the old process is gone.
    expect(await (await viaPath(srf, "/hits")).json()).toMatchObject({ bridge_status: 200, value: 2 });
    expect(await isAlive(oldState.pid, oldState.start_time)).toBe(false);
    const newState = await stateOf(r1.id);
    expect(newState.pid).not.toBe(oldState.pid);
    // The session on the surface stays open, and an invocation through it is admitted and executed by the new deployment.
    expect(must(await api("GET", `/v1/sessions/${session.id}`, { token: owner.token }), 200, "session").state).toBe(
      "active",
    );
    const inv = must(
      await api("POST", `/v1/sessions/${session.id}/invocations`, {
        token: owner.token,
        body: { kind: "http_request", body_evidence: null, method: "GET", path: "/health" },
      }),
      201,
      "invoke",
    );
    expect(inv.admission.outcome).toBe("admitted");
    expect(inv.execution).toMatchObject({ deployment_id: r1.id, status: "completed" });

    const audit = await db().auditRecord.findMany({ where: { workspaceId: ws, action: "deployment.replaced" } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ targetId: r1.id });
    expect(audit[0]!.details).toMatchObject({
      reason: "credentials_changed",
      old_deployment_id: d1.id,
      new_deployment_id: r1.id,
      surface_id: srf,
      old_host: localHostId(),
      new_host: localHostId(),
    });
    const events = await db().outboxEvent.findMany({
      where: { workspaceId: ws, type: "deployment.replaced" },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((e) => (e.data as { phase: string }).phase)).toEqual(["requested", "completed"]);
    expect(events[1]!.data).toMatchObject({
      old_deployment_id: d1.id,
      new_deployment_id: r1.id,
      old_host: localHostId(),
      new_host: localHostId(),
    });

    // The old one ended: nothing to replace. The new one can be replaced in turn.
    await expect(replaceDeployment(system, d1.id, { reason: "drain" })).rejects.toMatchObject({
      reason: "deployment_not_running",
    });
    await expect(
      replaceDeployment(system, "dep_01j9zq3v7k5m2n8p4r6s0t1w2x", { reason: "drain" }),
    ).rejects.toBeInstanceOf(AppError);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${r1.id}:stop`, { token: owner.token }), 200, "stop r1");
    expect((await viaPath(srf, "/health")).status).toBe(410);
  }, 180_000);

  it("never lands on the host it avoids; one whose old deployment stopped meanwhile stops itself and leaves the surface gone", async () => {
    const d2 = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "avoid" });
    expect(d2.status).toBe("active");
    const r2 = await replaceDeployment(system, d2.id, { reason: "drain", avoidHost: localHostId() });
    expect(r2.avoidHost).toBe(localHostId());
    // The only live host is the avoided one: it stays planned, the old one serves.
    expect(await processPlannedDeployments(5)).toBe(0);
    expect(must(await get(`/deployments/${r2.id}`), 200, "r2").status).toBe("planned");
    expect((await viaPath(d2.surface_id, "/health")).status).toBe(200);

    // The old deployment is stopped by its owner meanwhile; then another host (simulated: the avoidance lifted) places the replacement.
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${d2.id}:stop`, { token: owner.token }), 200, "stop d2");
    await db().deployment.update({ where: { id: r2.id }, data: { avoidHost: null } });
    expect(await processPlannedDeployments(5)).toBe(1);
    const after = must(await get(`/deployments/${r2.id}`), 200, "r2 after");
    expect(after).toMatchObject({ status: "superseded", reason_code: "replacement_obsolete" });
    expect(after.findings.find((f: { code: string }) => f.code === "replacement_obsolete").message).toContain(d2.id);
    expect(must(await get(`/surfaces/${d2.surface_id}`), 200, "srf")).toMatchObject({
      status: "expired",
      deployment_id: d2.id,
    });
    expect((await viaPath(d2.surface_id, "/health")).status).toBe(410);
    const st = await stateOf(r2.id);
    expect(await isAlive(st.pid, st.start_time)).toBe(false);
  }, 180_000);

  it("a newer deployment of the environment wins over a replacement still in flight", async () => {
    const d3 = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "race" });
    const r3 = await replaceDeployment(system, d3.id, { reason: "drain", avoidHost: localHostId() });
    const newer = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "race" });
    expect(newer.status).toBe("active");
    expect(must(await get(`/deployments/${d3.id}`), 200, "d3").status).toBe("superseded");
    await db().deployment.update({ where: { id: r3.id }, data: { avoidHost: null } });
    expect(await processPlannedDeployments(5)).toBe(1);
    expect(must(await get(`/deployments/${r3.id}`), 200, "r3")).toMatchObject({
      status: "superseded",
      reason_code: "replacement_obsolete",
    });
    expect(must(await get(`/deployments/${newer.id}`), 200, "newer").status).toBe("active");
    expect((await viaPath(newer.surface_id, "/health")).status).toBe(200);
    must(
      await api("POST", `/v1/workspaces/${ws}/deployments/${newer.id}:stop`, { token: owner.token }),
      200,
      "stop newer",
    );
  }, 180_000);
});
