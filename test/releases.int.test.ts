import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { processReleaseWindows } from "@/server/domain/releases/release-window.service";
import { readSnapshotFile } from "@/server/domain/source/snapshot";
import { blobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp, kvCapability } from "./support/bridge-fixtures";
import { confirmedApp, freezeApp, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { changeableApp, evaluate } from "./support/release-fixtures";

/**
 * Evaluations, versions, releases and fixes on the real fixture app
 * (test/fixtures/hosted-app.js): evaluations deploy it with the real local
 * runner and send their smoke requests as real invocations; releases deploy
 * to staging and move through their window with a shortened clock (the
 * worker takes `now`); a fix patches a frozen source into a new revision.
 */
let owner: TTestUser;
let developer: TTestUser;
let stranger: TTestUser;
let ws: string;
let strangerWs: string;

beforeAll(async () => {
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
  await runner().sweep(async () => new Set());
});

const get = (p: string, token = owner.token) => api("GET", `/v1/workspaces/${ws}${p}`, { token });
const post = (p: string, body: unknown, token = owner.token) =>
  api("POST", `/v1/workspaces/${ws}${p}`, { token, body });
const audits = async (target: string) =>
  (await db().auditRecord.findMany({ where: { targetId: target }, orderBy: { seq: "asc" } })).map((a) => a.action);
const window = (startsInMs = -1000, endsInMs: number | null = 3_600_000) => ({
  starts_at: new Date(Date.now() + startsInMs).toISOString(),
  ends_at: endsInMs === null ? null : new Date(Date.now() + endsInMs).toISOString(),
});
const releaseBody = (productId: string, versionId: string, over: Record<string, unknown> = {}) => ({
  product_id: productId,
  version_id: versionId,
  channel: "staged",
  audience: { kind: "workspace" },
  window: window(),
  ...over,
});
/** A 500 on `/` and a healthy /health: deploys fine, fails the smoke check. */
const BROKEN_ROOT = `require("node:http").createServer((req, res) => { if (req.url === "/health") return res.end("ok"); res.statusCode = 500; res.end("broken"); }).listen(Number(process.env.PORT), "127.0.0.1");`;

/** Answers everything, but its / handler leaves an unhandled rejection in the log (the app keeps running). */
const REJECTS_ON_ROOT = `process.on("unhandledRejection", (e) => console.error("unhandledRejection", e));
require("node:http").createServer((req, res) => { if (req.url === "/") Promise.reject(new Error("db connection lost")); setTimeout(() => res.end("ok"), 20); }).listen(Number(process.env.PORT), "127.0.0.1");`;

let unconfirmedFinding: string;
let passing: { productId: string; revisionId: string; evaluation: any; version: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("evaluations and versions", () => {
  it("a passing revision: every check passes, the smoke requests are invocations, a version v1 is cut", async () => {
    const app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
    const e = await evaluate(owner, ws, app.revisionId, { request_key: "first" });
    expect(e).toMatchObject({
      status: "passed",
      verdict: "pass",
      revision_id: app.revisionId,
      product_id: app.productId,
      findings: [],
    });
    expect(e.id).toMatch(/^qual_/);
    expect(e.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`)).toEqual([
      "descriptor:passed",
      "contract:passed",
      "deployment:passed",
      "surface:passed",
      "smoke:passed",
      "logs:passed",
    ]);
    const smoke = e.checks.find((c: { name: string }) => c.name === "smoke");
    expect(smoke.invocation_ids).toHaveLength(2);
    const invs = must(
      await api("GET", `/v1/sessions/${e.session_id}/invocations`, { token: owner.token }),
      200,
      "invocations",
    );
    expect(
      invs.items
        .map(
          (i: {
            input: { path: string };
            admission: { outcome: string };
            execution: { result: { http_status: number } };
          }) => `${i.input.path} ${i.admission.outcome} ${i.execution.result.http_status}`,
        )
        .sort(),
    ).toEqual(["/ admitted 200", "/health admitted 200"]);
    // The evaluation holds no resources afterwards.
    expect(must(await get(`/deployments/${e.deployment_id}`), 200, "dep")).toMatchObject({
      status: "superseded",
      reason_code: "stopped",
      environment_type: "preview",
      slot: `eval-${app.revisionId.slice(4)}`,
    });

    const versions = must(await get(`/revisions/${app.revisionId}/versions`), 200, "versions");
    expect(versions.items).toHaveLength(1);
    const rev = must(await get(`/revisions/${app.revisionId}`), 200, "rev");
    const contract = must(
      await api("GET", `/v1/workspaces/${ws}/revisions/${app.revisionId}/capability-contract`, { token: owner.token }),
      200,
      "contract",
    );
    expect(versions.items[0]).toMatchObject({
      id: e.version_id,
      number: 1,
      label: "v1",
      revision_id: app.revisionId,
      product_id: app.productId,
      qualification_id: e.id,
      qualified: true,
      contract_hash: contract.contract_hash,
      descriptor_hash: rev.descriptor_hash,
    });
    expect(must(await get(`/versions/${e.version_id}`), 200, "ver")).toEqual(versions.items[0]);
    passing = { ...app, evaluation: e, version: versions.items[0] };
  });

  it("is idempotent per request key; a re-run that passes again keeps the one version", async () => {
    const same = must(
      await post(`/revisions/${passing.revisionId}/evaluations`, { request_key: "first" }),
      202,
      "replay",
    );
    expect(same.id).toBe(passing.evaluation.id);
    expect(same.status).toBe("passed");
    const again = await evaluate(owner, ws, passing.revisionId);
    expect(again.id).not.toBe(passing.evaluation.id);
    expect(again).toMatchObject({ status: "passed", version_id: passing.version.id });
    expect(await db().version.count({ where: { productId: passing.productId } })).toBe(1);
    expect(must(await get(`/revisions/${passing.revisionId}/evaluations`), 200, "list").items).toHaveLength(2);
  });

  it("a failing revision: the findings name the failing check, later checks are skipped, no version", async () => {
    const app = await confirmedApp(owner, ws, { files: { "server.js": BROKEN_ROOT } }, HEALTH_EDIT);
    const e = await evaluate(owner, ws, app.revisionId);
    expect(e).toMatchObject({ status: "failed", verdict: "fail", version_id: null });
    expect(e.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`)).toEqual([
      "descriptor:passed",
      "contract:passed",
      "deployment:passed",
      "surface:passed",
      "smoke:failed",
      "logs:skipped",
    ]);
    expect(e.findings).toEqual([
      expect.objectContaining({
        check: "smoke",
        code: "smoke_server_error",
        severity: "error",
        message: "GET / answered 500.",
      }),
    ]);
    expect(e.findings[0].id).toMatch(/^fnd_/);
    expect(must(await get(`/revisions/${app.revisionId}/versions`), 200, "versions").items).toEqual([]);
  });

  it("a crash in the app's log fails the logs check even when every request answered", async () => {
    const app = await confirmedApp(owner, ws, { files: { "server.js": REJECTS_ON_ROOT } }, HEALTH_EDIT);
    const e = await evaluate(owner, ws, app.revisionId);
    expect(e.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`)).toEqual([
      "descriptor:passed",
      "contract:passed",
      "deployment:passed",
      "surface:passed",
      "smoke:passed",
      "logs:failed",
    ]);
    expect(e.findings).toEqual([expect.objectContaining({ check: "logs", code: "log_crash" })]);
    expect(e.findings[0].message).toContain("db connection lost");
    expect(e).toMatchObject({ verdict: "fail", version_id: null });
  });

  it("an unconfirmed revision fails at the descriptor check without deploying anything", async () => {
    const app = await freezeApp(owner, ws);
    const e = await evaluate(owner, ws, app.revisionId);
    expect(e.checks.map((c: { status: string }) => c.status)).toEqual([
      "failed",
      "skipped",
      "skipped",
      "skipped",
      "skipped",
      "skipped",
    ]);
    expect(e.findings[0]).toMatchObject({ check: "descriptor", code: "descriptor_unconfirmed" });
    expect(e.deployment_id).toBeNull();
    unconfirmedFinding = e.findings[0].id;
  });

  it("refuses unknown fields, other workspaces' revisions and viewers-from-elsewhere", async () => {
    expect((await post(`/revisions/${passing.revisionId}/evaluations`, { x: 1 })).status).toBe(422);
    expect(
      (
        await api("POST", `/v1/workspaces/${strangerWs}/revisions/${passing.revisionId}/evaluations`, {
          token: stranger.token,
          body: {},
        })
      ).status,
    ).toBe(404);
    expect(
      (await api("GET", `/v1/workspaces/${strangerWs}/evaluations/${passing.evaluation.id}`, { token: stranger.token }))
        .status,
    ).toBe(404);
    expect(
      (await api("GET", `/v1/workspaces/${strangerWs}/versions/${passing.version.id}`, { token: stranger.token }))
        .status,
    ).toBe(404);
    expect((await get(`/versions/${passing.version.id}`, stranger.token)).status).toBe(403);
    expect((await get(`/evaluations/${passing.evaluation.id}`, stranger.token)).status).toBe(403);
  });
});

describe("releases", () => {
  let widening: Awaited<ReturnType<typeof changeableApp>>;
  let v1: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  let v2: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  let first: any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it("draft -> ready (deployed to staging with a release source) -> live once the deployment is active", async () => {
    widening = await changeableApp(owner, ws);
    must(
      await post(`/products/${widening.productId}/revisions/${widening.revisionId}/descriptor:confirm`, {
        edits: HEALTH_EDIT,
      }),
      200,
      "confirm",
    );
    const e = await evaluate(owner, ws, widening.revisionId);
    expect(e.status).toBe("passed");
    v1 = must(await get(`/versions/${e.version_id}`), 200, "v1");

    const created = await post("/releases", releaseBody(widening.productId, v1.id), developer.token);
    expect(created.status).toBe(201);
    first = created.json;
    expect(first).toMatchObject({
      status: "draft",
      channel: "staged",
      audience: { kind: "workspace" },
      frozen_at: null,
      reason_code: null,
      version_id: v1.id,
      deployment_id: null,
      widening: null,
    });
    expect(first.id).toMatch(/^rel_/);
    expect(await audits(first.id)).toEqual(["release.created"]);

    const deployed = await post(`/releases/${first.id}/deployments`, {}, developer.token);
    expect(deployed.status).toBe(202);
    expect(deployed.json.release).toMatchObject({ status: "ready", deployment_id: deployed.json.deployment.id });
    expect(deployed.json.release.frozen_at).not.toBeNull();
    expect(deployed.json.deployment).toMatchObject({
      environment_type: "staging",
      revision_id: v1.revision_id,
      status: "planned",
      source: { kind: "release", release_id: first.id, version_id: v1.id },
    });
    expect(
      must(await get(`/deployments?release_id=${first.id}`), 200, "by release").items.map((d: { id: string }) => d.id),
    ).toEqual([deployed.json.deployment.id]);
    // A second deploy of the same release is refused: it is no longer a draft.
    expect(await post(`/releases/${first.id}/deployments`, {})).toMatchObject({
      status: 409,
      json: { reason: "release_not_deployable" },
    });

    await processReleaseWindows();
    expect(must(await get(`/releases/${first.id}`), 200, "rel").status).toBe("ready");
    await processPlannedDeployments(5);
    expect(must(await get(`/deployments/${deployed.json.deployment.id}`), 200, "dep").status).toBe("active");
    await processReleaseWindows();
    first = must(await get(`/releases/${first.id}`), 200, "rel");
    expect(first.status).toBe("live");
    expect(first.history.map((h: { status: string }) => h.status)).toEqual(["draft", "ready", "live"]);
  });

  it("a version whose contract widens the live one waits in pending_approval until an owner approves (adjudication.decided)", async () => {
    const rev2 = await widening.refreeze({
      "capabilities.json": JSON.stringify({ capabilities: [kvCapability({ scope: { max_keys: 500 } })] }),
    });
    must(
      await post(`/products/${widening.productId}/revisions/${rev2}/descriptor:confirm`, {
        edits: HEALTH_EDIT,
        approve_widening: true,
      }),
      200,
      "confirm",
    );
    const e = await evaluate(owner, ws, rev2);
    expect(e.status).toBe("passed");
    v2 = must(await get(`/versions/${e.version_id}`), 200, "v2");
    expect(v2).toMatchObject({ number: 2, label: "v2" });

    const created = must(
      await post(
        "/releases",
        releaseBody(widening.productId, v2.id, { window: window(-1000, 60_000) }),
        developer.token,
      ),
      201,
      "release",
    );
    expect(created).toMatchObject({
      status: "pending_approval",
      reason_code: "scope_widened",
      widening: { baseline_release_id: first.id },
    });
    expect(created.widening.why).toContain("max_keys");
    expect(await post(`/releases/${created.id}/deployments`, {}, developer.token)).toMatchObject({
      status: 409,
      json: { reason: "approval_required" },
    });
    expect((await post(`/releases/${created.id}:approve`, {}, developer.token)).status).toBe(403);

    // A second request for the same widening is rejected: blocked, with the reason recorded.
    const other = must(await post("/releases", releaseBody(widening.productId, v2.id)), 201, "other");
    expect(other.status).toBe("pending_approval");
    expect((await post(`/releases/${other.id}:reject`, { note: "no" }, developer.token)).status).toBe(403);
    const rejected = must(await post(`/releases/${other.id}:reject`, { note: "one is enough" }), 200, "reject");
    expect(rejected).toMatchObject({
      status: "blocked",
      reason_code: "approval_rejected",
      adjudication: { decision: "reject", note: "one is enough" },
    });
    expect(await audits(other.id)).toEqual(["release.created", "adjudication.decided"]);

    const approved = must(
      await post(`/releases/${created.id}:approve`, { note: "kv limit raised on purpose" }),
      200,
      "approve",
    );
    expect(approved).toMatchObject({
      status: "draft",
      reason_code: null,
      adjudication: { decision: "approve", note: "kv limit raised on purpose", decided_by: owner.userId },
    });
    expect(approved.adjudication.id).toMatch(/^adj_/);
    expect(await audits(created.id)).toEqual(["release.created", "adjudication.decided"]);
    expect((await post(`/releases/${created.id}:approve`, {})).status).toBe(409);

    // Deployed and live: the newer release retires the first one; the window's end retires it in turn.
    const deployed = must(
      await post(`/releases/${created.id}/deployments`, { environment_type: "staging" }),
      202,
      "deploy",
    );
    await processPlannedDeployments(5);
    await processReleaseWindows();
    const live = must(await get(`/releases/${created.id}`), 200, "rel");
    expect(live.status).toBe("live");
    expect(must(await get(`/releases/${first.id}`), 200, "first")).toMatchObject({
      status: "retired",
      reason_code: "superseded",
    });
    expect(must(await get(`/deployments/${first.deployment_id}`), 200, "old dep")).toMatchObject({
      status: "superseded",
      reason_code: "superseded",
    });

    await processReleaseWindows(new Date(Date.parse(live.window.ends_at) - 1000));
    expect(must(await get(`/releases/${created.id}`), 200, "rel").status).toBe("live");
    await processReleaseWindows(new Date(Date.parse(live.window.ends_at) + 1));
    const retired = must(await get(`/releases/${created.id}`), 200, "rel");
    expect(retired).toMatchObject({ status: "retired", reason_code: "window_ended" });
    expect(retired.history.map((h: { status: string }) => h.status)).toEqual([
      "pending_approval",
      "draft",
      "ready",
      "live",
      "retired",
    ]);
    expect(must(await get(`/deployments/${deployed.deployment.id}`), 200, "dep")).toMatchObject({
      status: "superseded",
      reason_code: "stopped",
    });
  });

  it("without a live release nothing needs approval; a window already over is created blocked", async () => {
    const widerStill = await widening.refreeze({
      "capabilities.json": JSON.stringify({ capabilities: [kvCapability({ scope: { max_keys: 900 } })] }),
    });
    must(
      await post(`/products/${widening.productId}/revisions/${widerStill}/descriptor:confirm`, {
        edits: HEALTH_EDIT,
        approve_widening: true,
      }),
      200,
      "confirm",
    );
    // Nothing is live any more: no baseline, no approval needed.
    const e = await evaluate(owner, ws, widerStill);
    const draft = must(await post("/releases", releaseBody(widening.productId, e.version_id)), 201, "release");
    expect(draft.status).toBe("draft");
    const over = must(
      await post(
        "/releases",
        releaseBody(widening.productId, v1.id, {
          window: { starts_at: "2020-01-01T00:00:00Z", ends_at: "2020-02-01T00:00:00Z" },
        }),
      ),
      201,
      "over",
    );
    expect(over).toMatchObject({ status: "blocked", reason_code: "window_ended" });
    expect(await post(`/releases/${over.id}/deployments`, {})).toMatchObject({
      status: 409,
      json: { reason: "release_not_deployable" },
    });
  });

  it("refuses bad input with a problem naming the field, and creates nothing", async () => {
    const before = {
      releases: await db().release.count({ where: { workspaceId: ws } }),
      staging: await db().deployment.count({ where: { workspaceId: ws, environmentType: "staging" } }),
    };
    const refuse = async (body: unknown, field: string, reason?: string) => {
      const r = await post("/releases", body);
      expect(r.status, r.text).toBe(422);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.json.errors.map((x: { path: string }) => x.path)).toContain(field);
      if (reason) expect(r.json.reason).toBe(reason);
    };
    await refuse(releaseBody(passing.productId, passing.version.id, { channel: "production" }), "/channel");
    await refuse(releaseBody(passing.productId, passing.version.id, { channel: "preview_internal" }), "/channel");
    await refuse(
      releaseBody(passing.productId, passing.version.id, {
        window: { starts_at: "2030-01-02T00:00:00Z", ends_at: "2030-01-01T00:00:00Z" },
      }),
      "/window/ends_at",
    );
    await refuse(
      releaseBody(passing.productId, passing.version.id, {
        window: { starts_at: "2030-01-02T00:00:00+01:00", ends_at: null },
      }),
      "/window/starts_at",
    );
    await refuse(releaseBody(passing.productId, newId("ver")), "/version_id", "version_not_found");
    await refuse(releaseBody(passing.productId, v1.id), "/version_id", "version_product_mismatch");

    // Another workspace's version (and product) are unknown here.
    const theirs = await confirmedApp(stranger, strangerWs, {}, HEALTH_EDIT);
    const theirEval = await evaluate(stranger, strangerWs, theirs.revisionId);
    await refuse(releaseBody(passing.productId, theirEval.version_id), "/version_id", "version_not_found");
    await refuse(releaseBody(theirs.productId, passing.version.id), "/product_id", "product_not_found");

    // A version whose latest evaluation failed (a re-run found it broken) is not qualified.
    const q = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
    const good = await evaluate(owner, ws, q.revisionId);
    await db().evaluation.create({
      data: {
        id: newId("qual"),
        workspaceId: ws,
        productId: q.productId,
        revisionId: q.revisionId,
        requestKey: "rerun",
        status: "failed",
        verdict: "fail",
        correlationId: newId("evt"),
        createdBy: owner.userId,
        finishedAt: new Date(Date.now() + 1000),
      },
    });
    expect(must(await get(`/versions/${good.version_id}`), 200, "ver").qualified).toBe(false);
    await refuse(releaseBody(q.productId, good.version_id), "/version_id", "version_unqualified");

    // A release deployment to production.
    const draft = must(await post("/releases", releaseBody(passing.productId, passing.version.id)), 201, "draft");
    const r = await post(`/releases/${draft.id}/deployments`, { environment_type: "production" });
    expect(r.status).toBe(422);
    expect(r.json.errors.map((x: { path: string }) => x.path)).toEqual(["/environment_type"]);
    expect(must(await get(`/releases/${draft.id}`), 200, "rel")).toMatchObject({
      status: "draft",
      deployment_id: null,
      frozen_at: null,
    });
    expect(await db().release.count({ where: { workspaceId: ws } })).toBe(before.releases + 1);
    expect(await db().deployment.count({ where: { workspaceId: ws, environmentType: "staging" } })).toBe(
      before.staging,
    );
  });

  it("concurrent deploys of one draft: exactly one deployment, the others 409 and nothing half-written", async () => {
    const draft = must(await post("/releases", releaseBody(passing.productId, passing.version.id)), 201, "draft");
    const all = await Promise.all(Array.from({ length: 5 }, () => post(`/releases/${draft.id}/deployments`, {})));
    expect(all.map((r) => r.status).sort()).toEqual([202, 409, 409, 409, 409]);
    const rows = await db().deployment.findMany({ where: { releaseId: draft.id } });
    expect(rows).toHaveLength(1);
    expect(must(await get(`/releases/${draft.id}`), 200, "rel")).toMatchObject({
      status: "ready",
      deployment_id: rows[0]!.id,
    });
    must(await post(`/deployments/${rows[0]!.id}:stop`, {}), 200, "stop");
    await processReleaseWindows();
    expect(must(await get(`/releases/${draft.id}`), 200, "rel")).toMatchObject({
      status: "blocked",
      reason_code: "deployment_failed",
    });
  });

  it("concurrent evaluation requests with one key make one evaluation", async () => {
    const all = await Promise.all(
      Array.from({ length: 6 }, () =>
        post(`/revisions/${passing.revisionId}/evaluations`, { request_key: "together" }),
      ),
    );
    expect(all.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202]);
    expect(new Set(all.map((r) => r.json.id)).size).toBe(1);
    expect(await db().evaluation.count({ where: { revisionId: passing.revisionId, requestKey: "together" } })).toBe(1);
    await evaluate(owner, ws, passing.revisionId, { request_key: "together" });
  });

  it("hides releases from other workspaces (404) and non-members (403)", async () => {
    expect(
      (await api("GET", `/v1/workspaces/${strangerWs}/releases/${first.id}`, { token: stranger.token })).status,
    ).toBe(404);
    expect(
      (
        await api("POST", `/v1/workspaces/${strangerWs}/releases/${first.id}/deployments`, {
          token: stranger.token,
          body: {},
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api("POST", `/v1/workspaces/${strangerWs}/releases/${first.id}:approve`, {
          token: stranger.token,
          body: {},
        })
      ).status,
    ).toBe(404);
    expect((await get(`/releases/${first.id}`, stranger.token)).status).toBe(403);
    expect(
      must(await api("GET", `/v1/workspaces/${strangerWs}/releases`, { token: stranger.token }), 200, "list").items,
    ).toEqual([]);
  });
});

describe("fixes", () => {
  const fixes = (prod: string, rev: string) => `/products/${prod}/revisions/${rev}/fixes`;
  const codes = (r: { findings: Array<{ code: string }> }) => r.findings.map((f) => f.code);

  it("a missing start script: a patch for the failing evaluation's finding; approving it freezes a new revision that evaluates green", async () => {
    const app = await confirmedApp(owner, ws, { scripts: { start: undefined as unknown as string } }, HEALTH_EDIT);
    const rev = must(await get(`/revisions/${app.revisionId}`), 200, "rev");
    expect(codes(rev)).toContain("no_start_command");
    const failed = await evaluate(owner, ws, app.revisionId);
    expect(failed.status).toBe("failed");
    expect(failed.checks.find((c: { name: string }) => c.name === "deployment").status).toBe("failed");
    const depFinding = failed.findings.find(
      (f: { check: string; code: string }) => f.check === "deployment" && f.code === "deployment_failed",
    );
    expect(depFinding).toBeDefined();

    const fix = must(
      await post(fixes(app.productId, app.revisionId), { finding_id: depFinding.id }, developer.token),
      201,
      "fix",
    );
    expect(fix).toMatchObject({
      status: "proposed",
      rule: "missing_start_script",
      kind: "source_patch",
      new_revision_id: null,
      decision: null,
      descriptor_edits: null,
      finding: { id: depFinding.id, check: "deployment", code: "deployment_failed" },
      revision_id: app.revisionId,
    });
    expect(fix.id).toMatch(/^fix_/);
    expect(fix.diff.startsWith("--- a/package.json\n+++ b/package.json\n@@ ")).toBe(true);
    const added = fix.diff.split("\n").filter((l: string) => l.startsWith("+") && !l.startsWith("+++"));
    expect(added).toHaveLength(1);
    expect(added[0]).toContain('"start":"node server.js"');
    expect(must(await get(`${fixes(app.productId, app.revisionId)}/${fix.id}`), 200, "get")).toEqual(fix);
    expect(await audits(fix.id)).toEqual(["fix.requested"]);

    // The detection finding gets the same proposal; a rejection says why.
    const byCode = must(
      await post(fixes(app.productId, app.revisionId), { finding_code: "no_start_command" }),
      201,
      "by code",
    );
    expect(byCode).toMatchObject({ rule: "missing_start_script", finding: { id: null, code: "no_start_command" } });
    expect((await post(`${fixes(app.productId, app.revisionId)}/${byCode.id}:reject`, {})).status).toBe(422);
    expect(
      must(
        await post(`${fixes(app.productId, app.revisionId)}/${byCode.id}:reject`, { note: "duplicate" }),
        200,
        "reject",
      ),
    ).toMatchObject({
      status: "rejected",
      new_revision_id: null,
      decision: { decision: "reject", note: "duplicate", decided_by: owner.userId },
    });
    expect(await audits(byCode.id)).toEqual(["fix.requested", "fix.decided"]);

    const approved = must(await post(`${fixes(app.productId, app.revisionId)}/${fix.id}:approve`, {}), 200, "approve");
    expect(approved).toMatchObject({ status: "approved", decision: { decision: "approve", decided_by: owner.userId } });
    expect(approved.new_revision_id).toMatch(/^rev_/);
    expect(await audits(fix.id)).toEqual(["fix.requested", "fix.decided"]);
    expect(await post(`${fixes(app.productId, app.revisionId)}/${fix.id}:approve`, {})).toMatchObject({
      status: 409,
      json: { reason: "fix_decided" },
    });
    expect(
      must(await get(fixes(app.productId, app.revisionId)), 200, "list")
        .items.map((f: { id: string }) => f.id)
        .sort(),
    ).toEqual([fix.id, byCode.id].sort());

    // The original revision and snapshot are untouched; the new one is a new freeze of the patched source.
    expect(must(await get(`/revisions/${app.revisionId}`), 200, "original")).toMatchObject({
      snapshot: rev.snapshot,
      descriptor_status: "confirmed",
    });
    const fixed = must(await get(`/revisions/${approved.new_revision_id}`), 200, "fixed");
    expect(fixed).toMatchObject({ product_id: app.productId, descriptor_status: "detected", confirmed_by: null });
    expect(fixed.snapshot.sha256).not.toBe(rev.snapshot.sha256);
    expect(codes(fixed)).not.toContain("no_start_command");
    expect(fixed.descriptor.build_plan.start.command).toBe("npm run start");
    const pkg = JSON.parse(
      (await readSnapshotFile((await blobStore().get(fixed.snapshot.sha256))!, "package.json"))!.toString("utf8"),
    );
    expect(pkg.scripts.start).toBe("node server.js");
    const freeze = must(await get(`/source-freezes/${fixed.source_freeze_id}`), 200, "freeze");
    expect(freeze).toMatchObject({ status: "frozen", ref: `fix:${fix.id}` });

    must(
      await post(`/products/${app.productId}/revisions/${fixed.id}/descriptor:confirm`, { edits: HEALTH_EDIT }),
      200,
      "confirm",
    );
    const green = await evaluate(owner, ws, fixed.id);
    expect(green).toMatchObject({ status: "passed", verdict: "pass", findings: [] });
    expect(must(await get(`/versions/${green.version_id}`), 200, "ver")).toMatchObject({
      label: "v1",
      revision_id: fixed.id,
    });
  });

  it("a contract with an unknown action gets a capabilities.json patch whose revision's contract is valid", async () => {
    const app = await freezeApp(owner, ws, { capabilities: [kvCapability({ actions: ["get", "teleport"] })] });
    expect(must(await get(`/revisions/${app.revisionId}`), 200, "rev").capability_contract).toEqual({
      status: "rejected",
      reason: "unknown_action",
    });
    const fix = must(
      await post(fixes(app.productId, app.revisionId), { finding_code: "contract_rejected" }),
      201,
      "fix",
    );
    expect(fix).toMatchObject({ rule: "capabilities_schema", kind: "source_patch" });
    expect(fix.summary).toContain("teleport");
    const approved = must(
      await post(`${fixes(app.productId, app.revisionId)}/${fix.id}:approve`, { note: "drop it" }),
      200,
      "approve",
    );
    const fixed = must(await get(`/revisions/${approved.new_revision_id}`), 200, "fixed");
    expect(fixed.capability_contract).toBeUndefined();
    must(await post(`/products/${app.productId}/revisions/${fixed.id}/descriptor:confirm`, {}), 200, "confirm");
    const contract = must(
      await api("GET", `/v1/workspaces/${ws}/revisions/${fixed.id}/capability-contract`, { token: owner.token }),
      200,
      "contract",
    );
    expect(contract.capabilities[0].actions).toEqual(["get"]);
  });

  it("refuses bad input with a problem naming the field and writes nothing; hides other workspaces' fixes", async () => {
    const before = await db().fix.count({ where: { workspaceId: ws } });
    const path = fixes(passing.productId, passing.revisionId);
    const refuse = async (body: unknown, field: string, reason?: string) => {
      const r = await post(path, body);
      expect(r.status, r.text).toBe(422);
      expect(r.json.errors[0].path).toBe(field);
      if (reason) expect(r.json.reason).toBe(reason);
    };
    await refuse({}, "/finding_id");
    await refuse({ finding_id: unconfirmedFinding, finding_code: "no_start_command" }, "/finding_id");
    await refuse({ finding_code: "no_start_command" }, "/finding_code", "finding_not_found");
    await refuse({ finding_id: newId("fnd") }, "/finding_id", "finding_not_found");
    await refuse({ finding_id: "fnd_nope" }, "/finding_id");
    const unconfirmedRev = (
      await db().evaluation.findFirstOrThrow({ where: { findings: { array_contains: [{ id: unconfirmedFinding }] } } })
    ).revisionId;
    const prod = (await db().revision.findUniqueOrThrow({ where: { id: unconfirmedRev } })).productId;
    const r = await post(fixes(prod, unconfirmedRev), { finding_id: unconfirmedFinding });
    expect(r).toMatchObject({ status: 422, json: { reason: "no_fix_rule", errors: [{ path: "/finding_id" }] } });
    expect(await db().fix.count({ where: { workspaceId: ws } })).toBe(before);
    // Another product's path, another workspace.
    expect((await post(fixes(prod, passing.revisionId), { finding_code: "x" })).status).toBe(404);
    expect(
      (await api("POST", `/v1/workspaces/${strangerWs}${path}`, { token: stranger.token, body: { finding_code: "x" } }))
        .status,
    ).toBe(404);
    const any = await db().fix.findFirstOrThrow({ where: { workspaceId: ws } });
    expect(
      (
        await api(
          "GET",
          `/v1/workspaces/${strangerWs}/products/${any.productId}/revisions/${any.revisionId}/fixes/${any.id}`,
          { token: stranger.token },
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await api(
          "POST",
          `/v1/workspaces/${strangerWs}/products/${any.productId}/revisions/${any.revisionId}/fixes/${any.id}:approve`,
          { token: stranger.token, body: {} },
        )
      ).status,
    ).toBe(404);
    expect(
      (await get(`/products/${any.productId}/revisions/${any.revisionId}/fixes/${any.id}`, stranger.token)).status,
    ).toBe(403);
  });
});
