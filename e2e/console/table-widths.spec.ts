import { rmSync } from "node:fs";
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import {
  ACTIVE_WITHIN_MS,
  createConfirmedProduct,
  deployRevision,
  makeDeployableAppRepository,
  openSessionFromDeployment,
  sendSessionRequest,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Issue #37 item 4: at 1440 px no resource table is wider than its card (the
 * Deployments table, the product's latest deployments, the surface's
 * accesses and an opened session invocation), measured as the table's
 * scrollWidth against the card's clientWidth; below 768 px rows are cards.
 */
const suffix = uniqueSuffix();

/** [table scrollWidth, card clientWidth] of the resource table inside the card titled `title`. */
async function widths(page: Page, title: string): Promise<[number, number]> {
  const card = page
    .locator("div.rounded-lg")
    .filter({ has: page.getByRole("heading", { level: 2, name: title, exact: true }) })
    .last();
  const table: Locator = card.locator("[data-resource-table] table").first();
  await expect(table).toBeVisible();
  const [tw, cw] = await table.evaluate((t) => {
    const c = t.closest("div.rounded-lg")!;
    return [t.scrollWidth, c.clientWidth];
  });
  console.log(`table width: ${title}: table ${tw} px, card ${cw} px`);
  return [tw, cw];
}

async function expectFits(page: Page, title: string): Promise<void> {
  const [table, card] = await widths(page, title);
  expect(table, `${title}: the table (${table} px) is wider than its card (${card} px)`).toBeLessThanOrEqual(card);
}

test.describe("resource tables fit their cards", () => {
  let repoDir = "";
  test.beforeAll(() => {
    repoDir = makeDeployableAppRepository("capstan-e2e-widths-", "hello widths").dir;
  });
  test.afterAll(() => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  });

  test("at 1440 px the deployments, latest deployments, accesses and an opened invocation fit their cards", async ({
    page,
  }) => {
    test.setTimeout(300_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    const ws = await signInAndCreateWorkspace(page, `E2E widths ${suffix}`);
    let productUrl = "";

    await test.step("a product with a preview deployment and one in an evaluation-like slot (the longest label)", async () => {
      await createConfirmedProduct(page, ws, repoDir);
      productUrl = (await page.getByRole("link", { name: "Open product" }).getAttribute("href"))!;
      const revisionUrl = page.url();
      const rev = /rev_([0-9a-z]{26})/.exec(revisionUrl)![1]!;
      await deployRevision(page, "Preview", `eval-${rev}`);
      await page.goto(revisionUrl);
      await deployRevision(page, "Preview");
      await expect(page.getByText("Active", { exact: true }).first()).toBeVisible({ timeout: ACTIVE_WITHIN_MS });
    });

    await test.step("an opened session invocation fits its card", async () => {
      await openSessionFromDeployment(page);
      await sendSessionRequest(page, {
        method: "GET",
        path: "/a/rather/long/path/that/used/to/push/the/table/wider/than/its/card/with/more/segments/and-a-long-file-name.json",
      });
      await page.getByRole("button", { name: "Show details of invocation #1" }).click();
      await expect(
        page.locator("tr[id^=invocation-details-]").getByRole("region", { name: "Response body" }),
      ).toBeVisible({ timeout: 15_000 });
      await expectFits(page, "Invocations");
    });

    await test.step("the surface's accesses fit their card", async () => {
      await page.goBack();
      await expect(page.getByRole("heading", { level: 1, name: "Surface" })).toBeVisible();
      await expect(page.getByRole("heading", { level: 2, name: "Accesses" })).toBeVisible();
      await expectFits(page, "Accesses");
    });

    await test.step("the product's latest deployments and environments fit their cards", async () => {
      await page.goto(productUrl);
      await expect(page.getByRole("heading", { level: 2, name: "Latest deployments" })).toBeVisible();
      await expect(
        page
          .locator("[data-resource-table]")
          .getByText(/slot eval-/)
          .first(),
      ).toBeVisible();
      await expectFits(page, "Latest deployments");
      await expectFits(page, "Environments");
    });

    await test.step("the Deployments page fits its card; ids are shortened with a copy button", async () => {
      await page.goto(`/console/w/${ws}/deployments`);
      await expect(page.getByRole("heading", { level: 1, name: "Deployments" })).toBeVisible();
      const table = page.locator("[data-resource-table] table").first();
      await expect(table.getByRole("button", { name: /^Copy dep_[0-9a-z]{26}$/ }).first()).toBeVisible();
      await expect(table.getByText(/^dep_[0-9a-z]{4}…[0-9a-z]{6}$/).first()).toBeVisible();
      const [tw, cw] = await table.evaluate((t) => [t.scrollWidth, t.closest("div.rounded-lg")!.clientWidth]);
      console.log(`table width: Deployments: table ${tw} px, card ${cw} px`);
      expect(tw).toBeLessThanOrEqual(cw);
      await expect(table.getByRole("columnheader", { name: "Status" })).toBeVisible();
      await expect(table.getByRole("columnheader", { name: "Created" })).toBeVisible();
    });

    await test.step("below 768 px the rows are cards, still inside the page", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      const table = page.locator("[data-resource-table] table").first();
      await expect.poll(() => table.locator("thead").evaluate((e) => getComputedStyle(e).position)).toBe("absolute");
      const [sw, vw] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      expect(sw).toBeLessThanOrEqual(vw);
      await expect(table.locator("tbody tr").first().getByText("Status", { exact: true })).toBeVisible();
    });
  });
});
