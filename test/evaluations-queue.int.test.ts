import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { processEvaluations } from "@/server/domain/releases/evaluation-worker";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { finishEvaluation } from "./support/release-fixtures";

/**
 * Evaluations of one revision queue behind each other (they share the
 * revision's preview slot), the version's qualification follows the latest
 * finished one, and a run that hangs ends `failed` at its overall deadline
 * with a finding naming the check it hung in. Real fixture app, real local
 * runner, real invocations.
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

afterEach(() => {
  delete process.env.CAPSTAN_EVALUATION_DEADLINE_SECONDS;
  resetEnvCache();
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

const get = (p: string) => api("GET", `/v1/workspaces/${ws}${p}`, { token: owner.token });
const request = async () =>
  must(
    await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/evaluations`, { token: owner.token, body: {} }),
    202,
    "evaluate",
  );
const evaluation = async (id: string) => must(await get(`/evaluations/${id}`), 200, "evaluation");
const checks = (e: { checks: Array<{ name: string; status: string }> }) => e.checks.map((c) => `${c.name}:${c.status}`);
/** Creation order, as the worker's queue orders runs. */
const byCreation = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;

/** Runs only the evaluation worker (no deploy worker: a deployment stays planned) until `done`, polling with a deadline. */
async function evaluationTicksUntil(done: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    await processEvaluations(10);
    if (await done()) return;
    if (Date.now() > until) throw new Error("the evaluation worker did not get there in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

let versionId: string;

describe("evaluations of one revision", () => {
  it("two at once both finish: the second waits for the first, neither supersedes the other, the version is qualified", async () => {
    const [first, second] = (await Promise.all([request(), request()])).sort(byCreation);
    expect([first.status, second.status]).toEqual(["queued", "queued"]);

    // One tick starts only the older run; the younger stays queued behind it.
    expect(await processEvaluations(10)).toBe(1);
    expect((await evaluation(first.id)).status).toBe("deploying");
    expect((await evaluation(second.id)).status).toBe("queued");
    expect(await processEvaluations(10)).toBe(1);
    expect((await evaluation(second.id)).status).toBe("queued");

    const a = await finishEvaluation(owner, ws, first.id);
    const b = await finishEvaluation(owner, ws, second.id);
    expect(a).toMatchObject({ status: "passed", verdict: "pass", findings: [] });
    expect(b).toMatchObject({ status: "passed", verdict: "pass", findings: [] });
    expect(checks(b)).toEqual([
      "descriptor:passed",
      "contract:passed",
      "deployment:passed",
      "surface:passed",
      "smoke:passed",
      "logs:passed",
    ]);
    // Queued behind: the second started once the first had finished.
    expect(Date.parse(b.started_at)).toBeGreaterThanOrEqual(Date.parse(a.finished_at));
    // Each had its own deployment, stopped by its own evaluation (not superseded by the other's).
    expect(a.deployment_id).not.toBe(b.deployment_id);
    for (const dep of [a.deployment_id, b.deployment_id]) {
      expect(must(await get(`/deployments/${dep}`), 200, "dep")).toMatchObject({
        status: "superseded",
        reason_code: "stopped",
      });
    }
    expect(b.version_id).toBe(a.version_id);
    expect(await db().version.count({ where: { productId: app.productId } })).toBe(1);
    const version = must(await get(`/versions/${a.version_id}`), 200, "version");
    expect(version).toMatchObject({ qualified: true, qualification_id: a.id, label: "v1" });
    versionId = version.id;
  });

  it("a hung run ends failed at its deadline naming the check it hung in; the qualification follows the latest finished run", async () => {
    process.env.CAPSTAN_EVALUATION_DEADLINE_SECONDS = "2";
    resetEnvCache();
    const hung = await request();
    // No deploy worker runs: the preview deployment stays planned and the run hangs in its deployment check.
    await evaluationTicksUntil(async () => (await evaluation(hung.id)).status === "deploying");
    const behind = await request();
    await processEvaluations(10);
    expect((await evaluation(hung.id)).status).toBe("deploying");
    expect((await evaluation(behind.id)).status).toBe("queued");

    await evaluationTicksUntil(async () => (await evaluation(hung.id)).status === "failed");
    const ended = await evaluation(hung.id);
    expect(ended).toMatchObject({ verdict: "fail", version_id: null });
    expect(Date.parse(ended.finished_at) - Date.parse(ended.started_at)).toBeGreaterThanOrEqual(2_000);
    expect(checks(ended)).toEqual([
      "descriptor:passed",
      "contract:passed",
      "deployment:failed",
      "surface:skipped",
      "smoke:skipped",
      "logs:skipped",
    ]);
    expect(ended.findings).toEqual([
      expect.objectContaining({
        check: "deployment",
        kind: "evaluation",
        severity: "error",
        code: "evaluation_deadline",
      }),
    ]);
    expect(ended.findings[0].message).toContain("deadline of 2 s");
    expect(ended.findings[0].message).toContain(`the preview deployment ${ended.deployment_id} was still planned`);
    // It holds nothing: its deployment is stopped although it never started.
    expect(must(await get(`/deployments/${ended.deployment_id}`), 200, "dep")).toMatchObject({
      status: "superseded",
      reason_code: "stopped",
    });
    // The latest finished run failed: the version is no longer qualified.
    expect(must(await get(`/versions/${versionId}`), 200, "version").qualified).toBe(false);
    expect((await evaluation(behind.id)).status).toBe("queued");

    // The run queued behind it starts now, under the default deadline, passes, and requalifies the version.
    delete process.env.CAPSTAN_EVALUATION_DEADLINE_SECONDS;
    resetEnvCache();
    const passed = await finishEvaluation(owner, ws, behind.id);
    expect(passed).toMatchObject({ status: "passed", version_id: versionId });
    expect(Date.parse(passed.started_at)).toBeGreaterThanOrEqual(Date.parse(ended.finished_at));
    expect(must(await get(`/versions/${versionId}`), 200, "version").qualified).toBe(true);
    expect(must(await get(`/revisions/${app.revisionId}/evaluations`), 200, "list").items).toHaveLength(4);
  });
});
