import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileRunner } from "@/server/domain/deployments/reconcile.service";
import { readiness } from "@/server/http/readiness";
import { db } from "@/server/platform/db/client";
import { env, resetEnvCache } from "@/server/platform/env";
import { runner, type TRuntimeState } from "@/server/runtime";
import { DEFAULT_PLAN_LIMITS } from "@/server/runtime/limits";
import { RUNNER_TASKS } from "@/server/runtime/deploy-launch";
import { resetHostProbe } from "@/server/runtime/sandbox";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { handleSurfaceRequest } from "./support/handlers";
import { confirmedApp, deploy, freezeApp, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * Issues #38 and #31 on the real runner: under bubblewrap and under gVisor
 * (each where the host offers it; where it does not, forcing the mode is
 * refused, and that is what is asserted) the app runs as a uid of its own
 * with no capabilities, owns the files it writes on the host, cannot open
 * raw sockets or mount, and its process, disk and memory limits stop
 * bombs bounded by this test, with the reason in words, while a neighbour
 * deployment and /readyz keep answering. A descriptor asking for more than
 * the plan is refused before anything is written.
 */
const LIMITS_APP = readFileSync(path.join(import.meta.dirname, "fixtures", "limits-app.js"), "utf8");
const ASKED = { memory_mb: 256, processes: 48, disk_mb: 96 };
const limitsRepo = (limits: Record<string, number>) => ({
  files: {
    "server.js": LIMITS_APP,
    "package.json": JSON.stringify({
      name: "limits-app",
      version: "1.0.0",
      scripts: { start: "node server.js" },
      capstan: { limits },
    }),
  },
});

let owner: TTestUser;
let ws: string;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

const viaPath = async (srf: string, p: string) => {
  const res = await handleSurfaceRequest(new Request(`http://localhost:3000/s/${srf}${p}`), srf);
  const text = await res.text();
  let json: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, text, json };
};
const get = (p: string) => api("GET", `/v1/workspaces/${ws}${p}`, { token: owner.token });
const runtimeOf = async (id: string) =>
  (await db().deployment.findUniqueOrThrow({ where: { id } })).runtime as TRuntimeState;
const useMode = (mode: string | null) => {
  if (mode) process.env.CAPSTAN_RUNNER_SANDBOX = mode;
  else delete process.env.CAPSTAN_RUNNER_SANDBOX;
  resetEnvCache();
  resetHostProbe();
};

