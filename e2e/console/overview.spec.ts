import { rmSync } from "node:fs";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { axeFindings } from "../support/quality";
import {
  bridgeToken,
  createConfirmedProduct,
  makeAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * The workspace overview (#21 item 4): a service identity makes two Bridge
 * calls (a data.kv set that completes, a get outside the contract's prefix
 * that is denied); the overview's usage chart counts both on today's UTC day
 * (read from its accessible table, by capability and by product), "Needs
 * action" lists the denial by reason, the environments card shows the three
 * environments, and the billing page's chart has the same day. At 1440 and
 * 390 px, axe-clean and without sideways scrolling.
 */
const suffix = uniqueSuffix();
const WORKSPACE_NAME = `E2E overview ${suffix}`;
const KV = {
  id: "data.kv",
  required: true,
  actions: ["get", "set"],
  scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 100 },
  credential_owner: "platform",
  provider: { allow: ["platform"], fallback: "none" },
};

let repoDir = "";
test.beforeAll(() => {
  repoDir = makeAppRepository("capstan-e2e-overview-repo-", [KV]).dir;
});
test.afterAll(() => {
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
});

/** Elements of the main area reaching past the viewport's right edge (empty when nothing scrolls sideways). */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width + 1) return [];
    return Array.from(document.querySelectorAll<HTMLElement>("main *"))
      .filter((el) => el.getBoundingClientRect().right > width + 1)
      .slice(0, 8)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} right=${Math.round(el.getBoundingClientRect().right)}`);
  });

test("overview: a Bridge call shows in the usage chart's data, the denial in Needs action; axe clean at 1440 and 390 px", async ({
  page,
  request,
  capstan,
}) => {
  test.setTimeout(180_000);
  const ws = await signInAndCreateWorkspace(page, WORKSPACE_NAME);
  await createConfirmedProduct(page, ws, repoDir);

  const client = { id: "", secret: "" };
  await test.step("create a service identity for the product", async () => {
    await page.goto(`/console/w/${ws}/service-identities`);
    await page.getByLabel("Name", { exact: true }).fill(`overview-caller-${suffix}`);
    await page.getByLabel("Product", { exact: true }).selectOption({ index: 1 });
    await page.getByRole("button", { name: "Create service identity" }).click();
    await expect(page.getByRole("status").filter({ hasText: "created" })).toBeVisible();
    client.id = await page.getByLabel("Client ID", { exact: true }).inputValue();
    client.secret = await page.getByLabel("Client secret", { exact: true }).inputValue();
    await page.getByRole("button", { name: "Done" }).click();
  });

  await test.step("two Bridge calls: a set that completes, a get outside the prefix that is denied", async () => {
    const headers = { authorization: `Bearer ${await bridgeToken(capstan, client)}` };
    const set = await request.post("/v1/capabilities/data.kv/set", {
      headers,
      data: { key: "/app/greeting", value: "hi" },
    });
    expect(set.status(), await set.text()).toBe(200);
    const denied = await request.post("/v1/capabilities/data.kv/get", { headers, data: { key: "/elsewhere/secret" } });
    expect(denied.status(), await denied.text()).toBe(403);
  });

  const today = new Date().toISOString().slice(0, 10);
  const usageTable = (by: "capability" | "product") =>
    page.getByRole("table", { name: `Bridge calls per UTC day by ${by}, last 30 days` });

  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    await test.step(`at ${width} px: the chart's table counts both calls on today's UTC day`, async () => {
      await page.setViewportSize({ width, height });
      // The calls are recorded off the response path: reload until they have landed.
      await expect(async () => {
        await page.goto(`/console/w/${ws}`);
        await expect(usageTable("capability").getByRole("row", { name: new RegExp(`^${today}`) })).toBeAttached({
          timeout: 2_000,
        });
      }).toPass({ timeout: 30_000 });
      await expect(page.getByRole("heading", { level: 1, name: WORKSPACE_NAME })).toBeVisible();
      const table = usageTable("capability");
      await expect(table.getByRole("columnheader", { name: "data.kv" })).toBeAttached();
      await expect(table.getByRole("row", { name: new RegExp(`^${today}`) }).getByRole("cell")).toHaveText(["2", "2"]);
      await expect(page.getByText("2 calls from", { exact: false })).toBeVisible();

      await page.getByRole("button", { name: "By product" }).click();
      await expect(page.getByRole("button", { name: "By product" })).toHaveAttribute("aria-pressed", "true");
      await expect(
        usageTable("product")
          .getByRole("row", { name: new RegExp(`^${today}`) })
          .getByRole("cell")
          .last(),
      ).toHaveText("2");

      const needs = page.getByRole("region", { name: "Denied Bridge calls" });
      await expect(needs.getByRole("link", { name: "1 denied: outside_contract" })).toHaveAttribute(
        "href",
        `/console/w/${ws}/invocations`,
      );
      for (const env of ["Preview", "Staging", "Production"])
        await expect(page.getByRole("region", { name: env, exact: true })).toContainText("Nothing deployed.");

      await page.getByLabel("Time range").selectOption("7d");
      await expect(
        page.getByRole("table", { name: "Bridge calls per UTC day by product, last 7 days" }),
      ).toBeAttached();

      await expect(page.getByText(/^Loading .*…$/)).toHaveCount(0, { timeout: 15_000 });
      expect(await axeFindings(page), "serious or critical axe findings on the overview").toEqual([]);
      expect(await sideways(page), "the overview scrolls sideways").toEqual([]);
    });

    await test.step(`at ${width} px: the billing page's chart has the same day`, async () => {
      await page.goto(`/console/w/${ws}/billing`);
      await expect(page.getByRole("heading", { level: 1, name: "Billing" })).toBeVisible();
      await expect(
        usageTable("capability")
          .getByRole("row", { name: new RegExp(`^${today}`) })
          .getByRole("cell"),
      ).toHaveText(["2", "2"]);
      await expect(page.getByRole("button", { name: "By product" })).toHaveCount(0);
      await expect(page.getByText(/^Loading .*…$/)).toHaveCount(0, { timeout: 15_000 });
      expect(await axeFindings(page), "serious or critical axe findings on billing").toEqual([]);
      expect(await sideways(page), "billing scrolls sideways").toEqual([]);
    });
  }
});
