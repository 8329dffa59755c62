import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { resetSessionRateLimits } from "@/server/domain/sessions/admission";
import { handleEvidenceDownload, handleUpload } from "./support/handlers";
import { blobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { resetHostProbe } from "@/server/runtime/sandbox";
import { runner } from "@/server/runtime";
import { isAlive } from "@/server/runtime/process-table";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { aiCapability, bootBridgeApp, kvCapability } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * Access, sessions and invocations against a real deployed app: every
 * admission reason reached by a real request, managed execution with
 * evidence and measured usage, the runtime budget under concurrency, the
 * gap-free sequence, and bad input that changes nothing.
 */
let owner: TTestUser;
let viewer: TTestUser;
let developer: TTestUser;
let stranger: TTestUser;
let ws: string;
let dep: any; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  await bootBridgeApp();
  [owner, viewer, developer, stranger] = await Promise.all([makeUser(), makeUser(), makeUser(), makeUser()]);
  ws = (await makeWorkspace(owner.token)).id;
  for (const [u, role] of [
    [viewer, "viewer"],
    [developer, "developer"],
  ] as const) {
    must(
      await api("PUT", `/v1/workspaces/${ws}/members/${u.userId}`, { token: owner.token, body: { role } }),
      200,
      "member",
    );
  }
  const app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
  dep = await deploy(owner, ws, app.revisionId);
  if (dep.status !== "active") throw new Error(JSON.stringify(dep));
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

const openSession = async (u: TTestUser, srf = dep.surface_id) =>
  must(await api("POST", "/v1/sessions", { token: u.token, body: { surface_id: srf } }), 201, "session");
const invoke = (u: TTestUser, ses: string, body: Record<string, unknown>) =>
  api("POST", `/v1/sessions/${ses}/invocations`, {
    token: u.token,
    body: { kind: "http_request", body_evidence: null, ...body },
  });
async function upload(u: TTestUser, text: string) {
  const res = await handleUpload(
    new Request(`http://localhost:3000/v1/workspaces/${ws}/uploads`, {
      method: "POST",
      body: text,
      headers: { authorization: `Bearer ${u.token}`, "content-type": "text/plain" },
    }),
    ws,
  );
  const j = await res.json();
  return { uri: j.uri, sha256: j.sha256, size_bytes: j.size_bytes };
}
const text = async (ev: { sha256: string } | null) =>
  ev ? (await blobStore().get(ev.sha256))!.toString("utf8") : null;

describe("access", () => {
  it("qualifies a member once and reuses the access, also under concurrency", async () => {
    const all = await Promise.all(
      Array.from({ length: 8 }, () =>
        api("POST", `/v1/surfaces/${dep.surface_id}/access`, { token: developer.token, body: {} }),
      ),
    );
    for (const r of all) expect(r.status).toBe(200);
    expect(new Set(all.map((r) => r.json.id)).size).toBe(1);
    expect(all.filter((r) => !r.json.reused_existing_access)).toHaveLength(1);
    expect(all[0]!.json).toMatchObject({
      account_id: developer.userId,
      surface_id: dep.surface_id,
      deployment_id: dep.id,
      product_id: dep.product_id,
      access_entry: "direct_surface",
      entitlement_source: "direct",
    });
    expect(Date.parse(all[0]!.json.expires_at)).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000);
    expect(await db().access.count({ where: { surfaceId: dep.surface_id, accountId: developer.userId } })).toBe(1);
    expect(await db().auditRecord.count({ where: { action: "access.qualified", actorId: developer.userId } })).toBe(1);
  });

  it("hides another workspace's surface (404, access.denied audited) and refuses bodies with fields", async () => {
    const r = await api("POST", `/v1/surfaces/${dep.surface_id}/access`, { token: stranger.token, body: {} });
    expect(r.status).toBe(404);
    expect(await db().auditRecord.count({ where: { action: "access.denied", actorId: stranger.userId } })).toBe(1);
    expect(
      (await api("POST", `/v1/surfaces/${dep.surface_id}/access`, { token: owner.token, body: { x: 1 } })).status,
    ).toBe(422);
    expect(
      (await api("POST", `/v1/surfaces/srf_01jh0000000000000000000000/access`, { token: owner.token, body: {} }))
        .status,
    ).toBe(404);
    expect((await api("POST", `/v1/surfaces/${dep.surface_id}/access`, { body: {} })).status).toBe(401);
  });
});

