import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { axeFindings, offscreen, settle } from "../support/quality";
import {
  ACTIVE_WITHIN_MS,
  createProductAndOpenRevision,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
  type TRepo,
} from "../support/console";

const PORT = process.env.E2E_PORT ?? "3100";

/**
 * Issue #37 item 3, the deploy flow from the product page: its Deploy has
 * nothing to offer before a revision is confirmed; once one is, it deploys
 * the latest confirmed revision (preview and staging only); a newer
 * revision becomes the default; the Environments card's Redeploy redeploys
 * what runs in that lane (the same revision, environment and slot), not the
 * latest revision, and the new deployment supersedes the old one. The
 * product page (with its Redeploy buttons) and the dialogs are axe-clean
 * (serious/critical) at 1440 and 390 px.
 */
const suffix = uniqueSuffix();
const FIRST = "hello from the first revision";
const SECOND = "hello from the second revision";
const DEP = /\/deployments\/(dep_[0-9a-z]{26})$/;
const REV = /\/revisions\/(rev_[0-9a-z]{26})$/;

async function axeClean(page: Page, what: string, phone = true) {
  for (const width of phone ? [1440, 390] : [1440]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await settle(page);
    expect(await axeFindings(page), `${what} at ${width} px`).toEqual([]);
    expect(await offscreen(page), `${what} at ${width} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** The product page's Environments table and its row for one lane ("Preview", "Staging"). */
const environments = (page: Page) =>
  page.getByRole("table", { name: "Live deployments of this product, by environment" });
const lane = (page: Page, label: string) =>
  environments(page)
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: label, exact: true }) });

/** On a deployment's page: waits until it is active and returns its id. */
async function activeDeployment(page: Page): Promise<string> {
  await expect(page).toHaveURL(DEP);
  await expect(page.getByRole("heading", { level: 1, name: "Deployment" })).toBeVisible();
  await expect(page.getByText("Active", { exact: true }).first()).toBeVisible({ timeout: ACTIVE_WITHIN_MS });
  return DEP.exec(page.url())![1]!;
}

async function confirmRevision(page: Page): Promise<string> {
  await page.getByRole("button", { name: "Confirm descriptor" }).click();
  await expect(page.getByText("Descriptor confirmed")).toBeVisible();
  return REV.exec(page.url())![1]!;
}

test.describe("deploy and redeploy from the product page", () => {
  let repo: TRepo;
  test.beforeAll(() => {
    repo = makeDeployableAppRepository("capstan-e2e-product-deploy-", FIRST);
  });
  test.afterAll(() => {
    if (repo) rmSync(repo.dir, { recursive: true, force: true });
  });

  test("product page: Deploy the latest confirmed revision, Redeploy what runs in a lane", async ({ page }) => {
    test.setTimeout(420_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    const ws = await signInAndCreateWorkspace(page, `E2E product deploy ${suffix}`);
    let productUrl = "";
    let rev1 = "";
    let rev2 = "";
    let dep1 = "";
    let dep2 = "";
    let dep3 = "";

    await test.step("before any revision is confirmed, the product's Deploy has nothing to deploy", async () => {
      await createProductAndOpenRevision(page, ws, repo.dir);
      const revisionUrl = page.url();
      productUrl = (await page.getByRole("link", { name: "Open product" }).getAttribute("href"))!;
      await page.goto(productUrl);
      await expect(page.getByText(/^Nothing is live\. Choose Deploy above/)).toBeVisible();
      await page.getByRole("button", { name: "Deploy", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Deploy a revision of this product" });
      await expect(
        dialog.getByText("No confirmed revision yet: confirm one on its revision page first."),
      ).toBeVisible();
      await expect(dialog.getByRole("button", { name: "Deploy", exact: true })).toBeDisabled();
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await expect(dialog).toBeHidden();
      await page.goto(revisionUrl);
      rev1 = await confirmRevision(page);
    });

    await test.step("Deploy from the product page: the latest confirmed revision, preview or staging only", async () => {
      await page.goto(productUrl);
      await page.getByRole("button", { name: "Deploy", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Deploy a revision of this product" });
      await expect(dialog.getByLabel("Revision")).toHaveValue(rev1);
      await expect(dialog.getByLabel("Environment").locator("option")).toHaveText(["Preview", "Staging"]);
      await axeClean(page, "the product's Deploy dialog", false);
      await dialog.getByLabel("Environment").selectOption({ label: "Preview" });
      await dialog.getByRole("button", { name: "Deploy", exact: true }).click();
      dep1 = await activeDeployment(page);
    });

    await test.step("a second revision (new code) is frozen and confirmed: Deploy now defaults to it", async () => {
      writeFileSync(
        path.join(repo.dir, "server.js"),
        `require("http").createServer((q, s) => { s.setHeader("content-type", "text/plain"); s.end(${JSON.stringify(SECOND)}); }).listen(Number(process.env.PORT));\n`,
      );
      repo.git("commit", "-qam", "second");
      await page.goto(productUrl);
      await page.getByLabel("Ref").fill("main");
      await page.getByRole("button", { name: "Freeze again" }).click();
      const freeze = page.getByRole("region", { name: "Source freeze" });
      await expect(freeze.getByText("Frozen", { exact: true })).toBeVisible({ timeout: 30_000 });
      await freeze.getByRole("link", { name: /^Review revision/ }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Revision" })).toBeVisible();
      rev2 = await confirmRevision(page);
      expect(rev2).not.toBe(rev1);

      await page.goto(productUrl);
      await page.getByRole("button", { name: "Deploy", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Deploy a revision of this product" });
      const revision = dialog.getByLabel("Revision");
      await expect(revision).toHaveValue(rev2);
      await expect(revision.locator("option")).toHaveCount(2);
      await expect(revision.locator(`option[value="${rev2}"]`)).toContainText("(latest confirmed)");
      await expect(revision.locator(`option[value="${rev1}"]`)).not.toContainText("latest");
      await dialog.getByLabel("Environment").selectOption({ label: "Staging" });
      await dialog.getByRole("button", { name: "Deploy", exact: true }).click();
      dep2 = await activeDeployment(page);
    });

    await test.step("the product page shows each lane's revision and offers Redeploy of each; axe-clean", async () => {
      await page.goto(productUrl);
      await expect(lane(page, "Preview")).toContainText(dep1);
      await expect(lane(page, "Preview").getByRole("link", { name: rev1 })).toBeVisible();
      await expect(lane(page, "Staging")).toContainText(dep2);
      await expect(lane(page, "Staging").getByRole("link", { name: rev2 })).toBeVisible();
      await expect(environments(page).getByRole("button", { name: /^Redeploy/ })).toHaveCount(2);
      await expect(lane(page, "Preview").getByRole("button", { name: "Redeploy Preview" })).toBeVisible();
      await expect(lane(page, "Staging").getByRole("button", { name: "Redeploy Staging" })).toBeVisible();
      const [table, card] = await environments(page).evaluate((t) => [
        t.scrollWidth,
        t.closest("div.rounded-lg")!.clientWidth,
      ]);
      expect(table, `Environments table ${table} px in a ${card} px card`).toBeLessThanOrEqual(card);
      await axeClean(page, "the product page with its Redeploy buttons");
    });

    await test.step("Redeploy Preview: the revision that runs there (not the latest) goes active and supersedes it", async () => {
      await lane(page, "Preview").getByRole("button", { name: "Redeploy Preview" }).click();
      const dialog = page.getByRole("dialog", { name: "Redeploy this revision" });
      await expect(dialog).toContainText(`The same revision (${rev1})`);
      await expect(dialog.getByLabel("Environment")).toHaveValue("preview");
      await expect(dialog.getByLabel("Slot (optional)")).toHaveValue("");
      await axeClean(page, "the product's Redeploy dialog", false);
      await dialog.getByRole("button", { name: "Deploy", exact: true }).click();
      dep3 = await activeDeployment(page);
      expect(dep3).not.toBe(dep1);
      await expect(
        page.getByRole("region", { name: "Deployment summary" }).getByRole("link", { name: rev1 }).first(),
      ).toBeVisible();
    });

    await test.step("the product page: Preview runs the new deployment of the first revision, the old one is superseded", async () => {
      await page.goto(productUrl);
      await expect(lane(page, "Preview")).toContainText(dep3);
      await expect(lane(page, "Preview").getByRole("link", { name: rev1 })).toBeVisible();
      await expect(lane(page, "Staging")).toContainText(dep2);
      await expect(environments(page)).not.toContainText(dep1);
      const latest = page.getByRole("table", { name: "Latest deployments" });
      await expect(latest.getByRole("row").filter({ hasText: dep1 })).toContainText("Superseded");
      await expect(latest.getByRole("row").filter({ hasText: dep3 })).toContainText("Active");
      const surface = lane(page, "Preview").getByRole("link", {
        name: new RegExp(`^http://srf-[0-9a-z]{26}\\.localhost:${PORT}/`),
      });
      const url = (await surface.getAttribute("href"))!;
      await page.goto(url);
      await expect(page.getByText(FIRST)).toBeVisible();
      await expect(page.getByText(SECOND)).toHaveCount(0);
    });
  });
});
