import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyDeployment, processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { reconcileRunner } from "@/server/domain/deployments/reconcile.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { findProcesses, isAlive, signalGroup } from "@/server/runtime/process-table";
import { resetHostProbe } from "@/server/runtime/sandbox";
import { runner, type TRuntimeState } from "@/server/runtime";
import { handleSurfaceRequest } from "./support/handlers";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * The runner's state against the database: crashes, orphans, a Capstan
 * killed with SIGKILL and restarted, a stop racing a deploy, two deploys
 * racing for one environment, and the unsandboxed mode's ports.
 */
let owner: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

const viaPath = (srf: string, p: string) =>
  handleSurfaceRequest(new Request(`http://localhost:3000/s/${srf}${p}`), srf);
const runtimeOf = async (id: string) =>
  (await db().deployment.findUniqueOrThrow({ where: { id } })).runtime as TRuntimeState;
const get = (p: string) => api("GET", `/v1/workspaces/${ws}${p}`, { token: owner.token });
const root = () => runner().hostId.slice(runner().hostId.indexOf(":") + 1);
const waitFor = async (what: string, fn: () => Promise<boolean>, ms = 20_000) => {
  const until = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("the reconciler", () => {
  it("marks an active deployment whose process died as failed, with its last output, and expires its surface", async () => {
    const d = await deploy(owner, ws, app.revisionId);
    const state = await runtimeOf(d.id);
    expect((await viaPath(d.surface_id, "/crash")).status).toBe(200);
    await waitFor("the app to exit", async () => !(await isAlive(state.pid, state.start_time)));
    const report = await reconcileRunner();
    expect(report.failed).toEqual([d.id]);
    const after = must(await get(`/deployments/${d.id}`), 200, "dep");
    expect(after).toMatchObject({ status: "failed", reason_code: "process_exited" });
    const finding = after.findings.find((f: { code: string }) => f.code === "process_exited");
    expect(finding.message).toContain("the app exited (code 3)");
    expect(must(await get(`/surfaces/${d.surface_id}`), 200, "srf")).toMatchObject({
      status: "expired",
      reason_code: "deployment_failed",
    });
    expect((await viaPath(d.surface_id, "/")).status).toBe(410);
    expect(existsSync(state.dir)).toBe(false);
  });

  it("kills processes and removes directories that no deployment owns", async () => {
    const ghost = newId("dep");
    mkdirSync(path.join(root(), ghost, "app"), { recursive: true });
    writeFileSync(path.join(root(), ghost, "app", "left-behind.txt"), "x");
    const orphan = newId("dep");
    const child = spawn(
      process.execPath,
      ["-e", "setInterval(() => {}, 1000)", path.join(root(), "launcher.mjs"), `capstan-deployment=${orphan}`],
      { detached: true, stdio: "ignore" },
    );
    child.unref();
    await waitFor("the orphan to appear", async () => (await findProcesses(`capstan-deployment=${orphan}`)).length > 0);
    const report = await reconcileRunner();
    expect(report.removed).toContain(ghost);
    expect(report.killed).toContain(orphan);
    expect(existsSync(path.join(root(), ghost))).toBe(false);
    await waitFor("the orphan to die", async () => !signalGroup(child.pid!, 0));
  });

  it("adopts the apps of a Capstan process killed with SIGKILL: they keep serving and reach the Bridge again", async () => {
    const created = must(
      await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
        token: owner.token,
        body: { environment_type: "preview", slot: "adopt" },
      }),
      202,
      "deploy",
    );
    const worker = spawn(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", path.join(import.meta.dirname, "support", "deploy-worker.ts")],
      {
        cwd: path.resolve(import.meta.dirname, ".."),
        env: { ...process.env, CAPSTAN_WORKERS: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    worker.stdout.on("data", (c: Buffer) => (out += c.toString()));
    worker.stderr.on("data", (c: Buffer) => (out += c.toString()));
    await waitFor("the other process to apply the deployment", async () => /applied 1/.test(out), 60_000);
    const d = must(await get(`/deployments/${created.id}`), 200, "dep");
    expect(d.status, out).toBe("active");
    const state = await runtimeOf(d.id);

    worker.kill("SIGKILL");
    await new Promise((r) => worker.once("exit", r));
    // The app outlives the process that started it; its Bridge socket died with that process.
    expect(await isAlive(state.pid, state.start_time)).toBe(true);
    expect((await viaPath(d.surface_id, "/hello")).status).toBe(200);
    expect((await (await viaPath(d.surface_id, "/hits")).json()).bridge_status).not.toBe(200);

    const report = await reconcileRunner();
    expect(report.adopted).toContain(d.id);
    expect(report.failed).not.toContain(d.id);
    expect(await (await viaPath(d.surface_id, "/hits")).json()).toMatchObject({
      bridge_status: 200,
      value: expect.any(Number),
    });
    expect(must(await get(`/deployments/${d.id}`), 200, "dep").status).toBe("active");
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${d.id}:stop`, { token: owner.token }), 200, "stop");
    expect(await isAlive(state.pid, state.start_time)).toBe(false);
  });

  it("fails an applying deployment whose worker died (lease expired)", async () => {
    const created = must(
      await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
        token: owner.token,
        body: { environment_type: "preview", slot: "lease" },
      }),
      202,
      "deploy",
    );
    await db().deployment.update({
      where: { id: created.id },
      data: { status: "applying", runnerHost: runner().hostId, lockedUntil: new Date(Date.now() - 1000) },
    });
    const report = await reconcileRunner();
    expect(report.interrupted).toEqual([created.id]);
    expect(must(await get(`/deployments/${created.id}`), 200, "dep")).toMatchObject({
      status: "failed",
      reason_code: "runner_interrupted",
    });
  });
});

describe("races", () => {
  it("a stop during the build wins: the deployment ends superseded and nothing keeps running", async () => {
    const created = must(
      await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
        token: owner.token,
        body: { environment_type: "preview", slot: "race" },
      }),
      202,
      "deploy",
    );
    const applying = applyDeployment(created.id);
    await waitFor(
      "applying",
      async () => (await db().deployment.findUniqueOrThrow({ where: { id: created.id } })).status === "applying",
    );
    const stopped = must(
      await api("POST", `/v1/workspaces/${ws}/deployments/${created.id}:stop`, { token: owner.token }),
      200,
      "stop",
    );
    expect(stopped.status).toBe("superseded");
    await applying;
    const after = await db().deployment.findUniqueOrThrow({ where: { id: created.id } });
    expect(after.status).toBe("superseded");
    expect(await findProcesses(`capstan-deployment=${created.id}`)).toEqual([]);
    expect(existsSync(path.join(root(), created.id))).toBe(false);
  });

  it("two deployments of one environment finishing together: one active, the other superseded", async () => {
    const body = { environment_type: "staging", slot: "pair" };
    const a = must(
      await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, { token: owner.token, body }),
      202,
      "a",
    );
    const b = must(
      await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, { token: owner.token, body }),
      202,
      "b",
    );
    expect(await processPlannedDeployments(2)).toBe(2);
    const rows = await db().deployment.findMany({ where: { id: { in: [a.id, b.id] } } });
    expect(rows.map((r) => r.status).sort()).toEqual(["active", "superseded"]);
    const active = rows.find((r) => r.status === "active")!;
    expect(active.supersededDeploymentId).toBe(rows.find((r) => r.status === "superseded")!.id);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${active.id}:stop`, { token: owner.token }), 200, "stop");
  });
});