describe("an admitted invocation", () => {
  it("executes a GET and a POST with a body, returning the app's status and body as evidence", async () => {
    const ses = await openSession(owner);
    expect(ses).toMatchObject({
      state: "active",
      surface_id: dep.surface_id,
      account_id: owner.userId,
      environment_id: dep.environment_id,
      closed_at: null,
    });
    const get = await invoke(owner, ses.id, { method: "GET", path: "/hello" });
    expect(get.status).toBe(201);
    expect(get.json.admission).toMatchObject({
      outcome: "admitted",
      reason: "admitted",
      pending_operation_id: null,
      execution_id: get.json.execution.execution_id,
    });
    expect(get.json.admission.checks).toEqual(
      ["permission", "policy", "binding", "verification", "usage"].map((name) => ({ name, status: "passed" })),
    );
    expect(get.json.execution).toMatchObject({
      status: "completed",
      failure: null,
      execution_mode: "managed",
      deployment_id: dep.id,
      result: { http_status: 200 },
    });
    expect(await text(get.json.execution.result.body_evidence)).toBe("hello from the app at /hello");
    // Server-Timing names every phase (issue #34 item 5); Capstan-Overhead-Ms is everything but the app's own time.
    const timing = Object.fromEntries(
      (get.headers.get("server-timing") ?? "")
        .split(", ")
        .map((p) => p.split(";dur="))
        .map(([k, v]) => [k, Number(v)]),
    );
    expect(Object.keys(timing)).toEqual([
      "auth",
      "context",
      "admission",
      "insert",
      "app",
      "execution",
      "record",
      "overhead",
      "total",
    ]);
    expect(timing.app).toBeGreaterThan(0);
    expect(Number(get.headers.get("capstan-overhead-ms"))).toBeCloseTo(timing.total! - timing.app!, 1);

    const body = await upload(owner, "name=capstan");
    const query = await upload(owner, "a=1&b=two");
    const post = await invoke(owner, ses.id, {
      method: "POST",
      path: "/echo",
      body_evidence: body,
      query_evidence: query,
    });
    expect(post.status).toBe(201);
    const echoed = JSON.parse((await text(post.json.execution.result.body_evidence))!);
    expect(echoed).toMatchObject({
      method: "POST",
      path: "/echo",
      query: "?a=1&b=two",
      body: "name=capstan",
      authorization: null,
      content_type: "text/plain",
    });
    expect(await text(post.json.execution.log_evidence)).toContain("echo POST /echo");
    expect([get.json.sequence, post.json.sequence]).toEqual([0, 1]);

    const read = must(
      await api("GET", `/v1/sessions/${ses.id}/invocations/${post.json.id}`, { token: owner.token }),
      200,
      "read",
    );
    expect(read).toEqual(post.json);

    // Evidence downloads: the workspace's own blobs only.
    const sha = post.json.execution.result.body_evidence.sha256;
    const download = (u: TTestUser, w: string) =>
      handleEvidenceDownload(
        new Request(`http://localhost:3000/v1/workspaces/${w}/evidence/${sha}`, {
          headers: { authorization: `Bearer ${u.token}` },
        }),
        w,
        sha,
      );
    const mine = await download(viewer, ws);
    expect(mine.status).toBe(200);
    expect(mine.headers.get("content-type")).toBe("application/json");
    expect(mine.headers.get("x-content-type-options")).toBe("nosniff");
    expect(JSON.parse(await mine.text())).toEqual(echoed);
    expect((await download(stranger, ws)).status).toBe(403);
    const theirs = (await makeWorkspace(stranger.token)).id;
    expect((await download(stranger, theirs)).status).toBe(404);
    const bad = await handleEvidenceDownload(
      new Request(`http://localhost:3000/v1/workspaces/${ws}/evidence/..%2F..`, {
        headers: { authorization: `Bearer ${owner.token}` },
      }),
      ws,
      "../..",
    );
    expect(bad.status).toBe(400);
  });

  it("measures real usage: non-zero CPU for CPU work, never more than duration x cores", async () => {
    const ses = await openSession(owner);
    const runtimeBudget = async () => {
      await returnLeases(); // an invocation draws from a runtime lease: its unused part goes back first
      return must(await api("GET", `/v1/workspaces/${ws}/budgets`, { token: owner.token }), 200, "budgets").items.find(
        (b: { usage_category: string }) => b.usage_category === "runtime",
      );
    };
    const before = await runtimeBudget();
    const r = await invoke(owner, ses.id, {
      method: "GET",
      path: "/burn",
      query_evidence: await upload(owner, "ms=300"),
    });
    const u = r.json.execution.usage;
    expect(u.duration_ms).toBeGreaterThanOrEqual(300);
    expect(u.cpu_ms).toBeGreaterThanOrEqual(100);
    expect(u.cpu_ms).toBeLessThanOrEqual(u.duration_ms * 2);
    expect(u.memory_peak_bytes).toBeGreaterThan(10 * 1024 * 1024);
    // Charged exactly the measured duration, in the record's own statement; nothing left reserved.
    const budget = await runtimeBudget();
    expect(budget.used_units - before.used_units).toBe(u.duration_ms);
    expect(budget.reserved_units).toBe(0);
  });

  it("hands the app a runner token: its Bridge call carries the execution id", async () => {
    const ses = await openSession(owner);
    const r = await invoke(owner, ses.id, { method: "GET", path: "/runner" });
    const answer = JSON.parse((await text(r.json.execution.result.body_evidence))!);
    expect(answer).toMatchObject({ status: 200, result: { outcome: "completed" } });
    const call = await db().capabilityInvocation.findUniqueOrThrow({
      where: { id: answer.result.capability_invocation_id },
    });
    expect(call).toMatchObject({
      executionId: r.json.execution.execution_id,
      bridgeInvocationId: r.json.id,
      deploymentId: dep.id,
    });
  });

  it("maps an app 5xx to product_error, a deadline to timed_out and a dead process to runtime_error", async () => {
    const ses = await openSession(owner);
    const fail = await invoke(owner, ses.id, { method: "GET", path: "/fail" });
    expect(fail.json.execution).toMatchObject({
      status: "failed",
      failure: { code: "product_error" },
      result: { http_status: 500 },
    });

    process.env.CAPSTAN_INVOCATION_TIMEOUT_MS = "500";
    resetEnvCache();
    try {
      const slow = await invoke(owner, ses.id, {
        method: "GET",
        path: "/slow",
        query_evidence: await upload(owner, "ms=3000"),
      });
      expect(slow.json.execution).toMatchObject({
        status: "timed_out",
        failure: { code: "timeout" },
        result: { http_status: null, body_evidence: null },
      });
      expect(slow.json.execution.usage.duration_ms).toBeGreaterThanOrEqual(450);
      expect(slow.json.execution.usage.duration_ms).toBeLessThan(2500);
    } finally {
      delete process.env.CAPSTAN_INVOCATION_TIMEOUT_MS;
      resetEnvCache();
    }

    // The app crashes (after answering); until the reconciler notices, the next request finds no process.
    const app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
    const doomed = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "crash" });
    const crashSes = await openSession(owner, doomed.surface_id);
    const crash = await invoke(owner, crashSes.id, { method: "GET", path: "/crash" });
    expect(crash.json.execution).toMatchObject({ status: "completed", result: { http_status: 200 } });
    const state = (await db().deployment.findUniqueOrThrow({ where: { id: doomed.id } })).runtime as {
      pid: number;
      start_time: string;
    };
    for (let i = 0; i < 100 && (await isAlive(state.pid, state.start_time)); i++)
      await new Promise((r) => setTimeout(r, 50));
    const after = await invoke(owner, crashSes.id, { method: "GET", path: "/hello" });
    expect(after.json.admission.outcome).toBe("admitted");
    expect(after.json.execution).toMatchObject({
      status: "failed",
      failure: { code: "runtime_error" },
      result: { http_status: null, body_evidence: null },
    });
    expect(after.json.execution.failure.message).toMatch(/could not be reached/);
  });
});