for (const mode of ["bubblewrap", "gvisor"] as const) {
  describe(`under ${mode}`, () => {
    let offered: string | null = null;
    let refusal = "";
    let app: { productId: string; revisionId: string };
    let neighbour: { productId: string; revisionId: string };
    let d: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    let n: any; // eslint-disable-line @typescript-eslint/no-explicit-any

    beforeAll(async () => {
      useMode(mode);
      try {
        offered = (await runner().isolation(DEFAULT_PLAN_LIMITS.free)).mechanism;
      } catch (err) {
        refusal = String((err as Error).message);
      }
      if (!offered) return;
      app = await confirmedApp(owner, ws, limitsRepo(ASKED), HEALTH_EDIT);
      neighbour = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
      [d, n] = await Promise.all([
        deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: `${mode}-limits` }),
        deploy(owner, ws, neighbour.revisionId, { environment_type: "preview", slot: `${mode}-neighbour` }),
      ]);
    }, 240_000);

    afterAll(() => useMode(null));

    const invoke = async (p: string) => {
      const ses = must(
        await api("POST", "/v1/sessions", { token: owner.token, body: { surface_id: d.surface_id } }),
        201,
        "session",
      );
      const inv = must(
        await api("POST", `/v1/sessions/${ses.id}/invocations`, {
          token: owner.token,
          body: { kind: "http_request", method: "GET", path: p, body_evidence: null },
        }),
        201,
        "invoke",
      );
      expect(inv.admission.outcome).toBe("admitted");
      return inv;
    };

    it("runs the app in this mode when the host offers it, else refuses the mode by name", () => {
      if (!offered) {
        expect(refusal).toMatch(new RegExp(`CAPSTAN_RUNNER_SANDBOX=${mode}`));
        return;
      }
      expect(offered).toBe(mode);
      expect(d.status, JSON.stringify(d.findings)).toBe("active");
      expect(n.status, JSON.stringify(n.findings)).toBe("active");
      expect(d.isolation).toMatchObject({
        profile: "isolated-vm",
        mechanism: mode,
        sandbox: mode,
        enforced: mode === "gvisor",
        kernel_boundary: mode === "gvisor",
        filesystem: true,
        network: true,
        vm_boundary: false,
      });
    });

    it("never host root: its own uid, empty capability sets, its files owned by that uid on the host; raw sockets and mount fail", async () => {
      if (!offered) return;
      const id = d.isolation.identity;
      expect(id).toMatchObject({ dedicated: process.getuid?.() === 0, host_root: false, capabilities: "none" });
      if (id.dedicated) {
        expect(id.uid).toBeGreaterThanOrEqual(env().CAPSTAN_RUNNER_UID_BASE);
        expect(id.uid).toBeLessThan(env().CAPSTAN_RUNNER_UID_BASE + env().CAPSTAN_RUNNER_UID_COUNT);
        // The neighbour has a uid of its own.
        expect(n.isolation.identity.uid).not.toBe(id.uid);
      }
      const r = await viaPath(d.surface_id, "/identity");
      expect(r.status, r.text).toBe(200);
      expect(r.json.uid).not.toBe(0);
      expect(r.json.uid).toBe(id.uid);
      expect(r.json.gid).toBe(id.gid);
      for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"])
        expect(r.json.caps[set] ?? "0000000000000000", set).toMatch(/^0+$/);
      const state = await runtimeOf(d.id);
      const file = path.join(state.dir, "app", "owned-by-me.txt");
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).uid).toBe(id.uid);
      expect(statSync(state.dir).uid).toBe(id.uid);
      expect(r.json.raw_socket.status, JSON.stringify(r.json.raw_socket)).not.toBe(0);
      expect(r.json.mount.status, JSON.stringify(r.json.mount)).not.toBe(0);
      expect(r.json.unshare_net.status, JSON.stringify(r.json.unshare_net)).not.toBe(0);
      // bubblewrap forbids nested user namespaces; gVisor's own kernel may create one (it is still gVisor's).
      if (mode === "bubblewrap") expect(r.json.unshare_user.status, JSON.stringify(r.json.unshare_user)).not.toBe(0);
    });

    it("reports every limit with its value and what enforces it, the descriptor's asks under the plan", () => {
      if (!offered) return;
      const l = d.isolation.limits;
      expect(l.memory_bytes.value).toBe(ASKED.memory_mb * 1024 * 1024);
      expect(l.processes.value).toBe(ASKED.processes);
      expect(l.disk_bytes.value).toBe(ASKED.disk_mb * 1024 * 1024);
      expect(l.cpu_weight.value).toBe(DEFAULT_PLAN_LIMITS.free.cpu_weight);
      expect(l.log_bytes).toMatchObject({ enforced: true, by: "rotation" });
      for (const [k, v] of Object.entries<{ enforced: boolean; by: string | null }>(l)) {
        expect(v.enforced, k).toBe(v.by !== null);
      }
      expect(d.isolation.resource_limits).toBe(Object.values(l).every((v) => (v as { enforced: boolean }).enforced));
    });

    it("a fork bomb stops at the process limit; where the pids cgroup refuses, the request and the log say how many forks were refused in words; the app keeps serving", async () => {
      if (!offered) return;
      const r = await viaPath(d.surface_id, "/fork?n=200");
      expect(r.status, r.text).toBe(200);
      if (d.isolation.limits.processes.enforced) {
        // The cgroup's cap is the limit plus Capstan's own tasks (bubblewrap, the launcher); the app's tasks count too.
        expect(r.json.started, JSON.stringify(r.json)).toBeLessThanOrEqual(ASKED.processes + RUNNER_TASKS);
        expect(r.json.refused).toBeGreaterThan(0);
      }
      // The same bomb as an invocation: the request that met the limit fails in words, the app's answer kept.
      const inv = await invoke("/fork");
      const byCgroup = mode !== "gvisor" && /_pids/.test(d.isolation.limits.processes.by ?? "");
      if (byCgroup) {
        expect(inv.execution.status).toBe("failed");
        expect(inv.execution.failure).toMatchObject({
          code: "isolation_violation",
          message: expect.stringMatching(/limit of 48; \d+ forks? (was|were) refused\. The app answered 200\./),
        });
        expect(inv.execution.result.http_status).toBe(200);
        const report = await reconcileRunner();
        expect(report.violated).not.toContain(d.id);
        const logs = must(await get(`/deployments/${d.id}/logs`), 200, "logs");
        expect(logs.run_log).toMatch(
          /limit reached: .*more processes than its limit of 48; \d+ forks? (was|were) refused/,
        );
      } else {
        // Under gVisor the forks are refused inside its own kernel, where the host cannot count them: the app's
        // own error (EAGAIN) is the only reason, and the request completes with the app's answer.
        expect(inv.execution.status, JSON.stringify(inv.execution.failure)).toBe("completed");
      }
      expect(must(await get(`/deployments/${d.id}`), 200, "dep").status).toBe("active");
      expect((await viaPath(d.surface_id, "/health")).status).toBe(200);
      expect((await viaPath(n.surface_id, "/health")).status).toBe(200);
    });

    it("a disk fill stops at the disk limit (ENOSPC), is noted in the deployment's log, and the app keeps serving", async () => {
      if (!offered) return;
      const r = await viaPath(d.surface_id, "/disk?mb=400");
      expect(r.status, r.text).toBe(200);
      if (!d.isolation.limits.disk_bytes.enforced) return;
      expect(r.json).toMatchObject({ error: "ENOSPC" });
      expect(r.json.written_mb).toBeLessThanOrEqual(ASKED.disk_mb);
      await reconcileRunner();
      const logs = must(await get(`/deployments/${d.id}/logs`), 200, "logs");
      expect(logs.run_log).toMatch(/limit reached: .*filled its disk of 96 MiB/);
      expect(must(await get(`/deployments/${d.id}`), 200, "dep").status).toBe("active");
      expect((await viaPath(d.surface_id, "/health")).status).toBe(200);
    });

    it("a child process killed on the memory limit fails its request in words but not the deployment; the app keeps answering 200", async () => {
      if (!offered) return;
      const inv = await invoke("/memory-child");
      const child = await viaPath(d.surface_id, "/health");
      if (!d.isolation.limits.memory_bytes.enforced) return;
      if (mode === "gvisor" && child.status !== 200) {
        // Under gVisor the host's OOM killer sees one sandbox, not the child: the whole app goes, and that is fatal.
        expect(inv.execution.failure).toMatchObject({
          code: "isolation_violation",
          message: expect.stringMatching(/The app used more than its memory limit of 256 MiB and the kernel killed it/),
        });
        // (The next test's reconciliation ends the deployment with isolation_violation.)
        return;
      }
      expect(child.status, child.text).toBe(200);
      expect(inv.execution.result.http_status).toBe(200);
      expect(inv.execution.failure).toMatchObject({
        code: "isolation_violation",
        message: expect.stringMatching(
          /A process of the app used more than the deployment's memory limit of 256 MiB and the kernel killed that process .*kept running\. The app answered 200\./,
        ),
      });
      const report = await reconcileRunner();
      expect(report.violated).not.toContain(d.id);
      expect(report.adopted).toContain(d.id);
      const dep = must(await get(`/deployments/${d.id}`), 200, "dep");
      expect(dep.status).toBe("active");
      const logs = must(await get(`/deployments/${d.id}/logs`), 200, "logs");
      expect(logs.run_log).toMatch(/limit reached: .*killed that process/);
      // A later request that meets no limit completes.
      const again = await invoke("/health");
      expect(again.execution.status, JSON.stringify(again.execution.failure)).toBe("completed");
    });

    it("a memory bomb ends the request and the deployment with isolation_violation in words; the neighbour and /readyz keep answering", async () => {
      if (!offered) return;
      const ses = must(
        await api("POST", "/v1/sessions", { token: owner.token, body: { surface_id: d.surface_id } }),
        201,
        "session",
      );
      const inv = must(
        await api("POST", `/v1/sessions/${ses.id}/invocations`, {
          token: owner.token,
          body: { kind: "http_request", method: "GET", path: "/memory", body_evidence: null },
        }),
        201,
        "invoke",
      );
      expect(inv.admission.outcome).toBe("admitted");
      // GET /memory touches 1024 MiB, four times the deployment's memory limit.
      const failure = inv.execution?.failure ?? null;
      expect((await viaPath(n.surface_id, "/health")).status).toBe(200);
      expect((await readiness()).status).toBe(200);
      if (!d.isolation.limits.memory_bytes.enforced) return;
      expect(failure, "the request that met the dead app").toMatchObject({
        code: "isolation_violation",
        message: expect.stringMatching(/memory limit of 256 MiB/),
      });
      const report = await reconcileRunner();
      expect(report.violated).toContain(d.id);
      const after = must(await get(`/deployments/${d.id}`), 200, "dep");
      expect(after).toMatchObject({ status: "failed", reason_code: "isolation_violation" });
      expect(after.findings.find((f: { code: string }) => f.code === "isolation_violation").message).toMatch(
        /more than its memory limit of 256 MiB .*The deployment was stopped/,
      );
      const event = await db().outboxEvent.findFirst({
        where: { subject: d.id, type: "deployment.changed" },
        orderBy: { createdAt: "desc" },
      });
      expect(event?.data).toMatchObject({ deployment_id: d.id, to: "failed", reason_code: "isolation_violation" });
      expect((await viaPath(n.surface_id, "/health")).status).toBe(200);
      expect(existsSync((await runtimeOf(d.id)).dir)).toBe(false);
      must(
        await api("POST", `/v1/workspaces/${ws}/deployments/${n.id}:stop`, { token: owner.token }),
        200,
        "stop neighbour",
      );
    });
  });
}