describe("without a sandbox", () => {
  beforeAll(() => {
    process.env.CAPSTAN_RUNNER_SANDBOX = "none";
    resetEnvCache();
    resetHostProbe();
  });
  afterAll(() => {
    delete process.env.CAPSTAN_RUNNER_SANDBOX;
    resetEnvCache();
    resetHostProbe();
  });

  it("says so, runs the app on a host port, and frees the port when stopped", async () => {
    const d = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "plain" });
    expect(d.status).toBe("active");
    expect(d.isolation).toMatchObject({
      enforced: false,
      sandbox: "none",
      filesystem: false,
      network: false,
      identity: { host_root: false, capabilities: "none" },
    });
    // Unsandboxed still drops to the deployment's own uid (as root, a dedicated one; the launcher and the app both run as it).
    const { pid } = await runtimeOf(d.id);
    const uidOf = (p: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1]);
    expect(uidOf(pid)).toBe(d.isolation.identity.uid);
    if (process.getuid?.() === 0) expect(uidOf(pid)).not.toBe(0);
    expect(d.findings.map((f: { code: string }) => f.code)).toEqual(["isolation_unenforced", "sandbox_unavailable"]);
    const { app_port: port } = await runtimeOf(d.id);
    const connects = () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(port, "127.0.0.1", () => {
          s.destroy();
          resolve(true);
        });
        s.on("error", () => resolve(false));
      });
    expect(await connects()).toBe(true);
    expect(await (await viaPath(d.surface_id, "/hits")).json()).toMatchObject({ bridge_status: 200 });
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${d.id}:stop`, { token: owner.token }), 200, "stop");
    expect(await connects()).toBe(false);
  });
});
