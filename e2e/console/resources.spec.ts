import { rmSync } from "node:fs";
import { expect, test } from "../support/fixtures";
import {
  ACTIVE_WITHIN_MS,
  createConfirmedProduct,
  deployRevision,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Managed resources in the console: create one attached to a product (a
 * PostgreSQL database when the e2e server runs on PostgreSQL, whose
 * password is shown once; on embedded PGlite the page says postgres is
 * unavailable and the test uses a bucket), see it become available, deploy
 * the product and see the deployment using it, detach, schedule the
 * deletion from a dialog that names what is lost, restore it, then destroy
 * it at once (which also leaves no database behind on the e2e server).
 */
const suffix = uniqueSuffix();
const onPostgres = Boolean(process.env.E2E_DATABASE_URL);

test.describe("managed resources", () => {
  let repoDir = "";
  test.beforeAll(() => {
    repoDir = makeDeployableAppRepository("capstan-e2e-mres-", "resources app").dir;
  });
  test.afterAll(() => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  });

  test("console resources: create attached, used by a deployment, detach, delete with a named loss, restore", async ({
    page,
  }) => {
    test.setTimeout(300_000);
    const ws = await signInAndCreateWorkspace(page, `E2E resources ${suffix}`);
    await createConfirmedProduct(page, ws, repoDir);
    const revisionUrl = page.url();
    const name = `db-${suffix}`.slice(0, 30);

    await test.step("create a resource attached to the product", async () => {
      await page.goto(`/console/w/${ws}/resources`);
      await expect(page.getByRole("heading", { level: 1, name: "Resources" })).toBeVisible();
      await page.getByLabel("Name").fill(name);
      // The workspace's only product (index 0 is "Not attached yet").
      await page.getByLabel("Attach to product").selectOption({ index: 1 });
      if (!onPostgres) {
        await page.getByRole("button", { name: "Create resource" }).click();
        await expect(page.getByText(/Managed PostgreSQL is unavailable/)).toBeVisible();
        await page.getByLabel("Kind").selectOption("object_bucket");
      }
      await page.getByRole("button", { name: "Create resource" }).click();
      if (onPostgres) {
        await expect(page.getByText(/This password is shown once and never again/)).toBeVisible();
        await expect(page.getByLabel("Connection URL")).toHaveValue(
          /^postgresql:\/\/mres_[0-9a-z]+:[A-Za-z0-9_-]{40,}@/,
        );
        await page.getByRole("button", { name: "Done" }).click();
        await expect(page.getByText(/This password is shown once/)).toHaveCount(0);
      }
      const row = page.getByRole("row").filter({ hasText: name });
      await expect(row.getByText("Available", { exact: true })).toBeVisible({ timeout: 30_000 });
      await expect(row.getByText(onPostgres ? "DATABASE_URL" : "BUCKET_URL")).toBeVisible();
      await expect(row.getByRole("button", { name: `Delete ${name}` })).toBeDisabled();
    });

    let dep = "";
    await test.step("deploy the product: the deployment is listed as using it", async () => {
      await page.goto(revisionUrl);
      dep = await deployRevision(page, "Preview");
      await expect(page.getByText("Active", { exact: true }).first()).toBeVisible({ timeout: ACTIVE_WITHIN_MS });
      await page.goto(`/console/w/${ws}/resources`);
      await expect(page.getByRole("row").filter({ hasText: name }).getByRole("link", { name: dep })).toBeVisible();
    });

    await test.step("detach: the dialog says the data is kept", async () => {
      const row = page.getByRole("row").filter({ hasText: name });
      await row.getByRole("button", { name: `Detach ${name}` }).click();
      const dialog = page.getByRole("dialog", { name: `Detach ${name}?` });
      await expect(dialog.getByText(/The data is kept/)).toBeVisible();
      await expect(dialog.getByText(new RegExp(dep))).toBeVisible();
      await dialog.getByRole("button", { name: "Detach" }).click();
      await expect(row.getByText("Not attached")).toBeVisible();
    });

    await test.step("delete: the dialog names what is lost; it is scheduled, not destroyed", async () => {
      const row = page.getByRole("row").filter({ hasText: name });
      await row.getByRole("button", { name: `Delete ${name}` }).click();
      const dialog = page.getByRole("dialog", { name: `Delete ${name}?` });
      await expect(
        dialog.getByText(onPostgres ? /every table and row in it, and its login role/ : /every object in it/),
      ).toBeVisible();
      await expect(
        dialog.getByText(/after the grace period; until then, attaching it again restores it/),
      ).toBeVisible();
      await dialog.getByRole("button", { name: "Schedule deletion" }).click();
      await expect(row.getByText("Deletion scheduled", { exact: true })).toBeVisible();
      await expect(row.getByText(/Attach it again before then to restore it/)).toBeVisible();
    });

    await test.step("restore it by attaching it again", async () => {
      const row = page.getByRole("row").filter({ hasText: name });
      await row.getByRole("button", { name: `Restore ${name}` }).click();
      await row.getByLabel("Product").selectOption({ index: 1 });
      await row.getByRole("button", { name: "Restore and attach" }).click();
      await expect(row.getByText("Available", { exact: true })).toBeVisible({ timeout: 30_000 });
      await expect(row.getByText(/Attach it again before then/)).toHaveCount(0);
    });

    await test.step("detach and destroy it at once (owner): nothing is left behind", async () => {
      const row = page.getByRole("row").filter({ hasText: name });
      await row.getByRole("button", { name: `Detach ${name}` }).click();
      await page
        .getByRole("dialog", { name: `Detach ${name}?` })
        .getByRole("button", { name: "Detach" })
        .click();
      await expect(row.getByText("Not attached")).toBeVisible();
      await row.getByRole("button", { name: `Delete ${name}` }).click();
      const dialog = page.getByRole("dialog", { name: `Delete ${name}?` });
      await dialog.getByLabel(/Skip the grace period/).check();
      await expect(dialog.getByText(/cannot be undone/)).toBeVisible();
      await dialog.getByRole("button", { name: "Destroy now" }).click();
      // Deleted resources leave the list once the worker has destroyed them.
      await expect(page.getByText("No managed resources yet.")).toBeVisible({ timeout: 30_000 });
    });
  });
});
