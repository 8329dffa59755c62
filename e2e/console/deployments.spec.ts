import { rmSync } from "node:fs";
import { expect, test } from "../support/fixtures";

const PORT = process.env.E2E_PORT ?? "3100";
import {
  ACTIVE_WITHIN_MS,
  createConfirmedProduct,
  deployRevision,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Deployments in the console: confirm a revision of a tiny node app, deploy it
 * to preview, watch it become active, open its surface (the host route
 * `http://srf-<id>.localhost:3100/`, which Chromium resolves to loopback) and
 * stop it. The deploy worker runs in the server process (playwright.config.ts).
 */
const suffix = uniqueSuffix();
const GREETING = `hello from e2e`;

test.describe("deployments", () => {
  let repoDir = "";
  test.beforeAll(() => {
    repoDir = makeDeployableAppRepository("capstan-e2e-deploy-", GREETING).dir;
  });
  test.afterAll(() => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  });

  test("console deployments: deploy a confirmed revision to preview, open its surface, stop it", async ({ page }) => {
    test.setTimeout(300_000);
    const ws = await signInAndCreateWorkspace(page, `E2E deployments ${suffix}`);
    let dep = "";
    let productUrl = "";

    await test.step("create a product from the app's repository and confirm its descriptor", async () => {
      await createConfirmedProduct(page, ws, repoDir);
      productUrl = (await page.getByRole("link", { name: "Open product" }).getAttribute("href"))!;
    });

    await test.step("deploy the revision to preview: the deployment's page opens", async () => {
      dep = await deployRevision(page, "Preview");
      await expect(page.getByText("Preview", { exact: true }).first()).toBeVisible();
    });

    await test.step("the deployment becomes active, with its isolation, health and logs", async () => {
      await expect(page.getByText("Active", { exact: true }).first()).toBeVisible({ timeout: ACTIVE_WITHIN_MS });
      await expect(page.getByText(/isolated-vm (not )?enforced/)).toBeVisible();
      await expect(page.getByText(/^Healthy after \d+ attempts?/)).toBeVisible();
      await page.getByRole("tab", { name: "Logs" }).click();
      await expect(page.getByRole("log", { name: "Build log" })).toContainText("npm ci");
      await page.getByRole("tab", { name: "Overview" }).click();
    });

    await test.step("the header: status, URL with Visit, environment, revision, domains and the sandbox, in words that match what was enforced", async () => {
      const header = page.getByRole("region", { name: "Deployment summary" });
      await expect(header).toBeVisible();
      await expect(
        header.getByRole("link", { name: new RegExp(`^Visit http://srf-[0-9a-z]{26}\\.localhost:${PORT}/`) }),
      ).toBeVisible();
      await expect(header).toContainText("Preview");
      await expect(header).toContainText("None: custom domains serve staging and production");
      const box = await header.boundingBox();
      expect(box!.y).toBeLessThan(400);
      const sandbox = (
        await header.locator("xpath=.//dt[normalize-space()='Sandbox']/following-sibling::dd[1]").innerText()
      ).trim();
      // Never "No outbound network" next to "Not sandboxed": the network sentence follows the mechanism.
      if (sandbox.startsWith("Not sandboxed")) {
        await expect(page.getByText(/No outbound network/)).toHaveCount(0);
        expect(sandbox).toContain("Outbound network not blocked");
        await expect(page.getByText(/^Not sandboxed.*a plain process with network access/)).toBeVisible();
      } else {
        expect(sandbox).toMatch(/^(gVisor \(its own kernel\)|bubblewrap \(namespaces on the host kernel\))/);
        expect(sandbox).toMatch(
          /No outbound network: the (gVisor|bubblewrap) sandbox gave the app no network interface/,
        );
        await expect(page.getByText(/Not sandboxed/)).toHaveCount(0);
      }
    });

    await test.step("the surface URL serves the app", async () => {
      const link = page.getByRole("link", { name: new RegExp(`^http://srf-[0-9a-z]{26}\\.localhost:${PORT}/`) });
      await expect(link).toBeVisible();
      await expect(page.getByText(/^Expires in \d+ days? \d+ hours?/)).toBeVisible();
      const url = (await link.getAttribute("href"))!;
      await page.goto(url);
      await expect(page.getByText(GREETING)).toBeVisible();
    });

    await test.step("the product page shows it live in preview; the deployments page lists it", async () => {
      await page.goto(productUrl);
      const live = page.getByRole("row").filter({ hasText: dep });
      await expect(page.getByRole("heading", { level: 2, name: "Environments" })).toBeVisible();
      await expect(live.first()).toContainText("Preview");
      await expect(
        live.first().getByRole("link", { name: new RegExp(`srf-[0-9a-z]{26}\\.localhost:${PORT}`) }),
      ).toBeVisible();
      await page.goto(`/console/w/${ws}/deployments`);
      await expect(page.getByRole("heading", { level: 1, name: "Deployments" })).toBeVisible();
      await page.getByLabel("Status").selectOption({ label: "Active" });
      await page.getByRole("row").filter({ hasText: dep }).getByRole("link", { name: dep }).click();
      await expect(page).toHaveURL(new RegExp(`/deployments/${dep}$`));
    });

    await test.step("stop it: the deployment is superseded and its surface expires", async () => {
      await page.getByRole("button", { name: "Stop" }).click();
      const dialog = page.getByRole("dialog", { name: "Stop this deployment?" });
      await dialog.getByRole("button", { name: "Stop deployment" }).click();
      await expect(dialog).toBeHidden();
      await expect(page.getByText("Superseded", { exact: true }).first()).toBeVisible();
      await expect(page.getByText("Stopped by a user", { exact: false }).first()).toBeVisible();
      await expect(page.getByRole("button", { name: "Stop" })).toHaveCount(0);
      await expect(page.getByText("Expired", { exact: true })).toBeVisible();
    });
  });
});
