import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { createCallerFactory } from "@/server/trpc/init";
import { createContextInner } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/root";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import {
  addAiProvider,
  aiCapability,
  bootBridgeApp,
  bridge,
  bridgeToken,
  kvCapability,
  makeProduct,
  makeServiceIdentity,
} from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * Issue #21 item 6: the onboarding checklist is computed from what exists,
 * step by step, up to a completed Bridge call made with exactly the request
 * its suggested curl describes; dismissing it is per person and workspace;
 * another workspace's member gets a 403. PATCH /v1/workspaces/{ws} renames
 * (owner/admin, audited; viewers 403; strict body).
 */
const KEY = "sk-onboarding-test";
let provider: TOpenAiServer;
let owner: TTestUser;
let viewer: TTestUser;
let stranger: TTestUser;
let ws = "";

function caller(user: TTestUser) {
  const ctx = createContextInner({
    correlationId: newId("evt"),
    transport: "trpc",
    request: { method: "POST", path: "/api/trpc/onboarding" },
    principal: { kind: "user", userId: user.userId, via: { kind: "session" } },
  });
  return createCallerFactory(appRouter)(ctx);
}

const doneSteps = async (user: TTestUser) =>
  (await caller(user).onboarding.get({ ws })).steps.filter((s) => s.done).map((s) => s.key);

beforeAll(async () => {
  await bootBridgeApp();
  provider = await startOpenAiServer(KEY, { text: "hello back" });
  [owner, viewer, stranger] = await Promise.all([makeUser(), makeUser(), makeUser()]);
  ws = (await makeWorkspace(owner.token)).id;
  await makeWorkspace(stranger.token);
  const r = await api("PUT", `/v1/workspaces/${ws}/members/${viewer.userId}`, {
    token: owner.token,
    body: { role: "viewer" },
  });
  expect(r.status, r.text).toBe(200);
});
afterAll(async () => {
  await provider?.close();
});

describe("onboarding checklist", () => {
  it("walks from an empty workspace to a completed call, each step from real state", async () => {
    const empty = await caller(viewer).onboarding.get({ ws });
    expect(empty).toMatchObject({ workspace_id: ws, complete: false, dismissed: false, first_call: null });
    expect(empty.steps.map((s) => [s.key, s.done, s.path])).toEqual([
      ["product", false, "/products"],
      ["contract", false, "/products"],
      ["provider", false, "/credentials"],
      ["service_identity", false, "/service-identities"],
      ["first_call", false, "/invocations"],
    ]);

    const { productId } = await makeProduct(owner, ws, [
      aiCapability({ scope: { models: ["text"], max_tokens_per_call: 32 } }),
      kvCapability(),
    ]);
    expect(await doneSteps(viewer)).toEqual(["product", "contract"]);

    await addAiProvider(owner, ws, { provider: "openai", apiKey: KEY, baseUrl: provider.baseUrl, models: ["text"] });
    expect(await doneSteps(viewer)).toEqual(["product", "contract", "provider"]);

    const svc = await makeServiceIdentity(owner, ws, productId);
    const o = await caller(viewer).onboarding.get({ ws });
    expect(o.steps.filter((s) => s.done).map((s) => s.key)).toEqual([
      "product",
      "contract",
      "provider",
      "service_identity",
    ]);
    // ai.generate has a ready binding, so it is the suggested call; the secret is a placeholder, never the real one.
    expect(o.first_call).toMatchObject({
      capability: "ai.generate",
      action: "generate",
      client_id: svc.id,
      product_id: productId,
      token_url: "http://localhost:3000/v1/oauth/token",
      call_url: "http://localhost:3000/v1/capabilities/ai.generate/generate",
    });
    expect(o.first_call!.curl).toContain(`client_id=${svc.id}`);
    expect(o.first_call!.curl).toContain("<paste the client secret");
    expect(o.first_call!.curl).not.toContain(svc.secret);

    // The suggested request, with the real secret, completes.
    const token = await bridgeToken(svc.id, svc.secret);
    const call = await bridge(token, o.first_call!.capability, o.first_call!.action, o.first_call!.body);
    expect(call.status, call.text).toBe(200);
    expect(call.json).toMatchObject({ outcome: "completed" });

    const done = await caller(viewer).onboarding.get({ ws });
    expect(done.complete).toBe(true);
  });

  it("dismissal is per person and workspace, and can be undone", async () => {
    await caller(viewer).onboarding.setDismissed({ ws, dismissed: true });
    await caller(viewer).onboarding.setDismissed({ ws, dismissed: true }); // idempotent
    // Two tabs at once: both succeed, one row.
    await caller(viewer).onboarding.setDismissed({ ws, dismissed: false });
    await Promise.all(Array.from({ length: 8 }, () => caller(viewer).onboarding.setDismissed({ ws, dismissed: true })));
    expect((await caller(viewer).onboarding.get({ ws })).dismissed).toBe(true);
    expect((await caller(owner).onboarding.get({ ws })).dismissed).toBe(false);
    await caller(viewer).onboarding.setDismissed({ ws, dismissed: false });
    expect((await caller(viewer).onboarding.get({ ws })).dismissed).toBe(false);
    expect(await db().onboardingDismissal.count({ where: { workspaceId: ws } })).toBe(0);
  });

  it("a member of another workspace can neither read nor dismiss this one's checklist", async () => {
    // The tRPC boundary turns the domain error into the HTTP answer; a direct caller sees it as the cause.
    const forbidden = { cause: { name: "AppError", status: 403 } };
    await expect(caller(stranger).onboarding.get({ ws })).rejects.toMatchObject(forbidden);
    await expect(caller(stranger).onboarding.setDismissed({ ws, dismissed: true })).rejects.toMatchObject(forbidden);
    expect(await db().onboardingDismissal.count({ where: { workspaceId: ws } })).toBe(0);
  });
});

describe("PATCH /v1/workspaces/{ws}", () => {
  it("an owner renames; the change is audited once; the same name is a no-op", async () => {
    const r = await api("PATCH", `/v1/workspaces/${ws}`, {
      token: owner.token,
      body: { name: "  Renamed workspace  " },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id: ws, name: "Renamed workspace", role: "owner" });
    const again = await api("PATCH", `/v1/workspaces/${ws}`, {
      token: owner.token,
      body: { name: "Renamed workspace" },
    });
    expect(again.status, again.text).toBe(200);
    const audit = await db().auditRecord.findMany({ where: { workspaceId: ws, action: "workspace.renamed" } });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details).toMatchObject({ to: "Renamed workspace" });
  });

  it("refuses viewers (403), strangers (403) and bad bodies (422) without changing anything", async () => {
    const asViewer = await api("PATCH", `/v1/workspaces/${ws}`, {
      token: viewer.token,
      body: { name: "Viewer's name" },
    });
    expect(asViewer.status, asViewer.text).toBe(403);
    const asStranger = await api("PATCH", `/v1/workspaces/${ws}`, {
      token: stranger.token,
      body: { name: "Stranger's name" },
    });
    expect(asStranger.status, asStranger.text).toBe(403);
    for (const body of [{ name: "" }, { name: "x".repeat(101) }, { name: "ok", plan: "team" }, {}]) {
      const bad = await api("PATCH", `/v1/workspaces/${ws}`, { token: owner.token, body });
      expect(bad.status, `${JSON.stringify(body)}: ${bad.text}`).toBe(422);
      expect(bad.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await db().workspace.findUniqueOrThrow({ where: { id: ws } })).name).toBe("Renamed workspace");
  });
});
