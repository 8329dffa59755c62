import { type APIRequestContext } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { ADMIN, uniqueSuffix } from "../support/console";

/**
 * The console's identity loop, end to end against the built app: sign in,
 * create a workspace, mint an API token in the UI and use it on /v1, create a
 * user with it, add them as a member, set a budget, then revoke the token and
 * see the API refuse it.
 */
const suffix = uniqueSuffix();
const WORKSPACE_NAME = `E2E console ${suffix}`;
const TOKEN_NAME = `e2e-console-${suffix}`;
const DEVELOPER = {
  email: `dev-${suffix}@example.com`,
  name: `E2E Developer ${suffix}`,
  password: "developer-password-123",
};

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

// Next.js renders its own (empty) role="alert" route announcer: always filter alerts by text.
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function listWorkspaceIds(request: APIRequestContext, token: string) {
  const res = await request.get("/v1/workspaces?limit=200", { headers: bearer(token) });
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { items: { id: string; name: string }[] };
  return body.items.map((w) => w.id);
}

test("console identity: workspace, API token, members, budgets, revocation", async ({ page, request }) => {
  await test.step("signed-out visitors are sent to sign in; a wrong password is refused", async () => {
    await page.goto("/console");
    await expect(page).toHaveURL(/\/signin/);
    await expect(page.getByRole("heading", { level: 1, name: "Sign in to Capstan" })).toBeVisible();
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "email or password is incorrect" })).toBeVisible();
  });

  await test.step("sign in as the bootstrap admin", async () => {
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/console$/);
    await expect(page.getByRole("heading", { level: 1, name: "Workspaces" })).toBeVisible();
    await expect(page.getByRole("banner")).toContainText(ADMIN.email);
  });

  let ws = "";
  await test.step("create a workspace", async () => {
    await page.getByLabel("Workspace name").fill(WORKSPACE_NAME);
    await page.getByRole("button", { name: "Create workspace" }).click();
    await expect(page).toHaveURL(/\/console\/w\/ws_[0-9a-z]{26}$/);
    ws = /\/console\/w\/(ws_[0-9a-z]{26})$/.exec(page.url())![1]!;
    await expect(page.getByRole("heading", { level: 1, name: WORKSPACE_NAME })).toBeVisible();
    await expect(page.getByText(ws, { exact: true })).toBeVisible();
    await expect(page.getByRole("meter", { name: "AI tokens budget" })).toHaveCount(0); // unlimited: no meter
    await expect(page.getByText("unlimited").first()).toBeVisible();
  });

  let token = "";
  await test.step("create an API token in the console and read it once", async () => {
    await page.getByRole("link", { name: "API tokens" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "API tokens" })).toBeVisible();
    await page.getByLabel("Token name").fill(TOKEN_NAME);
    await page.getByLabel("Expires after").selectOption({ label: "1 day" });
    await page.getByRole("button", { name: "Create token" }).click();
    const field = page.getByLabel("New API token");
    await expect(field).toBeVisible();
    await expect(page.getByText("it will not be shown again")).toBeVisible();
    token = await field.inputValue();
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    await page.getByRole("button", { name: "Copy token" }).click();
    await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: TOKEN_NAME })).toContainText("Active");
  });

  await test.step("the token authenticates /v1 and sees the new workspace", async () => {
    expect(await listWorkspaceIds(request, token)).toContain(ws);
  });

  await test.step("create a second user over REST with the token", async () => {
    const res = await request.post("/v1/platform/users", { headers: bearer(token), data: DEVELOPER });
    expect(res.status(), await res.text()).toBe(201);
    expect(await res.json()).toMatchObject({ email: DEVELOPER.email, name: DEVELOPER.name });
  });

  await test.step("add the user as developer on the members page", async () => {
    await page.getByLabel("Workspace", { exact: true }).selectOption(ws);
    await expect(page).toHaveURL(new RegExp(`/console/w/${ws}$`));
    await page.getByRole("link", { name: "Members" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Members" })).toBeVisible();
    await page.getByLabel("Email", { exact: true }).fill(DEVELOPER.email);
    await page.getByLabel("Role", { exact: true }).selectOption("developer");
    await page.getByRole("button", { name: "Add member" }).click();
    const row = page.getByRole("row").filter({ hasText: DEVELOPER.email });
    await expect(row).toContainText(DEVELOPER.name);
    await expect(page.getByLabel(`Role for ${DEVELOPER.email}`)).toHaveValue("developer");
  });

  await test.step("demoting the last owner is refused with the problem detail", async () => {
    await page.getByLabel(`Role for ${ADMIN.email}`).selectOption("admin");
    await expect(page.getByRole("alert").filter({ hasText: "last owner" })).toBeVisible();
    await expect(page.getByLabel(`Role for ${ADMIN.email}`)).toHaveValue("owner");
  });

  await test.step("set the ai_tokens budget limit to 1000; it persists", async () => {
    await page.getByRole("link", { name: "Plan & budgets" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Plan & budgets" })).toBeVisible();
    const limit = page.getByLabel("Limit for AI tokens");
    await expect(limit).toHaveValue("");
    await limit.fill("1000");
    await page.getByRole("button", { name: "Save limit for AI tokens" }).click();
    await expect(page.getByRole("meter", { name: "AI tokens budget" })).toBeVisible();
    await page.reload();
    await expect(page.getByLabel("Limit for AI tokens")).toHaveValue("1000");
    await expect(page.getByLabel("Limit for Runtime")).toHaveValue("");

    const res = await request.get(`/v1/workspaces/${ws}/budgets`, { headers: bearer(token) });
    expect(res.status()).toBe(200);
    const body = (await res.json()) as { items: { usage_category: string; limit_units: number | null }[] };
    expect(body.items.find((b) => b.usage_category === "ai_tokens")?.limit_units).toBe(1000);
  });

  await test.step("revoke the token in the console; /v1 then answers 401 with a challenge", async () => {
    await page.getByRole("link", { name: "API tokens" }).click();
    await page.getByRole("button", { name: `Revoke token ${TOKEN_NAME}` }).click();
    const dialog = page.getByRole("dialog", { name: `Revoke token "${TOKEN_NAME}"?` });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Revoke token", exact: true }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("row").filter({ hasText: TOKEN_NAME })).toContainText("Revoked");

    const res = await request.get("/v1/workspaces", { headers: bearer(token) });
    expect(res.status()).toBe(401);
    expect(res.headers()["www-authenticate"]).toMatch(/^Bearer /);
    expect(res.headers()["content-type"]).toContain("application/problem+json");
  });

  await test.step("sign out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin/);
    await page.goto("/console");
    await expect(page).toHaveURL(/\/signin/);
  });
});
