import { rmSync } from "node:fs";
import { expect, test } from "../support/fixtures";
import {
  createConfirmedProduct,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * The release wizard in the console: evaluate a confirmed revision (the
 * evaluation worker deploys it to preview and sends its smoke requests as
 * invocations), see the version it cut, walk the wizard (version ->
 * audience -> window -> review -> create -> deploy to staging) and watch the
 * release page's timeline reach Live. Workers run in the server process.
 */
const suffix = uniqueSuffix();

test.describe("releases", () => {
  let repoDir = "";
  test.beforeAll(() => {
    repoDir = makeDeployableAppRepository("capstan-e2e-release-", "hello from a release").dir;
  });
  test.afterAll(() => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  });

  test("console releases: evaluate, cut v1, walk the release wizard, deploy to staging, go live", async ({ page }) => {
    test.setTimeout(240_000);
    const ws = await signInAndCreateWorkspace(page, `E2E releases ${suffix}`);

    await test.step("a confirmed revision is evaluated: every check passes", async () => {
      await createConfirmedProduct(page, ws, repoDir);
      await page.getByRole("button", { name: "Evaluate", exact: true }).click();
      const latest = page.getByRole("region", { name: "Latest evaluation" });
      const checks = latest.getByRole("list", { name: "Checks" }).getByRole("listitem");
      await expect(checks).toHaveCount(6);
      // The checks pass one by one while the worker deploys, probes and sends the smoke requests.
      await expect(checks.filter({ hasText: "Passed" })).toHaveCount(6, { timeout: 120_000 });
      await expect(latest.getByRole("list", { name: "Findings" })).toHaveCount(0);
      await expect(checks.filter({ hasText: "Smoke requests" })).toBeVisible();
    });

    await test.step("the version v1 is listed as qualified", async () => {
      const versions = page.getByRole("list", { name: "Versions" });
      await expect(versions).toContainText("v1");
      await expect(versions).toContainText("qualified");
    });

    await test.step("the wizard: version, audience, window, review, create", async () => {
      await page.getByRole("button", { name: "Create release" }).click();
      let dialog = page.getByRole("dialog", { name: "New release: Version" });
      await dialog.getByLabel("Version").selectOption({ label: "v1" });
      await dialog.getByRole("button", { name: "Next" }).click();
      dialog = page.getByRole("dialog", { name: "New release: Audience" });
      await dialog.getByLabel("Audience").selectOption("internal");
      await expect(dialog.getByText("People who build the product.")).toBeVisible();
      await dialog.getByRole("button", { name: "Next" }).click();
      dialog = page.getByRole("dialog", { name: "New release: Window" });
      // An end before the start is refused by the server, naming the field; going back fixes it.
      const start = await dialog.getByLabel("Starts at").inputValue();
      await dialog.getByLabel("Ends at (optional)").fill("2020-01-01T00:00");
      await dialog.getByRole("button", { name: "Next" }).click();
      dialog = page.getByRole("dialog", { name: "New release: Review" });
      await dialog.getByRole("button", { name: "Create release" }).click();
      await expect(dialog.getByRole("alert")).toContainText("ends_at must be after starts_at");
      await dialog.getByRole("button", { name: "Back" }).click();
      dialog = page.getByRole("dialog", { name: "New release: Window" });
      const end = new Date(Date.parse(`${start}:00`) + 7 * 86_400_000);
      const local = new Date(end.getTime() - end.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      await dialog.getByLabel("Ends at (optional)").fill(local);
      await dialog.getByRole("button", { name: "Next" }).click();
      dialog = page.getByRole("dialog", { name: "New release: Review" });
      await expect(dialog.getByRole("definition").filter({ hasText: "v1" })).toBeVisible();
      await expect(dialog.getByText("internal", { exact: true })).toBeVisible();
      await dialog.getByRole("button", { name: "Create release" }).click();
      dialog = page.getByRole("dialog", { name: "Release created" });
      await expect(dialog.getByText("Draft", { exact: true })).toBeVisible();
      await dialog.getByRole("button", { name: "Deploy to staging" }).click();
    });

    await test.step("the release page: ready, then live once its staging deployment is active", async () => {
      await expect(page).toHaveURL(/\/releases\/rel_[0-9a-z]{26}$/);
      await expect(page.getByRole("heading", { level: 1, name: "Release" })).toBeVisible();
      await expect(page.getByText("staged, internal")).toBeVisible();
      const timeline = page.getByRole("list", { name: "Status timeline" });
      await expect(timeline.getByText("Live", { exact: true })).toBeVisible({ timeout: 120_000 });
      await expect(timeline.getByRole("listitem")).toHaveCount(3);
      await expect(timeline.getByRole("listitem").nth(0)).toContainText("Draft");
      await expect(timeline.getByRole("listitem").nth(1)).toContainText("Ready");
      const rel = /\/releases\/(rel_[0-9a-z]{26})$/.exec(page.url())![1]!;
      // The breadcrumb links to Releases too: the sidebar's link.
      await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Releases" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Releases" })).toBeVisible();
      await page.getByLabel("Status").selectOption({ label: "Live" });
      await expect(page.getByRole("row").filter({ hasText: rel })).toContainText("Live");
      await page.getByRole("link", { name: rel }).click();
      await page.getByRole("link", { name: /^dep_[0-9a-z]{26}$/ }).click();
      await expect(page.getByText("Staging", { exact: true }).first()).toBeVisible();
      await expect(page.getByText("Active", { exact: true }).first()).toBeVisible();
    });
  });
});