describe("admission denials, one per reason, each from a real request", () => {
  it("permission_denied: someone else's session", async () => {
    const ses = await openSession(developer);
    const r = await invoke(owner, ses.id, { method: "GET", path: "/hello" });
    expect(r.status).toBe(201);
    expect(r.json.admission).toMatchObject({ outcome: "denied", reason: "permission_denied", execution_id: null });
    expect(r.json.admission.checks).toEqual([
      { name: "permission", status: "failed" },
      { name: "policy", status: "skipped" },
      { name: "binding", status: "skipped" },
      { name: "verification", status: "skipped" },
      { name: "usage", status: "skipped" },
    ]);
    expect(r.json.execution).toBeNull();
  });

  it("pending_consent: a viewer's POST waits, then is approved (runs) or denied", async () => {
    const ses = await openSession(viewer);
    expect((await invoke(viewer, ses.id, { method: "GET", path: "/hello" })).json.admission.outcome).toBe("admitted");
    const waiting = await invoke(viewer, ses.id, {
      method: "POST",
      path: "/echo",
      body_evidence: await upload(owner, "please"),
    });
    expect(waiting.json.admission).toMatchObject({ outcome: "pending", reason: "pending_consent" });
    const pend = waiting.json.admission.pending_operation_id;
    expect(pend).toMatch(/^pend_/);
    const list = must(
      await api("GET", `/v1/workspaces/${ws}/pending-operations?status=pending`, { token: owner.token }),
      200,
      "pending",
    );
    expect(list.items.map((p: { id: string }) => p.id)).toContain(pend);
    expect(list.items.find((p: { id: string }) => p.id === pend).invocation).toMatchObject({
      id: waiting.json.id,
      session_id: ses.id,
      input: { method: "POST", path: "/echo" },
    });
    expect(
      (
        await api("POST", `/v1/workspaces/${ws}/pending-operations/${pend}:resolve`, {
          token: developer.token,
          body: { decision: "approve" },
        })
      ).status,
    ).toBe(403);
    const approved = must(
      await api("POST", `/v1/workspaces/${ws}/pending-operations/${pend}:resolve`, {
        token: owner.token,
        body: { decision: "approve" },
      }),
      200,
      "approve",
    );
    expect(approved.pending_operation).toMatchObject({ status: "approved", resolved_by: owner.userId });
    expect(approved.invocation.admission).toMatchObject({
      outcome: "admitted",
      reason: "admitted",
      pending_operation_id: pend,
    });
    expect(approved.invocation.execution).toMatchObject({ status: "completed", result: { http_status: 200 } });
    expect(
      (
        await api("POST", `/v1/workspaces/${ws}/pending-operations/${pend}:resolve`, {
          token: owner.token,
          body: { decision: "deny" },
        })
      ).status,
    ).toBe(409);

    const second = await invoke(viewer, ses.id, { method: "DELETE", path: "/echo" });
    const denied = must(
      await api(
        "POST",
        `/v1/workspaces/${ws}/pending-operations/${second.json.admission.pending_operation_id}:resolve`,
        { token: owner.token, body: { decision: "deny", note: "not today" } },
      ),
      200,
      "deny",
    );
    expect(denied.invocation.admission).toMatchObject({ outcome: "denied", reason: "permission_denied" });
    expect(denied.invocation.admission.message).toContain("not today");
    expect(denied.invocation.execution).toBeNull();
    expect(await db().auditRecord.count({ where: { action: "pending.resolved", workspaceId: ws } })).toBe(2);
  });

  it("binding_unavailable: the contract requires ai.generate and the workspace has no binding", async () => {
    const app = await confirmedApp(
      owner,
      ws,
      { capabilities: [kvCapability(), aiCapability({ required: true })] },
      HEALTH_EDIT,
    );
    const d = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "ai" });
    const ses = await openSession(owner, d.surface_id);
    const r = await invoke(owner, ses.id, { method: "GET", path: "/hello" });
    expect(r.json.admission).toMatchObject({ outcome: "denied", reason: "binding_unavailable" });
    expect(r.json.admission.message).toMatch(/ai\.generate/);
    expect(r.json.admission.checks.map((c: { status: string }) => c.status)).toEqual([
      "passed",
      "passed",
      "failed",
      "skipped",
      "skipped",
    ]);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${d.id}:stop`, { token: owner.token }), 200, "stop");
  });

  it("verification_blocked, then policy_blocked: production without a verified domain, then without the operator's consent", async () => {
    process.env.CAPSTAN_ALLOW_UNENFORCED_PRODUCTION = "1";
    // The operator's consent only matters for a deployment that is not enforced: run this one under bubblewrap.
    process.env.CAPSTAN_RUNNER_SANDBOX = "bubblewrap";
    resetEnvCache();
    resetHostProbe();
    const app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
    const d = await deploy(owner, ws, app.revisionId, { environment_type: "production" });
    delete process.env.CAPSTAN_RUNNER_SANDBOX;
    resetEnvCache();
    resetHostProbe();
    const ses = await openSession(owner, d.surface_id);
    try {
      const r = await invoke(owner, ses.id, { method: "GET", path: "/hello" });
      expect(r.json.admission).toMatchObject({ outcome: "denied", reason: "verification_blocked" });
    } finally {
      delete process.env.CAPSTAN_ALLOW_UNENFORCED_PRODUCTION;
      resetEnvCache();
    }
    const r2 = await invoke(owner, ses.id, { method: "GET", path: "/hello" });
    expect(r2.json.admission).toMatchObject({ outcome: "denied", reason: "policy_blocked" });
    expect(r2.json.admission.message).toMatch(/CAPSTAN_ALLOW_UNENFORCED_PRODUCTION/);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${d.id}:stop`, { token: owner.token }), 200, "stop");
  });

  it("rate_limited: past the session's burst", async () => {
    process.env.CAPSTAN_SESSION_RATE_PER_SEC = "0.01";
    process.env.CAPSTAN_SESSION_BURST = "2";
    resetEnvCache();
    try {
      const ses = await openSession(owner);
      const reasons = [];
      for (let i = 0; i < 3; i++)
        reasons.push((await invoke(owner, ses.id, { method: "GET", path: "/hello" })).json.admission.reason);
      expect(reasons).toEqual(["admitted", "admitted", "rate_limited"]);
    } finally {
      delete process.env.CAPSTAN_SESSION_RATE_PER_SEC;
      delete process.env.CAPSTAN_SESSION_BURST;
      resetEnvCache();
      resetSessionRateLimits();
    }
  });

  it("usage_denied, and the runtime budget is never overspent by 100 concurrent invocations against a budget for 20", async () => {
    const timeout = 30_000;
    const used =
      (await db().budget.findFirst({ where: { workspaceId: ws, usageCategory: "runtime" } }))?.usedUnits ?? 0;
    must(
      await api("PUT", `/v1/workspaces/${ws}/budgets/runtime`, {
        token: owner.token,
        body: { limit_units: Number(used) + 20 * timeout },
      }),
      200,
      "budget",
    );
    process.env.CAPSTAN_SESSION_BURST = "1000";
    resetEnvCache();
    try {
      const sessions = await Promise.all(Array.from({ length: 10 }, () => openSession(owner)));
      const raw = await Promise.all(
        Array.from({ length: 100 }, (_, i) => invoke(owner, sessions[i % 10].id, { method: "GET", path: "/slow" })),
      );
      expect(raw.filter((r) => r.status !== 201).map((r) => r.text)).toEqual([]);
      const results = raw.map((r) => r.json);
      const admitted = results.filter((r) => r.admission.outcome === "admitted");
      const denied = results.filter((r) => r.admission.reason === "usage_denied");
      expect(admitted.length).toBe(20);
      expect(denied.length).toBe(80);
      const b = await db().budget.findFirstOrThrow({ where: { workspaceId: ws, usageCategory: "runtime" } });
      expect(Number(b.usedUnits) + Number(b.reservedUnits)).toBeLessThanOrEqual(Number(b.limitUnits));
      expect(Number(b.reservedUnits)).toBe(0);
    } finally {
      delete process.env.CAPSTAN_SESSION_BURST;
      resetEnvCache();
      must(
        await api("PUT", `/v1/workspaces/${ws}/budgets/runtime`, { token: owner.token, body: { limit_units: null } }),
        200,
        "budget",
      );
    }
  });
});

