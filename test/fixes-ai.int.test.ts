import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSnapshotFile } from "@/server/domain/source/snapshot";
import { blobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { addAiProvider, bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { evaluate } from "./support/release-fixtures";

/**
 * Fixes from findings (issue #32 item 6): a deterministic rule from the
 * specific `start_exited` finding, and the AI-generated fix: Capstan asks
 * the workspace's model (an OpenAI-compatible server on loopback) through
 * its own Bridge, charged like any call; a known diff becomes a proposal that
 * approves into a revision that evaluates green, a diff that does not apply
 * and garbage become findings of a failed fix, never a revision.
 */
let owner: TTestUser;
let stranger: TTestUser;
let ws: string;
let strangerWs: string;
let model: TOpenAiServer;
let broken: { productId: string; revisionId: string; smokeFinding: string };

/** Deploys fine, answers /health, but 500 on /: the smoke check fails. */
const BROKEN_SERVER = [
  'const http = require("node:http");',
  "http.createServer((req, res) => {",
  '  if (req.url === "/health") return res.end("ok");',
  "  res.statusCode = 500;",
  '  res.end("broken");',
  '}).listen(Number(process.env.PORT), "127.0.0.1");',
  "",
].join("\n");
const GOOD_DIFF = [
  "--- a/server.js",
  "+++ b/server.js",
  "@@ -2,5 +2,5 @@",
  " http.createServer((req, res) => {",
  '   if (req.url === "/health") return res.end("ok");',
  "-  res.statusCode = 500;",
  '-  res.end("broken");',
  "+  res.statusCode = 200;",
  '+  res.end("fixed");',
  ' }).listen(Number(process.env.PORT), "127.0.0.1");',
  "--- /dev/null",
  "+++ b/NOTES.md",
  "@@ -0,0 +1 @@",
  "+/ answers 200 again.",
  "",
].join("\n");
/** Context that is not in the frozen file. */
const STALE_DIFF = GOOD_DIFF.replace(
  '   if (req.url === "/health") return res.end("ok");',
  '   if (req.url === "/healthz") return res.end("ok");',
);

beforeAll(async () => {
  await bootBridgeApp();
  [owner, stranger] = await Promise.all([makeUser(), makeUser()]);
  ws = (await makeWorkspace(owner.token)).id;
  strangerWs = (await makeWorkspace(stranger.token)).id;
  model = await startOpenAiServer("sk-fix-model");
});

afterAll(async () => {
  await model.close();
  await runner().sweep(async () => new Set());
});

const get = (p: string, token = owner.token) => api("GET", `/v1/workspaces/${ws}${p}`, { token });
const post = (p: string, body: unknown, token = owner.token) =>
  api("POST", `/v1/workspaces/${ws}${p}`, { token, body });
const fixes = (prod: string, rev: string) => `/products/${prod}/revisions/${rev}/fixes`;
const counts = async () => ({
  fixes: await db().fix.count({ where: { workspaceId: ws } }),
  revisions: await db().revision.count({ where: { workspaceId: ws } }),
  calls: await db().capabilityInvocation.count({ where: { workspaceId: ws } }),
});

describe("deterministic rules from the specific finding", () => {
  it("start_exited (the app exited before its health check) gets the missing start script", async () => {
    const app = await confirmedApp(owner, ws, { scripts: { start: undefined as unknown as string } }, HEALTH_EDIT);
    const failed = await evaluate(owner, ws, app.revisionId);
    const exited = failed.findings.find((f: { code: string }) => f.code === "start_exited");
    expect(exited, JSON.stringify(failed.findings)).toBeDefined();
    const fix = must(await post(fixes(app.productId, app.revisionId), { finding_id: exited.id }), 201, "fix");
    expect(fix).toMatchObject({
      rule: "missing_start_script",
      kind: "source_patch",
      status: "proposed",
      finding: { id: exited.id, code: "start_exited" },
      findings: [],
      capability_invocation_id: null,
    });
  });
});

describe("AI-generated fixes", () => {
  it("needs an ai.generate binding: 409 naming it, nothing called or written; a finding_code is refused", async () => {
    const app = await confirmedApp(owner, ws, { files: { "server.js": BROKEN_SERVER } }, HEALTH_EDIT);
    const failed = await evaluate(owner, ws, app.revisionId);
    expect(failed.findings).toEqual([expect.objectContaining({ check: "smoke", code: "smoke_server_error" })]);
    broken = { ...app, smokeFinding: failed.findings[0].id };
    const before = await counts();
    const r = await post(fixes(app.productId, app.revisionId), { finding_id: broken.smokeFinding, generator: "ai" });
    expect(r).toMatchObject({ status: 409, json: { reason: "ai_binding_missing", code: "conflict" } });
    const byCode = await post(fixes(app.productId, app.revisionId), {
      finding_code: "no_start_command",
      generator: "ai",
    });
    expect(byCode).toMatchObject({ status: 422, json: { errors: [{ path: "/finding_id" }] } });
    expect(
      (await post(fixes(app.productId, app.revisionId), { finding_id: broken.smokeFinding, generator: "oracle" }))
        .status,
    ).toBe(422);
    // Without the generator the rules answer: none covers a 500 on /.
    expect((await post(fixes(app.productId, app.revisionId), { finding_id: broken.smokeFinding })).json.reason).toBe(
      "no_fix_rule",
    );
    expect(await counts()).toEqual(before);
    expect(model.calls).toHaveLength(0);
  });

  it("a known diff from the model: a proposal (never auto-approved), the call charged to the workspace; approving it freezes a revision that evaluates green", async () => {
    await addAiProvider(owner, ws, {
      provider: "openai",
      baseUrl: model.baseUrl,
      apiKey: model.apiKey,
      models: ["text"],
    });
    model.behave({ mode: "ok", text: "```diff\n" + GOOD_DIFF + "```", tokens: 321 });
    const fix = must(
      await post(fixes(broken.productId, broken.revisionId), { finding_id: broken.smokeFinding, generator: "ai" }),
      201,
      "ai fix",
    );
    expect(fix).toMatchObject({
      rule: "ai_generated",
      kind: "source_patch",
      status: "proposed",
      diff: GOOD_DIFF,
      findings: [],
      new_revision_id: null,
      decision: null,
      finding: { id: broken.smokeFinding, code: "smoke_server_error", check: "smoke" },
      descriptor_edits: null,
    });
    expect(fix.summary).toContain("server.js, NOTES.md (new)");

    // The model was asked through the workspace's binding, with the finding and the frozen file.
    expect(model.calls).toHaveLength(1);
    const asked = model.calls[0]!;
    expect(asked.authorized).toBe(true);
    const prompt = JSON.stringify(asked.body.messages);
    expect(prompt).toContain("smoke_server_error");
    expect(prompt).toContain("res.statusCode = 500;");
    expect(asked.body.max_tokens).toBe(4096);

    // Charged like any call: a completed ai.generate invocation of the workspace, its usage in the budget, its requested event naming the fix.
    const cap = must(await get(`/capability-invocations/${fix.capability_invocation_id}`), 200, "call");
    expect(cap).toMatchObject({
      capability: "ai.generate",
      action: "generate",
      outcome: "completed",
      product_id: broken.productId,
      provider: "openai",
    });
    const budgets = must(await get("/budgets"), 200, "budgets");
    expect(
      budgets.items.find((b: { usage_category: string }) => b.usage_category === "ai_tokens").used_units,
    ).toBeGreaterThanOrEqual(321);
    const requested = await db().outboxEvent.findFirstOrThrow({
      where: { subject: fix.capability_invocation_id, type: "capability.invocation_requested" },
    });
    expect(requested.data).toMatchObject({
      fix_run_id: fix.id,
      revision_id: broken.revisionId,
      request: { id: "ai.generate", model_kind: "text", max_tokens: 4096 },
    });

    // Never approved by itself.
    expect(must(await get(`${fixes(broken.productId, broken.revisionId)}/${fix.id}`), 200, "get")).toMatchObject({
      status: "proposed",
      new_revision_id: null,
    });
    expect((await db().auditRecord.findMany({ where: { targetId: fix.id } })).map((a) => a.action)).toEqual([
      "fix.requested",
    ]);

    const approved = must(
      await post(`${fixes(broken.productId, broken.revisionId)}/${fix.id}:approve`, { note: "reviewed the diff" }),
      200,
      "approve",
    );
    expect(approved).toMatchObject({
      status: "approved",
      decision: { decision: "approve", note: "reviewed the diff" },
    });
    const fixed = must(await get(`/revisions/${approved.new_revision_id}`), 200, "fixed");
    expect(fixed).toMatchObject({ product_id: broken.productId, descriptor_status: "detected" });
    expect(must(await get(`/source-freezes/${fixed.source_freeze_id}`), 200, "freeze")).toMatchObject({
      status: "frozen",
      ref: `fix:${fix.id}`,
    });
    const server = (await readSnapshotFile((await blobStore().get(fixed.snapshot.sha256))!, "server.js"))!.toString(
      "utf8",
    );
    expect(server).toContain("res.statusCode = 200;");
    expect(server).not.toContain("500");
    // A file the diff creates is part of the new snapshot.
    expect(
      (await readSnapshotFile((await blobStore().get(fixed.snapshot.sha256))!, "NOTES.md"))!.toString("utf8"),
    ).toBe("/ answers 200 again.\n");
    must(
      await post(`/products/${broken.productId}/revisions/${fixed.id}/descriptor:confirm`, { edits: HEALTH_EDIT }),
      200,
      "confirm",
    );
    const green = await evaluate(owner, ws, fixed.id);
    expect(green).toMatchObject({ status: "passed", verdict: "pass", findings: [] });
  });

  it.each([
    [
      "a diff that does not apply",
      () => model.behave({ mode: "ok", text: STALE_DIFF }),
      "ai_diff_does_not_apply",
      /hunk 1 of server\.js/,
    ],
    [
      "garbage",
      () => model.behave({ mode: "ok", text: "Have you tried turning it off and on again?" }),
      "ai_answer_not_a_diff",
      /not a unified diff/,
    ],
    ["a provider outage", () => model.behave({ mode: "500" }), "ai_call_failed", /failed \(provider_unavailable\)/],
  ])("%s becomes a finding of a failed fix, not a revision", async (_what, behave, code, message) => {
    behave();
    const before = await counts();
    const fix = must(
      await post(fixes(broken.productId, broken.revisionId), { finding_id: broken.smokeFinding, generator: "ai" }),
      201,
      "ai fix",
    );
    expect(fix).toMatchObject({
      rule: "ai_generated",
      status: "failed",
      diff: null,
      new_revision_id: null,
      findings: [{ kind: "fix", severity: "error", code }],
    });
    expect(fix.findings[0].message).toMatch(message);
    expect(fix.capability_invocation_id).toMatch(/^cap_/);
    const after = await counts();
    expect(after).toEqual({ fixes: before.fixes + 1, revisions: before.revisions, calls: before.calls + 1 });
    // Nothing to approve.
    const approve = await post(`${fixes(broken.productId, broken.revisionId)}/${fix.id}:approve`, {});
    expect(approve).toMatchObject({ status: 409, json: { reason: "fix_decided" } });
    expect(await db().revision.count({ where: { workspaceId: ws } })).toBe(before.revisions);
  });

  it("hides the revision from other workspaces (404) and refuses non-members (403)", async () => {
    const path = `${fixes(broken.productId, broken.revisionId)}`;
    const before = await counts();
    expect(
      (
        await api("POST", `/v1/workspaces/${strangerWs}${path}`, {
          token: stranger.token,
          body: { finding_id: broken.smokeFinding, generator: "ai" },
        })
      ).status,
    ).toBe(404);
    expect((await post(path, { finding_id: broken.smokeFinding, generator: "ai" }, stranger.token)).status).toBe(403);
    expect(await counts()).toEqual(before);
  });
});
