import { expect, test } from "../support/fixtures";
import { signInAndCreateWorkspace, uniqueSuffix } from "../support/console";

/**
 * Names (#21): products are listed by name with status and last activity,
 * not by `prod_` id; a second product from the same repository is warned
 * about, and a name taken in another case is refused with the server's
 * 409 in words; a product is renamed from its page. A second workspace with
 * a name the owner already has is warned about before it is created.
 *
 * The repository is on a host that is not allowed, so its freeze settles
 * (rejected) without any network.
 */
const suffix = uniqueSuffix();
const WORKSPACE_NAME = `E2E names ${suffix}`;
const REPO_URL = `https://example.org/names-${suffix}.git`;

test("console names: products by name, status and last activity; duplicates warned or refused; rename", async ({
  page,
}) => {
  const ws = await signInAndCreateWorkspace(page, WORKSPACE_NAME);
  const products = page.getByRole("table", { name: "Products of this workspace" });

  await test.step("a product created with a name is listed by it, with its status and last activity", async () => {
    await page.goto(`/console/w/${ws}/products`);
    await page.getByLabel("Repository URL").fill(REPO_URL);
    await page.getByLabel("Name (optional)").fill("Storefront");
    await page.getByRole("button", { name: "Create product" }).click();
    const row = products.getByRole("row").filter({ hasText: "Storefront" });
    await expect(row.getByRole("link", { name: "Storefront" })).toBeVisible();
    await expect(row).toContainText(/prod_[0-9a-z]{26}/);
    await expect(row.getByText(/^(Building|Failed|Ready)$/)).toBeVisible();
    const activity = row.locator("time");
    await expect(activity).toHaveText(/just now|second|minute/);
    await expect(activity).toHaveAttribute("title", /\d{4} at \d{2}:\d{2}:\d{2} \S+/);
  });

  await test.step("the same repository again is warned about; the same name in another case is refused in words", async () => {
    await page.getByLabel("Repository URL").fill(REPO_URL.replace(".git", "/"));
    const warning = page.getByRole("status").filter({ hasText: "This repository is already a product here" });
    await expect(warning).toBeVisible();
    await expect(warning.getByRole("link", { name: "Storefront" })).toBeVisible();
    await page.getByLabel("Name (optional)").fill("STOREFRONT");
    await page.getByRole("button", { name: "Create product" }).click();
    const refused = page.getByRole("alert").filter({ hasText: "The product was not created" });
    await expect(refused).toContainText('A product named "STOREFRONT" already exists in this workspace');
    await expect(products.getByRole("row")).toHaveCount(2); // header + the one product
  });

  await test.step("without a name, the second product from the repository is named <repo>-2", async () => {
    await page.getByLabel("Name (optional)").fill("");
    await page.getByRole("button", { name: "Create product" }).click();
    await expect(products.getByRole("link", { name: `names-${suffix}` })).toBeVisible();
    await page.getByLabel("Repository URL").fill(REPO_URL);
    await page.getByRole("button", { name: "Create product" }).click();
    await expect(products.getByRole("link", { name: `names-${suffix}-2` })).toBeVisible();
  });

  await test.step("rename on the product page: a taken name is explained, a free one is saved", async () => {
    await products.getByRole("link", { name: "Storefront" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Storefront" })).toBeVisible();
    await page.getByRole("button", { name: "Rename product Storefront" }).click();
    const dialog = page.getByRole("dialog", { name: "Rename product" });
    await dialog.getByLabel("Name").fill(`NAMES-${suffix}`);
    await dialog.getByRole("button", { name: "Save name" }).click();
    await expect(dialog.getByRole("alert")).toContainText("already exists in this workspace");
    await dialog.getByLabel("Name").fill("Storefront EU");
    await dialog.getByRole("button", { name: "Save name" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("heading", { level: 1, name: "Storefront EU" })).toBeVisible();
    await page.getByRole("link", { name: "All products" }).click();
    await expect(products.getByRole("link", { name: "Storefront EU" })).toBeVisible();
  });

  await test.step("service identities: a live name in another case is refused; the list shows the product's name; rename", async () => {
    await page.goto(`/console/w/${ws}/service-identities`);
    const create = async (name: string) => {
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Product", { exact: true }).selectOption({ label: `Storefront EU · ${REPO_URL} (main)` });
      await page.getByRole("button", { name: "Create service identity" }).click();
    };
    await create("ci-deployer");
    await expect(page.getByRole("status").filter({ hasText: 'Service identity "ci-deployer" created' })).toBeVisible();
    await page.getByRole("button", { name: "Done" }).click();
    await create("CI-Deployer");
    await expect(page.getByRole("alert").filter({ hasText: "already exists" })).toContainText(
      'A service identity named "CI-Deployer" already exists in this workspace',
    );
    const identities = page.getByRole("table", { name: "Service identities of this workspace" });
    const row = identities.getByRole("row").filter({ hasText: "ci-deployer" });
    await expect(identities.getByRole("row")).toHaveCount(2);
    await expect(row.getByRole("link", { name: "Storefront EU" })).toBeVisible();
    await expect(row).toContainText("Never"); // no token yet
    await row.getByRole("button", { name: "Rename service identity ci-deployer" }).click();
    const dialog = page.getByRole("dialog", { name: "Rename service identity" });
    await dialog.getByLabel("Name").fill("Deployer (CI)");
    await dialog.getByRole("button", { name: "Save name" }).click();
    await expect(dialog).toBeHidden();
    await expect(identities.getByRole("row").filter({ hasText: "Deployer (CI)" })).toHaveCount(1);
  });

  await test.step("a second workspace with a name the owner already has is warned about", async () => {
    await page.goto("/console");
    await page.getByLabel("Workspace name").fill(WORKSPACE_NAME.toLowerCase());
    const warning = page.getByRole("status").filter({ hasText: "You already have a workspace named" });
    await expect(warning).toContainText(WORKSPACE_NAME);
    await expect(warning.getByRole("link", { name: `Open ${WORKSPACE_NAME}` })).toHaveAttribute(
      "href",
      `/console/w/${ws}`,
    );
    await expect(page.getByRole("button", { name: "Create another workspace" })).toBeVisible();
  });
});
