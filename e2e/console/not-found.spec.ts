import { expect, test } from "../support/fixtures";
import { signInAndCreateWorkspace, uniqueSuffix } from "../support/console";

/** An unknown console URL is a 404 inside the console (navigation kept), and the site has a favicon. */
test("console 404 keeps the console around it; the favicon is served", async ({ page, request }) => {
  const ws = await signInAndCreateWorkspace(page, `E2E not found ${uniqueSuffix()}`);
  const response = await page.goto(`/console/w/${ws}/no-such-area`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "all workspaces", exact: true })).toBeVisible();
  // The console's navigation is still there around the 404.
  await expect(page.getByRole("link", { name: "All workspaces", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "API tokens" })).toBeVisible();
  const icon = await request.get("/icon.svg");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
  await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", /icon\.svg/);
});
