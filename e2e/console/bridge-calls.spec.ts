import { rmSync } from "node:fs";
import { type Page, type Response } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { startOpenAiServer, type TOpenAiServer } from "../../test/support/openai-server";
import {
  bridgeToken,
  createConfirmedProduct,
  createWorkspace,
  makeAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Bridge calls through the console, end to end: an owner stores an
 * ai.generate credential (its secret is never shown again), binds it to an
 * OpenAI-compatible server the test runs on 127.0.0.1, and a service identity
 * of a product whose contract allows ai.generate and data.kv makes one call
 * that completes (the provider's text and token usage) and one that is denied
 * (a data.kv key outside the contract prefix). The invocations page lists and
 * filters both, the workspace overview's AI tokens meter counts the tokens
 * against the monthly limit, and a second workspace sees none of it.
 *
 * The server accepts file:// sources (SOURCE_ALLOW_LOCAL=1) and http loopback
 * provider base URLs (CAPSTAN_PROVIDER_ALLOW_PRIVATE=1) in playwright.config.ts.
 */
const suffix = uniqueSuffix();
const WORKSPACE_NAME = `E2E bridge calls ${suffix}`;
const OTHER_WORKSPACE_NAME = `E2E bridge calls elsewhere ${suffix}`;
const IDENTITY = `bridge-caller-${suffix}`;
const API_KEY = `sk-e2e-${suffix}-never-shown-again`;
const MODEL = "gpt-e2e-mini";
const ANSWER = `Hello from the loopback model ${suffix}`;
const MAX_TOKENS = 64;
const AI_LIMIT = 1000;

const AI = {
  id: "ai.generate",
  required: true,
  actions: ["generate"],
  scope: { models: ["text"], max_tokens_per_call: MAX_TOKENS },
  credential_owner: "workspace",
  provider: { allow: ["openai"], fallback: "none" },
};
const KV = {
  id: "data.kv",
  required: false,
  actions: ["get", "set"],
  scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 100 },
  credential_owner: "platform",
  provider: { allow: ["platform"], fallback: "none" },
};

let repoDir = "";
let provider: TOpenAiServer | undefined;
test.beforeAll(async () => {
  repoDir = makeAppRepository("capstan-e2e-calls-repo-", [AI, KV]).dir;
  provider = await startOpenAiServer(API_KEY, { text: ANSWER });
});
test.afterAll(async () => {
  await provider?.close();
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
});

/** Data rows of the page's table (the header row holds column headers, not cells). */
const dataRows = (page: Page) => page.getByRole("row").filter({ has: page.getByRole("cell") });

test("console Bridge calls: credential, binding, a completed and a denied call, invocations and budgets", async ({
  page,
  request,
  capstan,
}) => {
  test.setTimeout(180_000);
  const server = provider!;
  const ws = await signInAndCreateWorkspace(page, WORKSPACE_NAME);

  await test.step("create a product whose contract has ai.generate and data.kv, and confirm it", async () => {
    await createConfirmedProduct(page, ws, repoDir);
    await expect(page.getByRole("row").filter({ hasText: "ai.generate" }).first()).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: "data.kv" }).first()).toBeVisible();
  });

  // Every console API answer from here on: none may carry the credential's secret.
  const answers: Promise<string>[] = [];
  const collect = (res: Response) => {
    if (res.url().includes("/api/")) answers.push(res.text().catch(() => ""));
  };
  page.on("response", collect);

  let credId = "";
  await test.step("add the ai.generate credential; its secret is not shown again", async () => {
    await page.goto(`/console/w/${ws}/credentials`);
    await expect(page.getByRole("heading", { level: 1, name: "Credentials" })).toBeVisible();
    await page.getByLabel("Provider", { exact: true }).fill("openai");
    await expect(page.getByLabel("Capability", { exact: true })).toHaveValue("ai.generate");
    const secret = page.getByLabel("Secret", { exact: true });
    await expect(secret).toHaveAttribute("type", "password");
    await secret.fill(API_KEY);
    await page.getByRole("button", { name: "Save credential" }).click();
    const saved = page.getByRole("status").filter({ hasText: "will not be shown again" });
    await expect(saved).toContainText(/Credential cred_[0-9a-z]{26} saved/);
    credId = /cred_[0-9a-z]{26}/.exec((await saved.textContent()) ?? "")![0];
    await expect(secret).toHaveValue("");
    const row = page.getByRole("row").filter({ hasText: credId });
    await expect(row).toContainText("openai");
    await expect(row).toContainText("Active");
    expect(await page.content()).not.toContain(API_KEY);

    await page.reload();
    await expect(page.getByRole("row").filter({ hasText: credId })).toContainText("ai.generate");
    await expect(page.getByLabel("Secret", { exact: true })).toHaveValue("");
    expect(await page.content()).not.toContain(API_KEY);
  });

  let bindingId = "";
  await test.step("bind the credential to the loopback OpenAI-compatible server; the binding is ready", async () => {
    await page.goto(`/console/w/${ws}/bindings`);
    await expect(page.getByRole("heading", { level: 1, name: "Provider bindings" })).toBeVisible();
    await page.getByLabel("Credential", { exact: true }).selectOption(credId);
    await expect(page.getByRole("textbox", { name: "Capability" })).toHaveValue("ai.generate");
    await expect(page.getByLabel("text models")).toBeChecked();
    await page.getByLabel("Max tokens per call").fill(String(MAX_TOKENS));
    await page.getByLabel("Provider model for text").fill(MODEL);
    await expect(page.getByLabel("API style")).toHaveValue("openai");
    // Anthropic Messages has no embeddings: choosing it unticks and disables embedding models.
    const embedding = page.getByRole("checkbox", { name: /^embedding models/ });
    await embedding.check();
    await page.getByLabel("API style").selectOption("anthropic");
    await expect(embedding).not.toBeChecked();
    await expect(embedding).toBeDisabled();
    await expect(page.getByLabel("Provider model for embeddings")).toHaveCount(0);
    await page.getByLabel("API style").selectOption("openai");
    await expect(embedding).toBeEnabled();
    await page.getByLabel("Base URL").fill(server.baseUrl);
    await page.getByRole("button", { name: "Create binding" }).click();
    const created = page.getByRole("status").filter({ hasText: /Binding bind_[0-9a-z]{26} is ready/ });
    await expect(created).toBeVisible();
    bindingId = /bind_[0-9a-z]{26}/.exec((await created.textContent()) ?? "")![0];

    const row = page.getByRole("row").filter({ hasText: bindingId });
    await expect(row.getByText("Ready", { exact: true })).toBeVisible();
    await expect(row).toContainText("ai.generate · openai");
    await expect(row).toContainText(`credential ${credId}`);
    await expect(row).toContainText("OpenAI-compatible API");
    expect(await page.content()).not.toContain(API_KEY);
  });

  await test.step("no console answer carried the credential's secret", async () => {
    page.off("response", collect);
    const bodies = await Promise.all(answers);
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) expect(body).not.toContain(API_KEY);
  });

  const client = { id: "", secret: "" };
  await test.step("create a service identity for the product and read its secret once", async () => {
    await page.goto(`/console/w/${ws}/service-identities`);
    await expect(page.getByRole("heading", { level: 1, name: "Service identities" })).toBeVisible();
    await page.getByLabel("Name", { exact: true }).fill(IDENTITY);
    const product = page.getByLabel("Product", { exact: true });
    await expect(product.locator("option")).toHaveCount(2); // "Choose a product" + ours
    await product.selectOption({ index: 1 });
    await page.getByRole("button", { name: "Create service identity" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Service identity "${IDENTITY}" created` })).toBeVisible();
    client.id = await page.getByLabel("Client ID", { exact: true }).inputValue();
    client.secret = await page.getByLabel("Client secret", { exact: true }).inputValue();
    expect(client.id).toMatch(/^svc_[0-9a-z]{26}$/);
    expect(client.secret).toMatch(/^cssec_/);
    await page.getByRole("button", { name: "Done" }).click();
  });

  await test.step("ai.generate completes with the provider's text and usage; data.kv outside the prefix is denied", async () => {
    const headers = { authorization: `Bearer ${await bridgeToken(capstan, client)}` };

    const generate = await request.post("/v1/capabilities/ai.generate/generate", {
      headers,
      data: { model_kind: "text", input: { messages: [{ role: "user", content: "Say hello" }] } },
    });
    expect(generate.status(), await generate.text()).toBe(200);
    expect(generate.headers()["capstan-overhead-ms"]).toMatch(/^\d+(\.\d+)?$/);
    expect(await generate.json()).toMatchObject({
      capability: "ai.generate",
      action: "generate",
      outcome: "completed",
      provider: "openai",
      fallback_used: false,
      usage: { units: MAX_TOKENS, unit: "tokens" },
      output: { text: ANSWER },
    });
    // The provider got the key from the credential, the binding's model, and the contract's token cap.
    expect(server.authorizedCalls()).toBe(1);
    expect(server.calls[0]).toMatchObject({
      path: "/v1/chat/completions",
      body: { model: MODEL, max_tokens: MAX_TOKENS },
    });

    const denied = await request.post("/v1/capabilities/data.kv/get", { headers, data: { key: "/elsewhere/secret" } });
    expect(denied.status(), await denied.text()).toBe(403);
    expect(denied.headers()["capstan-overhead-ms"]).toMatch(/^\d+(\.\d+)?$/);
    expect(await denied.json()).toMatchObject({ reason: "outside_contract" });
    expect(server.calls).toHaveLength(1);
  });

  await test.step("the invocations page lists both calls and filters them by outcome and capability", async () => {
    const rows = dataRows(page);
    await expect(async () => {
      await page.goto(`/console/w/${ws}/invocations`);
      await expect(page.getByRole("table", { name: "2 invocation(s)" })).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.getByRole("heading", { level: 1, name: "Capability invocations" })).toBeVisible();
    await expect(rows).toHaveCount(2);

    const completed = rows.filter({ has: page.getByText("completed", { exact: true }) });
    await expect(completed).toContainText("ai.generate generate");
    await expect(completed.getByRole("cell").nth(4)).toHaveText("openai");
    await expect(completed.getByRole("cell").nth(5)).toHaveText(`${MAX_TOKENS} tokens`);
    await expect(completed.getByRole("cell").nth(6)).toHaveText(/^\d+(\.\d+)? ms$/);
    const deniedRow = rows.filter({ has: page.getByText("denied", { exact: true }) });
    await expect(deniedRow).toContainText("data.kv get");
    await expect(deniedRow).toContainText("outside_contract");
    await expect(deniedRow).toContainText("Outside the product's confirmed capability contract");

    await page.getByLabel("Outcome", { exact: true }).selectOption("denied");
    await expect(page.getByRole("table", { name: "1 invocation(s)" })).toBeVisible();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText("data.kv get");
    await expect(rows).toContainText("outside_contract");

    await page.getByLabel("Outcome", { exact: true }).selectOption("");
    await expect(rows).toHaveCount(2);
    await page.getByLabel("Capability", { exact: true }).selectOption("ai.generate");
    await expect(page.getByRole("table", { name: "1 invocation(s)" })).toBeVisible();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText("ai.generate generate");
    await expect(rows).toContainText("completed");

    await page.getByLabel("Outcome", { exact: true }).selectOption("denied");
    await expect(page.getByRole("table", { name: "No capability invocations match." })).toBeVisible();
    await expect(rows).toHaveCount(0);
  });

  await test.step("with an AI tokens limit, the overview's meter counts the call's tokens", async () => {
    await page.goto(`/console/w/${ws}/plan`);
    await expect(page.getByRole("heading", { level: 1, name: "Plan & budgets" })).toBeVisible();
    await page.getByLabel("Limit for AI tokens").fill(String(AI_LIMIT));
    await page.getByRole("button", { name: "Save limit for AI tokens" }).click();
    await expect(page.getByRole("meter", { name: "AI tokens budget" })).toBeVisible();

    const meter = page.getByRole("meter", { name: "AI tokens budget" });
    // Settlement is written off the response path: reload until it has landed.
    await expect(async () => {
      await page.goto(`/console/w/${ws}`);
      await expect(meter).toHaveAttribute("aria-valuenow", String(MAX_TOKENS), { timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.getByRole("heading", { level: 1, name: WORKSPACE_NAME })).toBeVisible();
    await expect(meter).toHaveAttribute("aria-valuemax", String(AI_LIMIT));
    await expect(meter).toHaveAttribute("aria-valuetext", `${MAX_TOKENS} used + 0 reserved of 1,000`);
    await expect(page.getByText(`${MAX_TOKENS} used + 0 reserved of 1,000 (6%)`)).toBeVisible();
    // Categories without a limit have no meter.
    await expect(page.getByRole("meter")).toHaveCount(1);
  });

  await test.step("a second workspace's invocations page shows none of these calls", async () => {
    await page.goto("/console");
    await expect(page.getByRole("heading", { level: 1, name: "Workspaces" })).toBeVisible();
    const other = await createWorkspace(page, OTHER_WORKSPACE_NAME);
    expect(other).not.toBe(ws);
    await page.goto(`/console/w/${other}/invocations`);
    await expect(page.getByRole("heading", { level: 1, name: "Capability invocations" })).toBeVisible();
    await expect(page.getByRole("table", { name: "No capability invocations match." })).toBeVisible();
    await expect(dataRows(page)).toHaveCount(0);
    // Nor does its product filter offer the first workspace's product.
    await expect(page.getByLabel("Product", { exact: true }).locator("option")).toHaveCount(1);
  });
});
