import { expect, test } from "@playwright/test";

/**
 * Source intake in the console: create a product from a repository whose host
 * is not on the allow-list and watch the freeze settle as `rejected`, with
 * the rejection explained in words. (The e2e server does not allow local
 * sources, so the frozen-repository flow is covered by integration tests.)
 */
const ADMIN = { email: "admin@example.com", password: "e2e-admin-password" };
const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const WORKSPACE_NAME = `E2E products ${suffix}`;
const REPO_URL = `https://example.org/capstan-e2e-${suffix}.git`;

// Next.js renders its own (empty) role="alert" route announcer: always filter alerts and statuses by text.

test("console products: a repository on a host that is not allowed is rejected and explained", async ({ page }) => {
  await test.step("sign in as the bootstrap admin", async () => {
    await page.goto("/console");
    await expect(page).toHaveURL(/\/signin/);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/console$/);
    await expect(page.getByRole("heading", { level: 1, name: "Workspaces" })).toBeVisible();
  });

  let ws = "";
  await test.step("create a workspace", async () => {
    await page.getByLabel("Workspace name").fill(WORKSPACE_NAME);
    await page.getByRole("button", { name: "Create workspace" }).click();
    await expect(page).toHaveURL(/\/console\/w\/ws_[0-9a-z]{26}$/);
    ws = /\/console\/w\/(ws_[0-9a-z]{26})$/.exec(page.url())![1]!;
    await expect(page.getByRole("heading", { level: 1, name: WORKSPACE_NAME })).toBeVisible();
  });

  await test.step("the products page starts empty", async () => {
    await page.goto(`/console/w/${ws}/products`);
    await expect(page.getByRole("heading", { level: 1, name: "Products" })).toBeVisible();
    await expect(page.getByText("No products yet.")).toBeVisible();
  });

  await test.step("create a product from a repository on example.org", async () => {
    await page.getByLabel("Repository URL").fill(REPO_URL);
    await expect(page.getByLabel("Ref")).toHaveValue("main");
    await page.getByRole("button", { name: "Create product" }).click();
    const freeze = page.getByRole("region", { name: "Source freeze" });
    await expect(freeze).toBeVisible();
    await expect(freeze).toContainText(REPO_URL);
  });

  await test.step("the freeze settles as rejected, explained in words", async () => {
    const freeze = page.getByRole("region", { name: "Source freeze" });
    await expect(freeze.getByText("Rejected", { exact: true })).toBeVisible({ timeout: 30_000 });
    const explanation = freeze.getByRole("status").filter({ hasText: "The source was rejected" });
    await expect(explanation).toContainText("The repository's host (example.org) is not on the list of allowed source hosts.");
    await expect(explanation).toContainText("host_not_allowed");
    await expect(freeze.getByRole("link", { name: "Review revision" })).toHaveCount(0);
  });

  await test.step("the product is listed, and its page shows the revision without a descriptor", async () => {
    const row = page.getByRole("row").filter({ hasText: REPO_URL });
    await expect(row).toContainText("main");
    await row.getByRole("link", { name: /^prod_/ }).click();
    await expect(page).toHaveURL(new RegExp(`/console/w/${ws}/products/prod_[0-9a-z]{26}$`));
    await expect(page.getByRole("heading", { level: 1, name: `capstan-e2e-${suffix}` })).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: /rev_/ })).toHaveCount(1);
    await expect(page.getByRole("button", { name: "Freeze again" })).toBeEnabled();
  });
});