describe("a descriptor asking for more than the plan allows", () => {
  it("is refused with a problem naming the limit before anything is written (package.json capstan.limits)", async () => {
    const greedy = await confirmedApp(
      owner,
      ws,
      limitsRepo({ memory_mb: DEFAULT_PLAN_LIMITS.free.memory_mb + 1, processes: 10 }),
      HEALTH_EDIT,
    );
    const before = await db().deployment.count({ where: { workspaceId: ws } });
    const envs = await db().environment.count({ where: { productId: greedy.productId } });
    const r = await api("POST", `/v1/workspaces/${ws}/revisions/${greedy.revisionId}/deployments`, {
      token: owner.token,
      body: { environment_type: "preview" },
    });
    expect(r.status).toBe(422);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    expect(r.json).toMatchObject({
      code: "validation_failed",
      reason: "limit_exceeds_plan",
      errors: [{ path: "/descriptor/limits/memory_mb" }],
    });
    expect(r.json.detail).toMatch(/memory_mb 513 is more than the free plan allows \(512\)/);
    expect(await db().deployment.count({ where: { workspaceId: ws } })).toBe(before);
    expect(await db().environment.count({ where: { productId: greedy.productId } })).toBe(envs);
  });

  it("is refused the same way when the limits come from the confirmation's edits, and a lower ask is kept", async () => {
    const frozen = await freezeApp(owner, ws);
    const confirm = (limits: Record<string, number>) =>
      api(
        "POST",
        `/v1/workspaces/${ws}/products/${frozen.productId}/revisions/${frozen.revisionId}/descriptor:confirm`,
        {
          token: owner.token,
          body: { edits: { ...HEALTH_EDIT, limits } },
        },
      );
    const bad = await confirm({ memory_mb: 0 });
    expect(bad.status).toBe(422);
    must(await confirm({ cpu_weight: DEFAULT_PLAN_LIMITS.free.cpu_weight * 10 }), 200, "confirm");
    const r = await api("POST", `/v1/workspaces/${ws}/revisions/${frozen.revisionId}/deployments`, {
      token: owner.token,
      body: { environment_type: "staging" },
    });
    expect(r.status).toBe(422);
    expect(r.json.errors).toEqual([
      { path: "/descriptor/limits/cpu_weight", message: expect.stringContaining("cpu_weight 500") },
    ]);
    const rev = must(await get(`/revisions/${frozen.revisionId}`), 200, "rev");
    expect(rev.descriptor.limits).toEqual({ cpu_weight: 500 });
    expect(rev.descriptor.field_sources.limits).toBe("developer");
  });
});