describe("sequence", () => {
  it("is gap-free and strictly increasing under 50 concurrent posts", async () => {
    process.env.CAPSTAN_SESSION_BURST = "1000";
    resetEnvCache();
    try {
      const ses = await openSession(owner);
      const all = await Promise.all(
        Array.from({ length: 50 }, () => invoke(owner, ses.id, { method: "GET", path: "/hello" })),
      );
      expect(all.every((r) => r.status === 201)).toBe(true);
      expect(all.map((r) => r.json.sequence).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    } finally {
      delete process.env.CAPSTAN_SESSION_BURST;
      resetEnvCache();
    }
  });
});

describe("bad input changes nothing", () => {
  it("refuses malformed requests with 422 naming the field", async () => {
    const ses = await openSession(owner);
    const before = await db().invocation.count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ method: "GET", path: "/a?b=1" }, "/path"],
      [{ method: "GET", path: "/a#frag" }, "/path"],
      [{ method: "GET", path: "/" + "a".repeat(2048) }, "/path"],
      [{ method: "GET", path: "relative" }, "/path"],
      [{ method: "BREW", path: "/" }, "/method"],
      [{ method: "GET", path: "/", kind: "grpc" }, "/kind"],
      [{ method: "GET", path: "/", body_evidence: undefined }, "/body_evidence"],
      [
        { method: "GET", path: "/", body_evidence: { uri: "x", sha256: "NOTHEX", size_bytes: 1 } },
        "/body_evidence/sha256",
      ],
    ];
    for (const [body, pointer] of cases) {
      const r = await api("POST", `/v1/sessions/${ses.id}/invocations`, {
        token: owner.token,
        body: { kind: "http_request", body_evidence: null, ...body },
      });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(
        r.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(pointer);
    }
    expect(await db().invocation.count()).toBe(before);
  });

  it("refuses evidence whose sha256 or size does not match, or that belongs to another workspace", async () => {
    const ses = await openSession(owner);
    const before = await db().invocation.count();
    const good = await upload(owner, "hello");
    const wrongSize = await invoke(owner, ses.id, {
      method: "POST",
      path: "/echo",
      body_evidence: { ...good, size_bytes: 6 },
    });
    expect(wrongSize.status).toBe(422);
    expect(wrongSize.json.reason).toBe("evidence_mismatch");
    const wrongSha = await invoke(owner, ses.id, {
      method: "POST",
      path: "/echo",
      body_evidence: { ...good, sha256: "0".repeat(64) },
    });
    expect(wrongSha.status).toBe(422);
    expect(wrongSha.json.reason).toBe("evidence_not_found");
    const theirs = (await makeWorkspace(stranger.token)).id;
    const foreign = await handleUpload(
      new Request(`http://localhost:3000/v1/workspaces/${theirs}/uploads`, {
        method: "POST",
        body: "secret of another workspace",
        headers: { authorization: `Bearer ${stranger.token}` },
      }),
      theirs,
    );
    const f = await foreign.json();
    const cross = await invoke(owner, ses.id, {
      method: "POST",
      path: "/echo",
      body_evidence: { uri: f.uri, sha256: f.sha256, size_bytes: f.size_bytes },
    });
    expect(cross.status).toBe(422);
    expect(cross.json.errors[0].path).toBe("/body_evidence");
    expect(await db().invocation.count()).toBe(before);
  });

  it("refuses a closed session (409) and another workspace's session (404)", async () => {
    const ses = await openSession(owner);
    must(await api("POST", `/v1/sessions/${ses.id}:close`, { token: owner.token }), 200, "close");
    const before = await db().invocation.count();
    const closed = await invoke(owner, ses.id, { method: "GET", path: "/" });
    expect(closed.status).toBe(409);
    expect(closed.json.reason).toBe("session_closed");
    expect((await api("POST", `/v1/sessions/${ses.id}:close`, { token: owner.token })).status).toBe(409);
    const open = await openSession(owner);
    expect((await invoke(stranger, open.id, { method: "GET", path: "/" })).status).toBe(404);
    expect((await api("GET", `/v1/sessions/${open.id}`, { token: stranger.token })).status).toBe(404);
    expect(
      (await api("POST", "/v1/sessions", { token: stranger.token, body: { surface_id: dep.surface_id } })).status,
    ).toBe(404);
    expect(
      (await api("GET", `/v1/sessions/${open.id}/invocations/inv_01jh0000000000000000000000`, { token: owner.token }))
        .status,
    ).toBe(404);
    expect(await db().invocation.count()).toBe(before);
  });

  it("revoking an access closes its sessions (audit access.revoked)", async () => {
    const ses = await openSession(developer);
    const revoked = must(
      await api("POST", `/v1/workspaces/${ws}/accesses/${ses.access_id}:revoke`, { token: owner.token }),
      200,
      "revoke",
    );
    expect(revoked.revoked_at).not.toBeNull();
    expect(must(await api("GET", `/v1/sessions/${ses.id}`, { token: developer.token }), 200, "ses")).toMatchObject({
      state: "closed",
      closed_reason: "access_revoked",
    });
    expect(
      (await api("POST", `/v1/workspaces/${ws}/accesses/${ses.access_id}:revoke`, { token: owner.token })).status,
    ).toBe(409);
    expect(await db().auditRecord.count({ where: { action: "access.revoked", targetId: ses.access_id } })).toBe(1);
    // A fresh session qualifies a new access.
    const again = await openSession(developer);
    expect(again.access_id).not.toBe(ses.access_id);
  });

  it("closes a surface's sessions when its deployment stops", async () => {
    const app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
    const d = await deploy(owner, ws, app.revisionId, { environment_type: "preview", slot: "closing" });
    const ses = await openSession(owner, d.surface_id);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${d.id}:stop`, { token: owner.token }), 200, "stop");
    expect(must(await api("GET", `/v1/sessions/${ses.id}`, { token: owner.token }), 200, "ses")).toMatchObject({
      state: "closed",
      closed_reason: "surface_expired",
    });
    expect((await api("POST", "/v1/sessions", { token: owner.token, body: { surface_id: d.surface_id } })).status).toBe(
      409,
    );
  });
});
